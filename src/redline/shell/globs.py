"""Bash glob patterns as bash matches them (F-SHELL-8): `*`, `?`, brackets
with negation and POSIX classes (`[[:alpha:]]`), and extended globs
(`@(etc|usr)`, `+(e)tc`, `!(x)`). A glob target is judged as the worst name
it can match; `fnmatch` knows neither classes nor extended globs."""

import re

_CLASSES = {
    "alpha": "a-zA-Z", "lower": "a-z", "upper": "A-Z", "digit": "0-9", "alnum": "a-zA-Z0-9",
    "xdigit": "0-9a-fA-F", "space": r"\s", "blank": r" \t", "word": r"\w",
    "punct": r"!-/:-@\[-`{-~", "graph": r"!-~", "print": r" -~", "cntrl": r"\x00-\x1f",
}  # fmt: skip
EXTGLOB_OPENERS = ("@(", "+(", "!(", "?(", "*(")
_cache: dict[str, re.Pattern[str]] = {}


def is_extglob(pattern: str) -> bool:
    return "(" in pattern and any(o in pattern for o in EXTGLOB_OPENERS)


def _bracket(pattern: str, k: int) -> tuple[str, int] | None:
    """The regex class for the bracket at `k`, and the index past it."""
    j = k + 1
    negate = j < len(pattern) and pattern[j] in "!^"
    j += negate
    body = ""
    first = True
    while j < len(pattern) and (pattern[j] != "]" or first):
        if pattern.startswith("[:", j):
            end = pattern.find(":]", j + 2)
            if end == -1 or pattern[j + 2 : end] not in _CLASSES:
                return None
            body += _CLASSES[pattern[j + 2 : end]]
            j = end + 2
        else:
            body += "\\" + pattern[j] if pattern[j] in "\\^[]" else pattern[j]
            j += 1
        first = False
    if j >= len(pattern):
        return None
    return f"[{'^' if negate else ''}{body}]", j + 1


def _close(pattern: str, k: int) -> int:
    depth = 0
    for j in range(k, len(pattern)):
        depth += {"(": 1, ")": -1}.get(pattern[j], 0)
        if depth == 0:
            return j
    return -1


def _split_alternatives(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for j, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "|" and depth == 0:
            parts.append(text[start:j])
            start = j + 1
    return [*parts, text[start:]]


def _translate(pattern: str) -> str:
    out, k = [], 0
    while k < len(pattern):
        ch = pattern[k]
        if ch in "@+!?*" and pattern.startswith("(", k + 1):
            end = _close(pattern, k + 1)
            if end != -1:
                alternatives = _split_alternatives(pattern[k + 2 : end])
                inner = "(?:" + "|".join(_translate(p) for p in alternatives) + ")"
                if ch == "!":
                    out.append(f"(?!{inner}(?:/|$))[^/]*")
                else:
                    out.append(inner + {"@": "", "+": "+", "?": "?", "*": "*"}[ch])
                k = end + 1
                continue
        if ch == "*":
            double = pattern.startswith("**", k)
            out.append(".*" if double else "[^/]*")
            k += 2 if double else 1
        elif ch == "?":
            out.append("[^/]")
            k += 1
        elif ch == "[" and (found := _bracket(pattern, k)) is not None:
            out.append(found[0])
            k = found[1]
        else:
            out.append(re.escape(ch))
            k += 1
    return "".join(out)


def matches(pattern: str, name: str) -> bool:
    """`name` is one of the names bash's glob `pattern` can match."""
    compiled = _cache.get(pattern)
    if compiled is None:
        compiled = _cache[pattern] = re.compile(_translate(pattern) + r"\Z", re.DOTALL)
    return compiled.match(name) is not None
