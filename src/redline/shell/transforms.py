"""Line transforms of static text (F-SHELL-4): `rev`, `tr`, `sed` (its `s`
and `y` commands), `cut`, `head`, `tail`, `tac`. Pure functions of the
arguments and stdin; `None` when the output cannot be known. Imported only
when such a program is met."""

from __future__ import annotations

import re
import string
from collections.abc import Callable

from redline.shell import sed_script
from redline.shell.lexer import decode_ansi_c


def run(name: str, values: tuple[str, ...], stdin: str | None) -> str | None:
    if stdin is None:
        return None
    if name == "rev":
        return None if values else _lines(stdin, lambda line: line[::-1])
    if name == "tac":
        if values:
            return None
        lines = stdin.split("\n")
        ended = lines[-1] == ""
        body = lines[:-1] if ended else lines
        return "\n".join(reversed(body)) + ("\n" if ended else "")
    if name == "tr":
        return _tr(values, stdin)
    if name == "sed":
        return sed_script.run(values, stdin)
    if name == "cut":
        return _cut(values, stdin)
    return _head_tail(name, values, stdin)


def _lines(text: str, change: Callable[[str], str]) -> str:
    ended = text.endswith("\n")
    lines = (text[:-1] if ended else text).split("\n")
    return "\n".join(change(line) for line in lines) + ("\n" if ended else "")


_CLASSES = {
    "upper": string.ascii_uppercase, "lower": string.ascii_lowercase,
    "digit": string.digits, "alpha": string.ascii_letters,
    "alnum": string.ascii_letters + string.digits, "space": " \t\n\r\v\f",
    "blank": " \t", "punct": string.punctuation, "xdigit": string.hexdigits,
}  # fmt: skip


def tr_set(spec: str) -> str | None:
    """The characters of a `tr` set: ranges, classes and escapes."""
    out: list[str] = []
    i, n = 0, len(spec)
    while i < n:
        if spec.startswith("[:", i):
            end = spec.find(":]", i + 2)
            name = spec[i + 2 : end] if end != -1 else ""
            if name not in _CLASSES:
                return None
            out.extend(_CLASSES[name])
            i = end + 2
            continue
        if spec[i] == "\\" and i + 1 < n:
            end = i + 2
            while end < n and end - i < 4 and spec[i + 1] in "01234567" and spec[end] in "01234567":
                end += 1
            char, i = decode_ansi_c(spec[i:end]), end
        elif spec.startswith("[", i) and "*" in spec[i : i + 4]:
            return None  # `[c*n]` repeats: not computed
        else:
            char, i = spec[i], i + 1
        if i + 1 < n and spec[i] == "-" and len(char) == 1:
            last = spec[i + 1]
            if ord(last) < ord(char):
                return None
            out.extend(chr(k) for k in range(ord(char), ord(last) + 1))
            i += 2
        else:
            out.append(char)
    return "".join(out)


def _tr(values: tuple[str, ...], stdin: str) -> str | None:
    flags = ""
    k = 0
    while k < len(values) and values[k].startswith("-") and len(values[k]) > 1:
        if values[k] == "--":
            k += 1
            break
        flags += values[k].lstrip("-")
        k += 1
    sets = [tr_set(v) for v in values[k:]]
    if not sets or len(sets) > 2 or any(s is None for s in sets) or flags.strip("ds"):
        return None
    first = sets[0] or ""
    if "d" in flags:
        if len(sets) != 1 or "s" in flags:
            return None
        return "".join(c for c in stdin if c not in first)
    if len(sets) == 1:
        if "s" not in flags:
            return None
        return re.sub("([" + re.escape(first) + "])\\1+", r"\1", stdin) if first else stdin
    second = sets[1] or ""
    if not second:
        return None
    table = {ord(a): second[min(k, len(second) - 1)] for k, a in enumerate(first)}
    text = stdin.translate(table)
    if "s" in flags and second:
        text = re.sub("([" + re.escape(second) + "])\\1+", r"\1", text)
    return text


def _ranges(spec: str) -> list[tuple[int, int]] | None:
    found = []
    for part in spec.split(","):
        low, dash, high = part.partition("-")
        try:
            start = int(low) if low else 1
            end = (int(high) if high else 1 << 30) if dash else start
        except ValueError:
            return None
        if start < 1:
            return None
        found.append((start, end))
    return found


def _cut(values: tuple[str, ...], stdin: str) -> str | None:
    delimiter, fields, chars, only_delimited = "\t", None, None, False
    k = 0
    while k < len(values):
        value = values[k]
        key, rest = value[:2], value[2:]
        if key in ("-d", "-f", "-c", "-b") and not rest:
            if k + 1 >= len(values):
                return None
            k += 1
            rest = values[k]
        elif value.startswith("--delimiter="):
            key, rest = "-d", value.split("=", 1)[1]
        elif value.startswith("--fields="):
            key, rest = "-f", value.split("=", 1)[1]
        elif value == "-s":
            only_delimited = True
            k += 1
            continue
        elif key not in ("-d", "-f", "-c", "-b"):
            return None
        if key == "-d":
            delimiter = rest[:1]
        elif key == "-f":
            fields = _ranges(rest)
        else:
            chars = _ranges(rest)
        k += 1
    chosen = fields if fields is not None else chars
    if chosen is None or not delimiter:
        return None

    def pick(line: str) -> str:
        if fields is None:
            return "".join(line[a - 1 : b] for a, b in chosen)
        parts = line.split(delimiter)
        if len(parts) == 1:
            return "" if only_delimited else line
        return delimiter.join(
            p for i, p in enumerate(parts, 1) if any(a <= i <= b for a, b in chosen)
        )

    return _lines(stdin, pick)


def _head_tail(name: str, values: tuple[str, ...], stdin: str) -> str | None:
    count = 10
    k = 0
    while k < len(values):
        value = values[k]
        text = value
        if value in ("-n", "--lines") and k + 1 < len(values):
            k += 1
            text = values[k]
        elif value.startswith("--lines="):
            text = value.split("=", 1)[1]
        elif value.startswith("-n"):
            text = value[2:]
        elif value.startswith("-") and value[1:].isdigit():
            text = value[1:]
        else:
            return None
        if not text.isdigit():
            return None
        count = int(text)
        k += 1
    lines = stdin.splitlines(keepends=True)
    return "".join(
        lines[:count] if name == "head" else lines[len(lines) - count :] if count else []
    )
