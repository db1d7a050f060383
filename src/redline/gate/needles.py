"""What text may name a protected place, found without parsing it: the
names every spelling of a protected path holds (its needles), and whole path
segments in code (`Path.home() / ".ssh"`). Plain substring tests: one large
pattern cost about 1 ms to compile in every hook process (ADR 0003)."""

from __future__ import annotations

import functools
from collections.abc import Iterator

from redline.shell.lazy_regex import lazy_regex


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


# A whole segment that starts with a dot (`".ssh"`, `/.env `): the scan stops
# only at dots, and a dot inside a word (`os.path`) fails the look behind.
_DOT_SEGMENT = lazy_regex(r"\.(?<![\w.\-]\.)[\w.\-]*")
# What a segment is made of when `has_segment` bounds it: `\w` is
# `str.isalnum` or `_`, so a segment of these is a whole run of them.
_SEGMENT_CHARS = lazy_regex(r"[\w.\-]+")


@functools.lru_cache(maxsize=8)
def _checking_order(
    segments: tuple[tuple[str, tuple[str, ...]], ...],
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    # Hidden directories first (rare in text, and found by one scan), then the longest.
    return tuple(
        (sample, tuple(sorted(parts, key=lambda p: (not p.startswith("."), -len(p)))))
        for sample, parts in segments
        if parts
    )


def samples_named(lowered: str, segments: tuple[tuple[str, tuple[str, ...]], ...]) -> Iterator[str]:
    """Each sample whose every part `lowered` holds as a whole segment, in
    order: `has_segment` for each, but each part tested once, and the
    hidden ones (most of them) read from a single scan of the text."""
    dotted = frozenset(_DOT_SEGMENT.findall(lowered))
    known: dict[str, bool] = {}

    def holds(part: str) -> bool:
        found = known.get(part)
        if found is None:
            if part.startswith(".") and _SEGMENT_CHARS.fullmatch(part):
                found = part in dotted
            else:
                found = has_segment(lowered, part)
            known[part] = found
        return found

    for sample, parts in _checking_order(segments):
        if all(holds(p) for p in parts):
            yield sample
