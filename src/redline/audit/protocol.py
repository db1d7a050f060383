"""The interface every log backend implements (`SqliteStore`, `PostgresStore`).

Kept apart from `store` so that a hook, which only appends, never loads
`typing` for it (ADR 0004); `redline.audit.store.Store` still names it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Protocol, Self

if TYPE_CHECKING:
    from datetime import datetime
    from types import TracebackType

    from redline.audit.entry import Entry, Head, Link, Record
    from redline.audit.store import Payload, Query
    from redline.deadline import Deadline


class Store(Protocol):
    """An append-only, hash-chained log. `append` is atomic across processes:
    concurrent appenders never fork the chain."""

    @property
    def url(self) -> str:
        """Where the log lives, with any password redacted."""
        ...

    def append(
        self, record: Record, payload: Payload | None = None, *, deadline: Deadline | None = None
    ) -> Entry:
        """Chain `record` after the current head; a payload's digest is put in the record."""
        ...

    def append_many(
        self,
        items: Sequence[tuple[Record, Payload | None]],
        *,
        wait: bool = True,
        deadline: Deadline | None = None,
    ) -> list[Entry]:
        """Chain several records in one transaction (a writer's group commit):
        every one is committed, or `LogUnavailable` and none is. With `wait`
        false, `LogBusy` at once if another process holds the write lock; with
        a `deadline`, `LogBusy` once the lock is still held near it."""
        ...

    def get(self, seq: int) -> Entry | None: ...

    def query(self, query: Query) -> list[Entry]: ...

    def links(self) -> Iterator[Link]:
        """Every entry as stored, in seq order (consume it fully or close it)."""
        ...

    def head(self) -> Head | None: ...

    def count(self) -> int: ...

    def payload(self, seq: int, now: datetime | None = None) -> Payload | None:
        """The kept payload of entry `seq`, unless it expired."""
        ...

    def payload_digests(self) -> Iterator[tuple[int, str]]:
        """`(seq, sha256 of the stored body)` for every kept payload."""
        ...

    def purge_expired(self, now: datetime | None = None) -> int:
        """Drop payloads past their expiry; the entries (and the chain) stay."""
        ...

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...
