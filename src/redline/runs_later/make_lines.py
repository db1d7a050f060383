"""What a makefile line is, read as GNU make reads it: its comment, and
whether it is an assignment or a rule, split at the first `=` or `:`
outside `$(...)`."""

from __future__ import annotations

from redline.runs_later.make_expand import matching
from redline.shell.lazy_regex import lazy_regex

_OPERATORS = ("::=", ":::=", ":=", "+=", "?=", "!=", "=")
_FIRST_MARK = lazy_regex(r"[=:]")


def without_comment(line: str) -> str:
    """A makefile line less its comment (`#` outside `$(...)`, not `\\#`)."""
    if "#" not in line:
        return line
    level = 0
    for k, char in enumerate(line):
        if char in "({" and k and line[k - 1] == "$":
            level += 1
        elif char in ")}" and level:
            level -= 1
        elif char == "#" and not level and (not k or line[k - 1] != "\\"):
            return line[:k]
    return line


def top_level_partition(text: str, separator: str) -> tuple[str, str, str]:
    """`text.partition(separator)`, at a separator outside `$(...)`."""
    if "$" not in text:
        return text.partition(separator)
    k = 0
    while k < len(text):
        char = text[k]
        if char == "$" and k + 1 < len(text) and text[k + 1] in "({":
            close = matching(text, k + 1)
            k = close + 1 if close > 0 else len(text)
            continue
        if char == separator:
            return text[:k], separator, text[k + 1 :]
        k += 1
    return text, "", ""


def split_line(code: str) -> tuple[str, str, str, str]:
    """What a line is: `("assign", NAME, OP, VALUE)`, `("rule", TARGETS,
    "", REST)`, or `("", "", "", "")`, read at the first `=` or `:` outside
    `$(...)` as make does."""
    k = 0
    n = len(code)
    if "$" not in code:  # no reference to step over: the first `=` or `:`
        first = _FIRST_MARK.search(code)
        if first is None:
            return "", "", "", ""
        k = first.start()
    while k < n:
        char = code[k]
        if char == "$" and k + 1 < n and code[k + 1] in "({":
            close = matching(code, k + 1)
            k = close + 1 if close > 0 else n
            continue
        if char == "=":
            op = code[k - 1] + "=" if k and code[k - 1] in "+?!" else "="
            return "assign", code[: k + 1 - len(op)], op, code[k + 1 :]
        if char == ":":
            for op in _OPERATORS:
                if code.startswith(op, k):
                    return "assign", code[:k], op, code[k + len(op) :]
            rest = code[k + 2 :] if code.startswith("::", k) else code[k + 1 :]
            return "rule", code[:k], "", rest
        k += 1
    return "", "", "", ""
