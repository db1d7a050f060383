"""The hash chain: canonical encoding, entry hashing and verification. Pure.

An entry's body is the canonical JSON text of its record (`Record.to_body`:
sorted keys, compact separators, ASCII only, every field present). Entry `seq`
following hash `prev` is hashed over the canonical JSON array

    ["redline-log/1",SEQ,"PREV",BODY]

(lowercase hex SHA-256 of those ASCII bytes). The first entry follows `GENESIS`.
The body is stored as hashed, so verifying needs no re-encoding.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator

from redline.audit.entry import Entry, Head, Link, Record
from redline.digest import sha256 as _sha256
from redline.fasttuple import NamedTuple

VERSION = "redline-log/1"
GENESIS = "0" * 64
WINDOW = 4096
"""How many earlier entries a broken link is compared against to tell an insert."""


class BreakKind(enum.StrEnum):
    EDITED = "edited"
    DELETED = "deleted"
    INSERTED = "inserted"
    REORDERED = "reordered"
    TRUNCATED = "truncated"


class Break(NamedTuple):
    """The first place the chain does not hold, and what most likely happened there."""

    seq: int
    kind: BreakKind
    detail: str

    def __str__(self) -> str:
        return f"entry {self.seq} {self.kind}: {self.detail}"


class Verification:
    """`count` entries were checked; `head` is the last one; `broken` the first break.

    A plain slotted class: a named tuple's `count` would clash with `tuple.count`."""

    __slots__ = ("broken", "count", "head")

    def __init__(self, count: int, head: Head | None, broken: Break | None = None) -> None:
        self.count = count
        self.head = head
        self.broken = broken

    @property
    def ok(self) -> bool:
        return self.broken is None

    def replace(self, *, broken: Break | None) -> Verification:
        return Verification(self.count, self.head, broken)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Verification):
            return NotImplemented
        return (self.count, self.head, self.broken) == (other.count, other.head, other.broken)

    def __hash__(self) -> int:
        return hash((self.count, self.head, self.broken))

    def __repr__(self) -> str:
        return f"Verification(count={self.count!r}, head={self.head!r}, broken={self.broken!r})"


def encode(seq: int, prev: str, body: str) -> bytes:
    return f'["{VERSION}",{seq},"{prev}",{body}]'.encode()


def entry_hash(seq: int, prev: str, body: str) -> str:
    return _sha256(encode(seq, prev, body)).hexdigest()


def seal(record: Record, seq: int, prev: str) -> Entry:
    """Number `record` as entry `seq` after the entry whose hash is `prev`."""
    body = record.to_body()
    return Entry(seq, prev, entry_hash(seq, prev, body), body, record)


def payload_digest(body: str) -> str:
    return _sha256(body.encode("utf-8", "surrogatepass")).hexdigest()


def verify(links: Iterable[Link], head: Head | None = None) -> Verification:
    """Check stored entries `(seq, prev, hash, body)` in seq order from the
    first; name the first break.

    With a saved `head`, the log must still contain it: a missing head means
    the tail was truncated, a different hash at its seq means a rewrite.
    """
    expected = 1
    prev = GENESIS
    ring = [""] * WINDOW
    head_hash = None if head is None else head.hash
    head_seq = None if head is None else head.seq
    head_found = False
    it = iter(links)
    for seq, link_prev, digest, body in it:
        if seq != expected:
            return _done(expected, prev, _gap(expected, seq))
        if link_prev != prev:
            link = (seq, link_prev, digest, body)
            return _done(expected, prev, _broken_link(link, ring, it))
        if _sha256(f'["{VERSION}",{seq},"{link_prev}",{body}]'.encode()).hexdigest() != digest:
            found = Break(seq, BreakKind.EDITED, "its contents do not match its hash")
            return _done(expected, prev, found)
        if digest == head_hash:
            head_found = True
        elif seq == head_seq:
            detail = (
                f"its hash {digest[:12]}… is not the saved head's {str(head_hash)[:12]}…: "
                "the log was rewritten at or before it"
            )
            return _done(expected, prev, Break(seq, BreakKind.EDITED, detail))
        ring[seq % WINDOW] = digest
        prev = digest
        expected += 1
    last = expected - 1
    if head is not None and not head_found:
        if head.seq is not None and head.seq <= last:
            detail = "it differs from the saved head: the log was rewritten at or before it"
            return _done(expected, prev, Break(head.seq, BreakKind.EDITED, detail))
        wanted = "" if head.seq is None else f" (the saved head is entry {head.seq})"
        detail = f"the log ends at entry {last} but the saved head is missing{wanted}"
        return _done(expected, prev, Break(last + 1, BreakKind.TRUNCATED, detail))
    return _done(expected, prev, None)


def _done(expected: int, prev: str, broken: Break | None) -> Verification:
    last = expected - 1
    head = None if last == 0 else Head(last, prev)
    return Verification(last, head, broken)


def _gap(expected: int, seq: int) -> Break:
    if seq > expected:
        missing = (
            f"entry {expected} is"
            if seq == expected + 1
            else f"entries {expected} to {seq - 1} are"
        )
        return Break(expected, BreakKind.DELETED, f"{missing} missing")
    return Break(seq, BreakKind.REORDERED, f"it comes after entry {expected - 1}")


def _broken_link(link: Link, ring: list[str], rest: Iterator[Link]) -> Break:
    """The entry does not follow the one before it: tell an insert, a move, a
    deletion and an edit of its predecessor apart by what its `prev` names."""
    seq, prev, digest, body = link
    # Slot `i` of the ring holds the hash of the latest seq below `seq` that is `i` mod WINDOW.
    earlier = {old: seq - 1 - ((seq - 1 - i) % WINDOW) for i, old in enumerate(ring) if old}
    if prev in earlier:
        first = earlier[prev] + 1
        which = f"entry {first} was" if first == seq - 1 else f"entries {first} to {seq - 1} were"
        return Break(first, BreakKind.INSERTED, f"{which} put into the chain after it was written")
    later = {other[2]: other[0] for other in rest}
    if prev in later:
        detail = f"it was chained after entry {later[prev]}, which now comes after it"
        return Break(seq, BreakKind.REORDERED, detail)
    if seq == 1 or entry_hash(seq, prev, body) != digest:
        detail = "it was chained after an entry that is no longer in the log"
        return Break(seq, BreakKind.DELETED, detail)
    detail = f"entry {seq} was chained to a different entry {seq - 1}: edited and re-hashed"
    return Break(seq - 1, BreakKind.EDITED, detail)
