"""What Lua, R and Tcl code does to the system, as the shell commands that
would do the same (issue #13, family 7), however the call is reached: Lua's
`os["execute"](...)` and `local x = os.execute; x(...)`, R's
`do.call(unlink, list(...))` and `f <- unlink; f(...)`, Tcl's `file delete
-force`. `unlink("build", recursive=TRUE)` is `rm -rf -- build`, judged as
that command is.

Read with patterns over the code, with the home already spelled `"~"`
(`code_home`); the code less the calls told is the `rest` the rules judge
for harmlessness, `None` when a call could not be told.
"""

from __future__ import annotations

import re

from redline.shell.lazy_regex import lazy_regex
from redline.shell.sink_words import Sinks, command, path_word

_STRING = lazy_regex(r"\"((?:[^\"\\\n]|\\.)*)\"|'((?:[^'\\\n]|\\.)*)'")
# `os["execute"]`, `os['execute']`: the field by another spelling.
_LUA_INDEX = lazy_regex(r"\b(os|io)\s*\[\s*([\"'])(\w+)\2\s*\]")
_LUA_RUNS = frozenset({"os.execute", "io.popen"})
_LUA_ALIAS = lazy_regex(
    r"(?:\blocal\s+)?\b(\w+)\s*=\s*(os\.execute|io\.popen|os\.remove)\b(?!\s*\()"
)
# A call: the name, then `(` or (Lua) a string literal right after.
_LUA_CALL = lazy_regex(r"(?<![\w.])([\w.]+)\s*(\(|(?=[\"']))")
_R_DO_CALL = lazy_regex(r"\bdo\.call\(\s*([\"']?)([\w.]+)\1\s*,\s*(?:list|c)\(")
_R_ALIAS = lazy_regex(
    r"(?<![\w.])([\w.]+)\s*(?:<-|=)\s*(?:base::)?(unlink|file\.remove|system2?|shell)\b(?!\s*\()"
)
_R_CALL = lazy_regex(r"(?<![\w.])(?:base::)?(unlink|file\.remove|system2?|shell)\s*\(")
_R_RECURSIVE = lazy_regex(r"\brecursive\s*=\s*(?:TRUE|T)\b")
_TCL_DELETE = lazy_regex(r"(?:^|[\[;{\n])\s*file\s+delete\s+((?:-\w+\s+)*)([^\]\n;}]+)", flags=8)


def call_sinks(code: str, family: str) -> Sinks:
    if family in ("lua", "luajit"):
        return _lua(code)
    if family in ("rscript", "r"):
        return _r(code)
    if family == "tclsh":
        return _tcl(code)
    return Sinks((), None)


def _strings(text: str) -> list[str]:
    return [a if a or not b else b for a, b in _STRING.findall(text)]


def _call_end(code: str, start: int) -> int:
    """The index after the `)` that closes the call opened before `start`."""
    depth, k = 1, start
    while k < len(code) and depth:
        char = code[k]
        if char in "\"'":
            close = code.find(char, k + 1)
            k = len(code) if close == -1 else close + 1
            continue
        depth += {"(": 1, ")": -1}.get(char, 0)
        k += 1
    return k


def _lua(code: str) -> Sinks:
    code = _LUA_INDEX.sub(lambda m: f"{m[1]}.{m[3]}", code)
    targets = {name: target for name, target in _LUA_ALIAS.findall(code)}
    found: list[str] = []
    rest: list[str] = []
    told = True
    k = 0
    for match in _LUA_CALL.finditer(code):
        name = match.group(1)
        target = targets.get(name, name)
        if target not in _LUA_RUNS and target != "os.remove":
            continue
        if match.start() < k:
            continue
        if match.group(2) == "(":
            end = _call_end(code, match.end())
            inside = code[match.end() : end - 1]
        else:  # `os.execute"cmd"`: a call with one string literal
            literal = _STRING.match(code, match.end())
            end = literal.end() if literal else match.end()
            inside = code[match.end() : end]
        strings = _strings(inside)
        if not strings or _STRING.sub("", inside).strip(" ,"):
            told = False  # a computed argument: the call is not told in full
        if strings:
            found.append(strings[0] if target in _LUA_RUNS else f"rm -f -- {path_word(strings[0])}")
        rest.append(code[k : match.start()])
        k = end
    rest.append(code[k:])
    return Sinks(tuple(found), "".join(rest) if told else None)


def _r(code: str) -> Sinks:
    code = _R_DO_CALL.sub(lambda m: f"{m[2]}(", code)  # `do.call(f, list(a))` is `f(a)`
    for alias, target in _R_ALIAS.findall(code):  # `f <- unlink; f("~")`
        code = re.sub(rf"(?<![\w.]){re.escape(alias)}\s*\(", target + "(", code)
    found: list[str] = []
    rest: list[str] = []
    told = True
    k = 0
    for match in _R_CALL.finditer(code):
        if match.start() < k:
            continue
        end = _call_end(code, match.end())
        inside = code[match.end() : end - 1]
        strings = _strings(inside)
        name = match.group(1)
        text = None
        if strings and name in ("unlink", "file.remove"):
            recursive = name == "unlink" and _R_RECURSIVE.search(inside)
            text = f"rm {'-rf' if recursive else '-f'} -- " + " ".join(
                path_word(s) for s in strings
            )
        elif strings and name == "system2":
            text = command(strings)
        elif strings:
            text = strings[0]
        unknown = _STRING.sub("", inside)
        unknown = _R_RECURSIVE.sub("", unknown).replace("c(", "(")
        if text is None or unknown.strip(" ,()\n"):
            told = False
        if text is not None:
            found.append(text)
        rest.append(code[k : match.start()])
        k = end
    rest.append(code[k:])
    return Sinks(tuple(found), "".join(rest) if told else None)


def _tcl(code: str) -> Sinks:
    found: list[str] = []
    for match in _TCL_DELETE.finditer(code):
        force = "-force" in match.group(1)
        words = [w.strip('"{}') for w in match.group(2).split()]
        if words:
            found.append(
                f"rm {'-rf' if force else '-f'} -- " + " ".join(path_word(w) for w in words)
            )
    return Sinks(tuple(found), None)
