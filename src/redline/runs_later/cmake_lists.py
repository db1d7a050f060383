"""`CMakeLists.txt` and `*.cmake` read for the commands CMake runs:
`execute_process` (when the project is configured; its `COMMAND`s form a
pipeline), `add_custom_command`, `add_custom_target`, `add_test`, the
`*_COMMAND` of `ExternalProject_Add` and `FetchContent_Declare` (at build),
`exec_program`, `install(CODE ...)` (CMake code run at install), and
`file(REMOVE_RECURSE ...)` / `file(WRITE ...)`, told as the shell commands
they equal. `$ENV{HOME}` is the home; a variable `set()` in the file is its
last value; CMake's own (`${CMAKE_COMMAND}`, the source and build folders)
are their usual values; another variable is a word, or, as the program to
run, a computed one.
"""

from __future__ import annotations

import shlex

from redline.shell.lazy_regex import lazy_regex

_CALL = lazy_regex(r"([A-Za-z_]\w*)[ \t]*\(")
_ARG = lazy_regex(
    r"\s*(?:(?P<bracket>\[(=*)\[.*?\]\2\])|(?P<quoted>\"(?:[^\"\\]|\\.)*\")"
    r"|(?P<comment>#[^\n]*)|(?P<open>\()|(?P<close>\))|(?P<word>(?:[^\s()\"#\\]|\\.)+))",
    flags=16,  # re.DOTALL
)
_REFERENCE = lazy_regex(r"\$(ENV|CACHE)?\{([^${}]*)\}")
_GENERATOR = lazy_regex(r"\$<[^<>]*>")
_ENV_MARK = "\x01"  # around an environment variable's name in an expanded value
_MARKED = lazy_regex("\x01([^\x01]*)\x01")
_KNOWN = {
    "CMAKE_COMMAND": "cmake", "CMAKE_CTEST_COMMAND": "ctest", "CMAKE_CPACK_COMMAND": "cpack",
    "CMAKE_C_COMPILER": "cc", "CMAKE_CXX_COMPILER": "c++", "CMAKE_MAKE_PROGRAM": "make",
    "PYTHON_EXECUTABLE": "python3", "Python_EXECUTABLE": "python3",
    "Python3_EXECUTABLE": "python3",
}  # fmt: skip
_KEYWORDS = {
    "execute_process": {"WORKING_DIRECTORY", "TIMEOUT", "RESULT_VARIABLE", "RESULTS_VARIABLE",
                        "OUTPUT_VARIABLE", "ERROR_VARIABLE", "INPUT_FILE", "OUTPUT_FILE",
                        "ERROR_FILE", "OUTPUT_QUIET", "ERROR_QUIET", "COMMAND_ECHO",
                        "OUTPUT_STRIP_TRAILING_WHITESPACE", "ERROR_STRIP_TRAILING_WHITESPACE",
                        "ENCODING", "ECHO_OUTPUT_VARIABLE", "ECHO_ERROR_VARIABLE",
                        "COMMAND_ERROR_IS_FATAL"},
    "add_custom_command": {"OUTPUT", "MAIN_DEPENDENCY", "DEPENDS", "BYPRODUCTS",
                           "IMPLICIT_DEPENDS", "WORKING_DIRECTORY", "COMMENT", "DEPFILE",
                           "JOB_POOL", "JOB_SERVER_AWARE", "VERBATIM", "APPEND",
                           "USES_TERMINAL", "COMMAND_EXPAND_LISTS", "DEPENDS_EXPLICIT_ONLY",
                           "CODEGEN", "TARGET", "PRE_BUILD", "PRE_LINK", "POST_BUILD"},
    "add_custom_target": {"ALL", "DEPENDS", "BYPRODUCTS", "WORKING_DIRECTORY", "COMMENT",
                          "JOB_POOL", "JOB_SERVER_AWARE", "VERBATIM", "USES_TERMINAL",
                          "COMMAND_EXPAND_LISTS", "SOURCES"},
}  # fmt: skip
_ANY_KEYWORD = lazy_regex(r"[A-Z][A-Z0-9_]{2,}")
_MAX_DEPTH = 4


