"""What text may name a protected place, found without parsing it: the
names every spelling of a protected path holds (its needles), and whole path
segments in code (`Path.home() / ".ssh"`). Plain substring tests: one large
pattern cost about 1 ms to compile in every hook process (ADR 0003)."""

from __future__ import annotations

import functools


@functools.lru_cache(maxsize=64)
def names_any(needles: tuple[str, ...], text: str) -> bool:
    """Whether `text` holds a needle; cached, for the working directory every
    invocation of a command shares."""
    return any(needle in text for needle in needles)


def has_segment(text: str, part: str) -> bool:
    """`part` appears as a whole path segment (`'.env'`, `/.env`), not inside
    a word (`process.env`)."""
    start = text.find(part)
    while start != -1:
        end = start + len(part)
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if not (before.isalnum() or before in "._-") and not (after.isalnum() or after in "._-"):
            return True
        start = text.find(part, start + 1)
    return False


def distinctive(path: str) -> tuple[str, ...]:
    """The names any spelling of a path under `path` contains (or its
    working directory does): its hidden directories (`.ssh`, `.hermes`),
    else its last component."""
    parts = [p for p in path.split("/") if p not in ("", "~")]
    hidden = tuple(p for p in parts if p.startswith("."))
    if hidden or not parts:
        return hidden
    # In a home, its first directory (`library` of `~/Library/Cookies`).
    return (parts[0],) if path.startswith("~/") else (parts[-1],)
