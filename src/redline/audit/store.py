"""Where the log lives: one small interface, chosen by a URL.

`sqlite:///PATH` (the default, `log.sqlite3` under `$REDLINE_HOME`) or
`postgresql://USER@HOST/DB?schema=NAME`. Backends are imported only when
opened, so that the hook path never loads a database driver it does not use.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from redline.audit.chain import (
    GENESIS,
    Break,
    BreakKind,
    Verification,
    payload_digest,
    seal,
    verify,
)
from redline.audit.entry import Entry, Head, Record, format_epoch, format_time
from redline.fasttuple import NamedTuple

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from datetime import datetime, timedelta
    from typing import Any

    from redline.audit.protocol import Store
    from redline.deadline import Deadline

__all__ = [
    "DEFAULT_PAYLOAD_TTL",
    "Entry",
    "LogBusy",
    "LogUnavailable",
    "Payload",
    "Query",
    "Store",
    "open_store",
    "resolve_url",
    "verify_store",
]

PAYLOAD_TTL_S = 7 * 24 * 3600
"""How long a blocked call's payload is kept, in seconds (`DEFAULT_PAYLOAD_TTL`)."""
if TYPE_CHECKING:
    DEFAULT_PAYLOAD_TTL: timedelta
SQLITE_FILE = "log.sqlite3"
STORE_ENV = "REDLINE_STORE"


class LogUnavailable(Exception):
    """The log cannot be opened, read or written. Callers that gate a call turn
    this into a deny with code `log-unavailable` (see `recorder`)."""

    def __init__(self, problem: str, repair: str) -> None:
        super().__init__(f"{problem}; {repair}")
        self.problem = problem
        self.repair = repair


class LogBusy(LogUnavailable):
    """Another process holds the log's write lock, and the caller asked not to
    wait for it (`append_many(..., wait=False)`) or not past its deadline:
    nothing was written; try again."""

    def __init__(self, where: str, waited_s: float | None = None) -> None:
        waited = "" if waited_s is None else f" (waited {waited_s:.1f} s for it)"
        super().__init__(
            f"another process is writing to approval log `{where}`{waited}",
            "try again in a moment; if the log stays busy, tell the owner",
        )


def __getattr__(name: str) -> Any:
    # Left off a hook's start, built when asked for: the protocol (it loads
    # `typing`) and the timedelta (`datetime`).
    if name == "Store":
        from redline.audit.protocol import Store

        return Store
    if name == "DEFAULT_PAYLOAD_TTL":
        from datetime import timedelta

        return timedelta(seconds=PAYLOAD_TTL_S)
    raise AttributeError(f"module `{__name__}` has no attribute `{name}`")


class Payload(NamedTuple):
    """A blocked call's payload, kept whole (redacted) until `expires_at`."""

    body: str
    expires_at: str
    sha256: str

    @classmethod
    def of(cls, body: str, expires_at: datetime) -> Payload:
        return cls(body, format_time(expires_at), payload_digest(body))

    @classmethod
    def until_epoch(cls, body: str, expires_at: float) -> Payload:
        """`of` with the expiry as a POSIX time (no `datetime` on the hook's path)."""
        return cls(body, format_epoch(expires_at), payload_digest(body))


class Query(NamedTuple):
    """Filters (all optional, combined with AND). `since` is inclusive, `until`
    exclusive; `limit` keeps the first matches, or the last with `newest_first`.
    Results come newest first with `newest_first`, otherwise in seq order."""

    session: str | None = None
    tool: str | None = None
    verdict: str | None = None
    rule: str | None = None
    kind: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    limit: int | None = None
    newest_first: bool = False


def default_url(environ: Mapping[str, str] | None = None) -> str:
    from redline.home import home_dir

    # `os.path.realpath` is what `Path.resolve()` runs, without loading `pathlib`.
    return f"sqlite://{os.path.realpath(os.path.join(home_dir(environ), SQLITE_FILE))}"


def resolve_url(explicit: str | None, environ: Mapping[str, str]) -> str:
    """`explicit` (e.g. `--store`), else `$REDLINE_STORE`, else SQLite in `$REDLINE_HOME`."""
    if explicit:
        return explicit
    configured = environ.get(STORE_ENV, "").strip()
    return configured or default_url(environ)


def open_store(url: str, *, create: bool = True, deadline: Deadline | None = None) -> Store:
    """Open the log at `url`. With `create=False` a missing SQLite file is an
    error instead of a new, empty log (for readers such as `redline log show`).
    `deadline` bounds the connection and any lock the opening waits for."""
    scheme, sep, _ = url.partition("://")
    scheme = scheme.lower()
    if scheme == "sqlite" or not sep:
        from redline.audit.sqlite import SqliteStore

        return SqliteStore.open(url, create=create, deadline=deadline)
    if scheme in {"postgresql", "postgres"}:
        from redline.audit.postgres import PostgresStore

        return PostgresStore.open(url, deadline=deadline)
    raise LogUnavailable(
        f"unknown log store url `{url}`",
        "use `sqlite:///PATH` or `postgresql://USER@HOST/DB`",
    )


KeptRow = tuple[int, str, str, str]


def seal_batch(
    items: Sequence[tuple[Record, Payload | None]], head: tuple[int, str] | None
) -> tuple[list[Entry], list[KeptRow]]:
    """Chain `items` after `head` (`(seq, hash)` of the last entry, `None` for
    an empty log): the entries, and `(seq, sha256, body, expires_at)` of each
    kept payload, whose digest goes into its record."""
    seq, prev = (1, GENESIS) if head is None else (head[0] + 1, head[1])
    entries: list[Entry] = []
    kept: list[KeptRow] = []
    for record, payload in items:
        if payload is not None:
            record = record._replace(payload_sha256=payload.sha256)
            kept.append((seq, payload.sha256, payload.body, payload.expires_at))
        entry = seal(record, seq, prev)
        entries.append(entry)
        seq, prev = seq + 1, entry.hash
    return entries, kept


def where(query: Query, mark: str, rule_sql: str) -> tuple[str, list[Any]]:
    """The WHERE and ORDER/LIMIT clauses for `query`, with `mark` placeholders."""
    clauses: list[str] = []
    params: list[Any] = []
    for column in ("session", "tool", "verdict", "kind"):
        value = getattr(query, column)
        if value is not None:
            clauses.append(f"{column} = {mark}")
            params.append(value)
    if query.rule is not None:
        clauses.append(rule_sql)
        params.append(query.rule)
    if query.since is not None:
        clauses.append(f"time >= {mark}")
        params.append(format_time(query.since))
    if query.until is not None:
        clauses.append(f"time < {mark}")
        params.append(format_time(query.until))
    sql = (" WHERE " + " AND ".join(clauses)) if clauses else ""
    sql += " ORDER BY seq DESC" if query.newest_first else " ORDER BY seq"
    if query.limit is not None:
        sql += f" LIMIT {mark}"
        params.append(max(query.limit, 0))
    return sql, params


def display_url(url: str) -> str:
    from redline.audit.redact import redact_text

    return redact_text(url)


def verify_store(store: Store, head: Head | None = None) -> Verification:
    """Verify the whole chain, then that every kept payload still matches the
    digest its entry committed to."""
    result = verify(store.links(), head)
    if not result.ok:
        return result
    for seq, digest in store.payload_digests():
        entry = store.get(seq)
        if entry is None or entry.record.payload_sha256 != digest:
            detail = "its kept payload does not match the digest the entry committed to"
            return result.replace(broken=Break(seq, BreakKind.EDITED, detail))
    return result
