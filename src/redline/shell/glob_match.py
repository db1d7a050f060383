"""Shell patterns (`*`, `?`, `[...]`) as regular expressions, for the pattern
operators of parameter expansion (`${x%/*}`, `${x//a/b}`) (F-SHELL-4)."""

from __future__ import annotations

import re


def regex(pattern: str) -> str | None:
    """The pattern as Python's `re` spells it; `None` for extended globs."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
        elif c == "*":
            if pattern.startswith("(", i + 1):
                return None
            out.append(".*")
            i += 1
        elif c == "?":
            if pattern.startswith("(", i + 1):
                return None
            out.append(".")
            i += 1
        elif c == "[":
            end = pattern.find("]", i + 2)
            if end == -1:
                out.append(re.escape(c))
                i += 1
                continue
            body = pattern[i + 1 : end]
            if body[:1] in ("!", "^"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\").replace("[:", "[[:") + "]")
            i = end + 1
        elif c in "+@!" and pattern.startswith("(", i + 1):
            return None
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def compile_pattern(pattern: str, anchor: str = "", longest: bool = True) -> re.Pattern[str] | None:
    """`anchor` is `^` (prefix), `$` (suffix) or `` (anywhere)."""
    body = regex(pattern)
    if body is None or "[[:" in body:
        return None
    if not longest:
        body = body.replace(".*", ".*?")
    try:
        if anchor == "^":
            return re.compile("^(?:" + body + ")")
        if anchor == "$":
            return re.compile("(?:" + body + ")$")
        return re.compile(body)
    except re.error:
        return None


def remove_prefix(value: str, pattern: str, longest: bool) -> str | None:
    """`${x#pat}` (shortest) and `${x##pat}` (longest)."""
    body = regex(pattern)
    if body is None or "[[:" in body:
        return None
    try:
        compiled = re.compile("(?s:" + body + ")")
    except re.error:
        return None
    cuts = range(len(value), -1, -1) if longest else range(len(value) + 1)
    for cut in cuts:
        if compiled.fullmatch(value[:cut]):
            return value[cut:]
    return value


def remove_suffix(value: str, pattern: str, longest: bool) -> str | None:
    """`${x%pat}` (shortest) and `${x%%pat}` (longest)."""
    body = regex(pattern)
    if body is None or "[[:" in body:
        return None
    try:
        compiled = re.compile("(?s:" + body + ")")
    except re.error:
        return None
    cuts = range(len(value) + 1) if longest else range(len(value), -1, -1)
    for cut in cuts:
        if compiled.fullmatch(value[cut:]):
            return value[:cut]
    return value


def replace(value: str, pattern: str, new: str, every: bool, anchor: str) -> str | None:
    """`${x/pat/new}`, `${x//pat/new}`, `${x/#pat/new}`, `${x/%pat/new}`."""
    if not pattern:
        return value
    compiled = compile_pattern(pattern, anchor)
    if compiled is None:
        return None
    return compiled.sub(lambda _: new, value, count=0 if every else 1)
