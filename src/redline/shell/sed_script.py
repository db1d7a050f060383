"""`sed` scripts made only of `s///` and `y///` commands, run over static
text (F-SHELL-4): `echo xeboot | sed s/x/r/ | sh` runs `reboot`. Basic and
extended regular expressions, `&`, `\\1`..`\\9`, GNU's `\\L`, `\\U`, `\\E`, `\\l`,
`\\u`, and the `g`, `p`, `i`/`I` and numeric flags. `None` for anything else."""

from __future__ import annotations

import re
from collections.abc import Callable

_BRE_SWAP = frozenset("(){}+?|")
_NESTED_REPEAT = re.compile(r"\((?:[^()\\]|\\.)*[*+?}](?:[^()\\]|\\.)*\)[*+?{]")


def run(values: tuple[str, ...], stdin: str) -> str | None:
    scripts: list[str] = []
    extended = quiet = False
    k = 0
    while k < len(values):
        value = values[k]
        if value in ("-e", "--expression") and k + 1 < len(values):
            scripts.append(values[k + 1])
            k += 2
            continue
        if value.startswith("--expression="):
            scripts.append(value.split("=", 1)[1])
        elif value in ("-E", "-r", "--regexp-extended"):
            extended = True
        elif value in ("-n", "--quiet", "--silent"):
            quiet = True
        elif value.startswith("-") or scripts:
            return None  # files to edit, `-i`, `-f`: not static text
        else:
            scripts.append(value)
        k += 1
    commands = []
    for script in scripts:
        for part in _split(script):
            command = _command(part, extended)
            if command is None:
                return None
            commands.append(command)
    if not commands:
        return None
    ended = stdin.endswith("\n")
    out = []
    for line in (stdin[:-1] if ended else stdin).split("\n"):
        printed: list[str] = []
        for command in commands:
            line, show = command(line)
            if show:
                printed.append(line)
        out.extend(printed)
        if not quiet:
            out.append(line)
    return "\n".join(out) + ("\n" if ended and out else "")


def _split(script: str) -> list[str]:
    """Commands separated by `;` or newlines, outside their delimiters."""
    parts: list[str] = []
    i, n = 0, len(script)
    while i < n:
        while i < n and script[i] in " \t\n;":
            i += 1
        if i >= n:
            break
        start = i
        if script[i] in "sy" and i + 1 < n:
            delimiter = script[i + 1]
            i += 2
            seen = 0
            while i < n and seen < 2:
                if script[i] == "\\":
                    i += 2
                    continue
                seen += script[i] == delimiter
                i += 1
        while i < n and script[i] not in ";\n":
            i += 1
        parts.append(script[start:i].strip())
    return parts


def _fields(body: str, delimiter: str) -> list[str] | None:
    out, current, i = [], [], 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            current.append(nxt if nxt == delimiter else c + nxt)
            i += 2
            continue
        if c == delimiter:
            out.append("".join(current))
            current = []
        else:
            current.append(c)
        i += 1
    out.append("".join(current))
    return out if len(out) == 3 else None


Command = Callable[[str], tuple[str, bool]]


def _command(text: str, extended: bool) -> Command | None:
    if len(text) < 4 or text[0] not in "sy" or text[1] in "\\\n":
        return None
    parts = _fields(text[2:], text[1])
    if parts is None:
        return None
    pattern, replacement, flags = parts
    if text[0] == "y":
        if flags.strip() or len(pattern) != len(replacement):
            return None
        table = str.maketrans(pattern, replacement)
        return lambda line: (line.translate(table), False)
    python = _regex(pattern, extended)
    if _NESTED_REPEAT.search(python):
        return None  # `(a*)*`: matching could take exponential time
    try:
        regex = re.compile(python, re.I if set(flags) & {"i", "I"} else 0)
    except re.error:
        return None
    if flags.strip("gpiI0123456789"):
        return None
    count = 0 if "g" in flags else 1
    nth = int("".join(c for c in flags if c.isdigit()) or "0")
    show = "p" in flags

    def apply(line: str) -> tuple[str, bool]:
        seen = 0

        def replace(match: re.Match[str]) -> str:
            nonlocal seen
            seen += 1
            if nth and seen != nth:
                return match.group(0)
            return _replacement(replacement, match)

        changed = regex.sub(replace, line, count=0 if nth else count)
        return changed, show and changed != line

    return apply


def _regex(pattern: str, extended: bool) -> str:
    """A POSIX regular expression as Python's `re` spells it."""
    if extended:
        return pattern
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            out.append(nxt if nxt in _BRE_SWAP else c + nxt)
            i += 2
            continue
        out.append("\\" + c if c in _BRE_SWAP else c)
        i += 1
    return "".join(out)


def _replacement(template: str, match: re.Match[str]) -> str:
    out: list[str] = []
    case = ""  # "L"/"U" until `\E`
    once = ""  # "l"/"u" for the next character

    def add(text: str) -> None:
        nonlocal once
        for char in text:
            if once:
                char = char.lower() if once == "l" else char.upper()
                once = ""
            elif case:
                char = char.lower() if case == "L" else char.upper()
            out.append(char)

    i = 0
    while i < len(template):
        c = template[i]
        if c == "&":
            add(match.group(0))
        elif c == "\\" and i + 1 < len(template):
            i += 1
            e = template[i]
            if e.isdigit():
                add(match.group(int(e)) or "" if int(e) <= (match.re.groups or 0) else "")
            elif e in "LU":
                case = e
            elif e == "E":
                case = ""
            elif e in "lu":
                once = e
            elif e == "n":
                add("\n")
            elif e == "t":
                add("\t")
            else:
                add(e)
        else:
            add(c)
        i += 1
    return "".join(out)
