"""awk programs that only print (F-SHELL-4): `awk 'BEGIN{print "x"}'`,
`awk '{print $2}'`, `printf` with a format. Run over static input, so that
`awk '{print "reboot"}' | sh` is judged as `reboot`. Anything else (patterns,
variables set in the program, functions, files) is unknown: `None`."""

from __future__ import annotations

import re

from redline.shell.lazy_regex import lazy_regex
from redline.shell.lexer import decode_ansi_c

_BLOCK = lazy_regex(r"\s*(BEGIN|END)?\s*\{")
_TERM = lazy_regex(r'\s*(?:"((?:[^"\\]|\\.)*)"|\$(\d+|NF)|(NF|NR)\b|(\d+)|([A-Za-z_]\w*))')


def run(values: tuple[str, ...], stdin: str | None) -> str | None:
    separator: str | None = None
    names: dict[str, str] = {}
    k = 0
    while k < len(values) and values[k].startswith("-") and values[k] != "-":
        value = values[k]
        if value in ("-F", "-v") and k + 1 < len(values):
            k += 1
            value += values[k]
        if value.startswith("-F"):
            separator = decode_ansi_c(value[2:])
        elif value.startswith("-v") and "=" in value:
            name, _, text = value[2:].partition("=")
            names[name] = text
        elif value != "--":
            return None
        k += 1
    if k >= len(values) or values[k + 1 :]:
        return None
    blocks = _blocks(values[k])
    if blocks is None:
        return None
    out: list[str] = []
    for kind, body in blocks:
        if kind == "BEGIN" and not _run(body, [], 0, names, out):
            return None
    if any(kind == "" for kind, _ in blocks):
        if stdin is None:
            return None
        for number, line in enumerate(stdin.splitlines(), 1):
            fields = line.split(separator) if separator not in (None, " ") else line.split()
            for kind, body in blocks:
                if kind == "" and not _run(body, [line, *fields], number, names, out):
                    return None
    for kind, body in blocks:
        if kind == "END" and not _run(body, [], 0, names, out):
            return None
    return "".join(out)


def _blocks(program: str) -> list[tuple[str, str]] | None:
    found: list[tuple[str, str]] = []
    i = 0
    while program[i:].strip():
        match = _BLOCK.match(program, i)
        if match is None:
            return None
        depth, j = 1, match.end()
        in_string = False
        while j < len(program) and depth:
            c = program[j]
            if c == "\\" and in_string:
                j += 2
                continue
            if c == '"':
                in_string = not in_string
            elif not in_string:
                depth += {"{": 1, "}": -1}.get(c, 0)
            j += 1
        if depth:
            return None
        found.append((match.group(1) or "", program[match.end() : j - 1]))
        i = j
    return found


def _statements(body: str) -> list[str]:
    parts, current, in_string, i = [], [], False, 0
    while i < len(body):
        c = body[i]
        if c == "\\" and in_string:
            current.append(body[i : i + 2])
            i += 2
            continue
        if c == '"':
            in_string = not in_string
        if c in ";\n" and not in_string:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(c)
        i += 1
    parts.append("".join(current).strip())
    return [p for p in parts if p]


def _run(body: str, fields: list[str], number: int, names: dict[str, str], out: list[str]) -> bool:
    for statement in _statements(body):
        word = re.match(r"(printf|print)\b\s*", statement)
        if word is None:
            return False
        rest = statement[word.end() :].strip()
        if rest.startswith("(") and rest.endswith(")"):
            rest = rest[1:-1]
        items = _items(rest, fields, number, names)
        if items is None:
            return False
        if word.group(1) == "print":
            out.append(" ".join(items) if items else (fields[0] if fields else "") + "")
            out.append("\n")
        else:
            from redline.shell.static_text import format_text

            text = format_text(items[0], items[1:]) if items else None
            if text is None:
                return False
            out.append(text)
    return True


def _items(text: str, fields: list[str], number: int, names: dict[str, str]) -> list[str] | None:
    """The values of a comma-separated list of concatenated terms."""
    items: list[str] = []
    i = 0
    current: list[str] = []
    while i < len(text):
        if text[i] in " \t":
            i += 1
            continue
        if text[i] == ",":
            items.append("".join(current))
            current = []
            i += 1
            continue
        match = _TERM.match(text, i)
        if match is None:
            return None
        literal, field, count, digits, name = match.groups()
        if literal is not None:
            current.append(decode_ansi_c(literal.replace('\\"', '"')))
        elif field is not None:
            index = len(fields) - 1 if field == "NF" else int(field)
            current.append(fields[index] if index < len(fields) else "")
        elif count is not None:
            current.append(str(len(fields) - 1 if count == "NF" else number))
        elif digits is not None:
            current.append(digits)
        elif name in names:
            current.append(names[name])
        else:
            return None
        i = match.end()
    if current or items:
        items.append("".join(current))
    return items
