"""Commands that carry a script as data: `sh -c`, `eval`, heredocs... (F-SHELL-3).

Each function here finds the text an invocation will run as shell code, so
the analysis can parse it again with the same rules: quoting is not a bypass.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import NamedTuple

from redline.shell.invocation import Invocation
from redline.shell.model import DYNAMIC, Word

SHELLS = frozenset(
    {"sh", "bash", "zsh", "ksh", "dash", "ash", "mksh", "yash", "rbash", "fish", "csh",
     "tcsh", "pwsh"}
)  # fmt: skip
SOURCE = frozenset({"source", "."})
# Interpreters and the options that give them code inline.
INTERPRETERS: dict[str, frozenset[str]] = {
    "python": frozenset({"-c"}),
    "pypy": frozenset({"-c"}),
    "perl": frozenset({"-e", "-E"}),
    "ruby": frozenset({"-e"}),
    "node": frozenset({"-e", "--eval", "-p", "--print"}),
    "nodejs": frozenset({"-e", "--eval", "-p", "--print"}),
    "bun": frozenset({"-e", "--eval", "-p", "--print"}),
    "deno": frozenset({"eval"}),
    "php": frozenset({"-r"}),
    "lua": frozenset({"-e"}),
    "luajit": frozenset({"-e"}),
    "rscript": frozenset({"-e"}),
    "osascript": frozenset({"-e"}),
    "tclsh": frozenset(),
    "awk": frozenset(),
    "gawk": frozenset(),
    "mawk": frozenset(),
    "nawk": frozenset(),
    "jshell": frozenset(),
    "irb": frozenset(),
}
_VERSIONED = re.compile(r"^(python|pypy|perl|ruby|lua|php|node)[\d.]*$")
# `-o OPT`, `--rcfile F` and the like take a value in shells.
_SHELL_VALUE_OPTS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})


class Carried(NamedTuple):
    """Shell text an invocation runs. `word` is set when the text is exactly
    that word's value, so spans inside it map back to the original command."""

    text: str
    label: str
    word: Word | None = None
    # Positional parameters (`$0`, `$1`...) the carried script sees.
    env: tuple[tuple[str, str], ...] = ()
    remote: bool = False


_FAMILY_PREFIXES = ("python", "pypy", "perl", "ruby", "lua", "php", "node")
CARRIER_NAMES = SHELLS | SOURCE | {"eval", "su", "runuser", "script", "flock"}


def interpreter_family(name: str) -> str | None:
    if name in INTERPRETERS:
        return name
    if not name.startswith(_FAMILY_PREFIXES):
        return None
    match = _VERSIONED.match(name)
    if match:
        return match.group(1)
    return name if name in INTERPRETERS else None


def inline_code(inv: Invocation) -> str | None:
    """The code an interpreter is given inline or on stdin, if any."""
    family = interpreter_family(inv.name)
    if family is None:
        return None
    flags = INTERPRETERS[family]
    argv = inv.argv
    for k, word in enumerate(argv[1:], 1):
        value = word.value
        if value in flags and k + 1 < len(argv):
            return argv[k + 1].value
        for flag in flags:  # `-c'code'` and `--eval=code`
            if len(flag) == 2 and value.startswith(flag) and len(value) > 2 and flag != "-p":
                return value[2:]
            if flag.startswith("--") and value.startswith(flag + "="):
                return value[len(flag) + 1 :]
    if family in ("awk", "gawk", "mawk", "nawk"):
        programs = [w for w in argv[1:] if not w.value.startswith("-")]
        return programs[0].value if programs else None
    operands = inv.options.operands
    if not operands or operands[0].value == "-":
        return inv.stdin_text
    return None


def carried_scripts(inv: Invocation) -> list[Carried]:
    name = inv.name
    if name not in CARRIER_NAMES and interpreter_family(name) is None:
        return []
    if name in SHELLS:
        return _shell(inv)
    if name == "eval":
        return _joined(inv.argv[1:], "eval")
    if name in ("su", "runuser", "script", "flock"):
        return _dash_c(inv)
    if name in SOURCE:
        operands = inv.options.operands
        target = operands[0].value if operands else ""
        if target in ("/dev/stdin", "/proc/self/fd/0", "-") and inv.stdin_text is not None:
            return [Carried(inv.stdin_text, name + " /dev/stdin")]
        return []
    if interpreter_family(name) is not None:
        code = inline_code(inv)
        return [] if code is None else _shell_in_code(code, name)
    return []


def _shell(inv: Invocation) -> list[Carried]:
    argv = inv.argv
    k, n = 1, len(argv)
    has_c = False
    while k < n:
        value = argv[k].value
        if value == "--":
            k += 1
            break
        if value in _SHELL_VALUE_OPTS:
            k += 2
            continue
        if value.startswith(("-", "+")) and len(value) > 1:
            if not value.startswith("--") and "c" in value[1:]:
                has_c = True
            k += 1
            continue
        break
    operands = argv[k:]
    if has_c:
        if not operands:
            return []
        script = operands[0]
        env = tuple((str(i), w.value) for i, w in enumerate(operands[1:10]))
        return [Carried(script.value, f"{inv.name} -c", script, env)]
    if not operands and inv.stdin_text is not None:
        return [Carried(inv.stdin_text, f"{inv.name} reading stdin")]
    return []