def cmake_commands(text: str, depth: int = 0) -> list[str]:
    """The shell commands a CMake file runs, in order."""
    variables: dict[str, str] = {}
    found: list[str] = []
    for name, args in _calls(text):
        name = name.lower()
        values: list[str] = []
        for arg, quoted in args:  # an unquoted list is as many arguments
            value = _expand(arg, variables)
            values.extend([value] if quoted else [w for w in value.split(";") if w])
        if name == "set" and values:
            kept = values[1:]
            for stop in ("CACHE", "PARENT_SCOPE"):
                kept = kept[: kept.index(stop)] if stop in kept else kept
            variables[values[0]] = ";".join(kept)
        elif name == "find_program" and len(values) > 1:
            names = values[values.index("NAMES") + 1 :] if "NAMES" in values else values[1:]
            variables[values[0]] = names[0] if names else "program"
        elif name == "file" and values[:1] in (["REMOVE_RECURSE"], ["REMOVE"]):
            flag = "-rf" if values[0] == "REMOVE_RECURSE" else "-f"
            found.append(f"rm {flag} " + " ".join(_word(v) for v in values[1:]))
        elif name == "file" and values[:1] in (["WRITE"], ["APPEND"]) and len(values) > 2:
            op = ">" if values[0] == "WRITE" else ">>"
            found.append(f"cat {op} {_word(values[1])} <<'CMAKE_TEXT'\n{values[2]}\nCMAKE_TEXT")
        elif name == "install" and "CODE" in values and depth < _MAX_DEPTH:
            for k, value in enumerate(values[:-1]):
                if value == "CODE":
                    code = _MARKED.sub(r"$ENV{\1}", values[k + 1])
                    found.extend(cmake_commands(code, depth + 1))
        elif name == "exec_program" and values:
            rest = values[values.index("ARGS") + 1 :] if "ARGS" in values else []
            found.append(_command([values[0], *rest]))
        else:
            found.extend(_command_groups(name, values))
    return found


def _command_groups(name: str, values: list[str]) -> list[str]:
    keywords = _KEYWORDS.get(name)
    groups: list[list[str]] = []
    current: list[str] | None = None
    if name == "add_custom_target":  # `add_custom_target(name [ALL] cmd args...)`
        current = []
        groups.append(current)
    for value in values[1:] if name == "add_custom_target" else values:
        if value == "COMMAND" or (value.endswith("_COMMAND") and _ANY_KEYWORD.fullmatch(value)):
            current = []
            groups.append(current)
        elif current is not None and (
            value in keywords if keywords is not None else bool(_ANY_KEYWORD.fullmatch(value))
        ):
            current = None
        elif current is not None:
            current.append(value)
    commands = [_command(g) for g in groups if g]
    if name == "execute_process" and len(commands) > 1:
        return [" | ".join(commands)]  # its commands run as one pipeline
    return commands


def _command(words: list[str]) -> str:
    if words and words[0] in ("", "value"):
        words = ["${CMAKE_COMPUTED_PROGRAM}", *words[1:]]
    return " ".join(_word(w) for w in words)


def _word(value: str) -> str:
    """A shell word for one argument: literal text quoted, `$ENV{X}` kept
    as the shell's `${X}`."""
    if _ENV_MARK not in value:
        return shlex.quote(value) if value else "''"
    parts = value.split(_ENV_MARK)
    out = []
    for k, part in enumerate(parts):
        if k % 2:
            out.append('"${' + part + '}"')
        elif part:
            out.append(shlex.quote(part))
    return "".join(out)


def _expand(arg: str, variables: dict[str, str]) -> str:
    if "$" not in arg:
        return arg
    arg = _GENERATOR.sub("target", arg)
    for _ in range(8):  # nested references, innermost first
        expanded = _REFERENCE.sub(lambda m: _reference(m.group(1), m.group(2), variables), arg)
        if expanded == arg:
            break
        arg = expanded
    return arg


def _reference(kind: str | None, name: str, variables: dict[str, str]) -> str:
    if kind == "ENV":
        return f"{_ENV_MARK}{name}{_ENV_MARK}" if name.replace("_", "").isalnum() else "value"
    if name in variables:
        return variables[name]
    if name in _KNOWN:
        return _KNOWN[name]
    if name.endswith(("SOURCE_DIR", "LIST_DIR")):
        return "."
    if name.endswith("BINARY_DIR"):
        return "build"
    if name.endswith("_EXECUTABLE"):
        return name.removesuffix("_EXECUTABLE").lower()
    return "value"


def _calls(text: str) -> list[tuple[str, list[tuple[str, bool]]]]:
    """Each command call and its arguments (`(text, quoted)`); lists split
    at `;` where unquoted."""
    found: list[tuple[str, list[tuple[str, bool]]]] = []
    at = 0
    while True:
        match = _CALL.search(text, at)
        if match is None:
            return found
        line_start = text.rfind("\n", 0, match.start()) + 1
        if "#" in text[line_start : match.start()]:
            at = text.find("\n", match.end()) if "\n" in text[match.end() :] else len(text)
            continue
        args: list[tuple[str, bool]] = []
        level, at = 1, match.end()
        while level and at < len(text):
            token = _ARG.match(text, at)
            if token is None or token.end() == at:
                break
            at = token.end()
            kind = token.lastgroup
            if kind == "open":
                level += 1
            elif kind == "close":
                level -= 1
            elif kind == "quoted":
                args.append((_unescape(token.group(kind)[1:-1]), True))
            elif kind == "bracket":
                body = token.group(kind)
                inner = body[body.index("[", 1) + 1 : body.rindex("]", 0, -1)]
                args.append((inner.removeprefix("\n"), True))
            elif kind == "word":
                args.extend((w, False) for w in _unescape(token.group(kind)).split(";") if w)
        found.append((match.group(1), args))


def _unescape(text: str) -> str:
    return text.replace("\\\n", "").replace('\\"', '"').replace("\\$", "$").replace("\\\\", "\\")
