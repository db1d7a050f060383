"""Shell patterns (`*`, `?`, `[...]`) matched against a value, for the pattern
operators of parameter expansion (`${x%/*}`, `${x##*/}`, `${x//a/b}`)
(F-SHELL-4). Matching is one pass over the value per pattern token (no
backtracking), so its cost is bounded by their product."""

from __future__ import annotations

import re

Token = tuple[str, str]


def tokens(pattern: str) -> list[Token] | None:
    """`("*", "")`, `("?", "")`, `("[", class)` or `("=", char)`; `None` for
    extended globs (`+(a)`, `@(a|b)`), which are not computed."""
    out: list[Token] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c in "*?+@!" and pattern.startswith("(", i + 1):
            return None
        if c == "\\" and i + 1 < n:
            out.append(("=", pattern[i + 1]))
            i += 2
        elif c in "*?":
            if not (c == "*" and out[-1:] == [("*", "")]):
                out.append((c, ""))
            i += 1
        elif c == "[" and pattern.find("]", i + 2) != -1:
            end = pattern.find("]", i + 2)
            body = pattern[i + 1 : end]
            if body[:1] in ("!", "^"):
                body = "^" + body[1:]
            out.append(("[", body.replace("\\", "\\\\")))
            i = end + 1
        else:
            out.append(("=", c))
            i += 1
    return out


def _one(token: Token, char: str) -> bool:
    kind, arg = token
    if kind == "?":
        return True
    if kind == "=":
        return char == arg
    try:
        return re.fullmatch("[" + arg + "]", char) is not None
    except re.error:
        return False


def ends(pattern: list[Token], text: str, start: int = 0) -> set[int]:
    """Every position `p` where `text[start:p]` matches the whole pattern."""
    current = {start}
    for token in pattern:
        if token[0] == "*":
            current = set(range(min(current), len(text) + 1))
        else:
            current = {p + 1 for p in current if p < len(text) and _one(token, text[p])}
        if not current:
            return current
    return current


def _reversed(pattern: list[Token]) -> list[Token]:
    return list(reversed(pattern))


def remove_prefix(value: str, pattern: str, longest: bool) -> str | None:
    """`${x#pat}` (shortest) and `${x##pat}` (longest)."""
    found = tokens(pattern)
    if found is None:
        return None
    matched = ends(found, value)
    if not matched:
        return value
    return value[(max(matched) if longest else min(matched)) :]


def remove_suffix(value: str, pattern: str, longest: bool) -> str | None:
    """`${x%pat}` (shortest) and `${x%%pat}` (longest)."""
    found = tokens(pattern)
    if found is None:
        return None
    matched = ends(_reversed(found), value[::-1])
    if not matched:
        return value
    return value[: len(value) - (max(matched) if longest else min(matched))]


def replace(value: str, pattern: str, new: str, every: bool, anchor: str) -> str | None:
    """`${x/pat/new}`, `${x//pat/new}`, `${x/#pat/new}`, `${x/%pat/new}`: the
    longest match at the first place that matches."""
    found = tokens(pattern)
    if found is None:
        return None
    if not found:
        return value
    if anchor == "^":
        matched = ends(found, value)
        return new + value[max(matched) :] if matched else value
    if anchor == "$":
        for start in range(len(value) + 1):
            if len(value) in ends(found, value, start):
                return value[:start] + new
        return value
    out: list[str] = []
    i = 0
    while i <= len(value):
        matched = ends(found, value, i)
        end = max(matched) if matched else -1
        if end > i or (end == i and i < len(value)):
            out.append(new)
            if not every:
                return "".join(out) + value[end:]
            if end == i:
                out.append(value[i])
                end += 1
            i = end
            continue
        if i < len(value):
            out.append(value[i])
        i += 1
    return "".join(out)