def _joined(words: tuple[Word, ...], label: str) -> list[Carried]:
    if not words:
        return []
    if len(words) == 1:
        return [Carried(words[0].value, label, words[0])]
    return [Carried(" ".join(w.value for w in words), label)]


def _dash_c(inv: Invocation) -> list[Carried]:
    argv = inv.argv
    for k, word in enumerate(argv[1:], 1):
        value = word.value
        if value in ("-c", "--command") and k + 1 < len(argv):
            return [Carried(argv[k + 1].value, f"{inv.name} -c", argv[k + 1])]
        if value.startswith("--command="):
            return [Carried(value[len("--command=") :], f"{inv.name} -c")]
    return []


# A call that hands a string to the system shell, in the common interpreters.
_SYSTEM_CALL = re.compile(
    r"(?:\b(?:system|popen|popen2|popen3|check_output|check_call|call|run|spawn|spawnSync|"
    r"exec|execSync|execFileSync|Popen|getoutput|getstatusoutput|shell_exec|passthru|"
    r"proc_open|capture2|capture3|spawn_command|Command)\s*\()"
)
_BACKTICKS = re.compile(r"`([^`]*)`|\bqx\s*[{(\[/](.*?)[})\]/]|%x[{(\[](.*?)[})\]]")
_STRING = re.compile(r"\"((?:[^\"\\]|\\.)*)\"|'((?:[^'\\]|\\.)*)'")


def _shell_in_code(code: str, name: str) -> list[Carried]:
    """Shell commands an interpreter's code hands to the system shell."""
    found: list[Carried] = []
    label = f"{name} inline code"
    for match in _SYSTEM_CALL.finditer(code):
        start = match.end()
        depth, end = 1, start
        while end < len(code) and depth:
            depth += {"(": 1, ")": -1}.get(code[end], 0)
            end += 1
        inside = code[start:end]
        strings = [a if a or not b else b for a, b in _STRING.findall(inside)]
        strings = [_unescape(s) for s in strings]
        if not strings:
            continue
        if inside.lstrip().startswith(("[", "(")) or len(strings) > 1:
            found.append(Carried(" ".join(_quote(s) for s in strings), label))
            found.extend(Carried(s, label) for s in strings[:1])
        else:
            found.append(Carried(strings[0], label))
    if name.startswith(("perl", "ruby", "php")) or name.endswith("awk"):
        for match in _BACKTICKS.finditer(code):
            text = next((g for g in match.groups() if g), "")
            if text:
                found.append(Carried(text, label))
    return found


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text) if "\\" in text else text


def _quote(text: str) -> str:
    if text and all(c.isalnum() or c in "-_./=:,+%@" for c in text):
        return text
    return "'" + text.replace("'", "'\\''") + "'"


def static_output(inv: Invocation) -> str | None:
    """What `echo`, `printf` or `cat` with a heredoc writes, when it is static."""
    if inv.name == "echo":
        words = [w.value for w in inv.argv[1:]]
        while words and words[0] in ("-n", "-e", "-E", "-ne", "-en"):
            words.pop(0)
        text = " ".join(words)
    elif inv.name == "printf":
        words = [w.value for w in inv.argv[1:]]
        if words and words[0] == "--":
            words.pop(0)
        if not words:
            return None
        fmt, rest = words[0], words[1:]
        text = fmt.replace("\\n", "\n")
        for arg in rest:
            text = text.replace("%s", arg, 1) if "%s" in text else text + arg
        text = text.replace("%s", "")
    elif inv.name == "cat" and not inv.options.operands:
        text = inv.stdin_text or ""
        if not text:
            return None
    elif inv.name in ("base64", "basenc") and inv.has_flag("dD", ("decode",)):
        text = _b64decode(inv.stdin_text)
    elif inv.name == "rev" and inv.stdin_text is not None:
        text = "\n".join(line[::-1] for line in inv.stdin_text.split("\n"))
    elif inv.name == "xxd" and inv.has_flag("r", ()) and inv.stdin_text is not None:
        text = _hexdecode(inv.stdin_text)
    else:
        return None
    return None if DYNAMIC in text else text


def _b64decode(text: str | None) -> str:
    if not text:
        return DYNAMIC
    try:
        return base64.b64decode("".join(text.split()), validate=False).decode("utf-8", "replace")
    except (ValueError, binascii.Error):
        return DYNAMIC


def _hexdecode(text: str) -> str:
    try:
        return bytes.fromhex("".join(text.split())).decode("utf-8", "replace")
    except ValueError:
        return DYNAMIC
