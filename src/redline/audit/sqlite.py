"""The default log backend: one SQLite file in WAL mode, safe for several
processes appending at once (`BEGIN IMMEDIATE` makes read-head-then-insert atomic).

Durability: `synchronous=NORMAL` by default (in WAL mode a crash of the process
loses nothing; a power cut may lose the last commits, which a saved head then
shows as a truncation). `?synchronous=full` syncs every append to disk.
"""

from __future__ import annotations

import os
import time
from _thread import allocate_lock  # `threading.Lock`, without loading `threading`
from collections.abc import Iterator, Sequence
from types import TracebackType

from redline.audit.entry import Entry, Head, Link, Record, format_epoch, format_time
from redline.audit.store import (
    LogBusy,
    LogUnavailable,
    Payload,
    Query,
    display_url,
    seal_batch,
    where,
)

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    import sqlite3
    from datetime import datetime
    from pathlib import Path
    from typing import Any, Self

    from redline.deadline import Deadline
else:
    try:
        # The C module `sqlite3` wraps (the same classes): the wrapper loads
        # `datetime` for date adapters the log never uses (~2 ms per hook).
        import _sqlite3 as sqlite3
    except ImportError:
        import sqlite3

BUSY_TIMEOUT_S = 30.0
BUSY_TIMEOUT_MS = int(BUSY_TIMEOUT_S * 1000)
SYNCHRONOUS = ("NORMAL", "FULL", "EXTRA", "OFF")

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS entries (
        seq INTEGER PRIMARY KEY,
        prev TEXT NOT NULL,
        hash TEXT NOT NULL,
        body TEXT NOT NULL,
        kind TEXT GENERATED ALWAYS AS (json_extract(body, '$.kind')) VIRTUAL,
        time TEXT GENERATED ALWAYS AS (json_extract(body, '$.time')) VIRTUAL,
        session TEXT GENERATED ALWAYS AS (json_extract(body, '$.session')) VIRTUAL,
        tool TEXT GENERATED ALWAYS AS (json_extract(body, '$.tool')) VIRTUAL,
        verdict TEXT GENERATED ALWAYS AS (json_extract(body, '$.verdict')) VIRTUAL
    )""",
    "CREATE INDEX IF NOT EXISTS entries_session ON entries (session)",
    "CREATE INDEX IF NOT EXISTS entries_tool ON entries (tool)",
    "CREATE INDEX IF NOT EXISTS entries_verdict ON entries (verdict)",
    "CREATE INDEX IF NOT EXISTS entries_time ON entries (time)",
    """CREATE TABLE IF NOT EXISTS payloads (
        seq INTEGER PRIMARY KEY,
        sha256 TEXT NOT NULL,
        body TEXT NOT NULL,
        expires_at TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS payloads_expiry ON payloads (expires_at)",
    """CREATE TRIGGER IF NOT EXISTS entries_no_update BEFORE UPDATE ON entries
        BEGIN SELECT RAISE(ABORT, 'the approval log is append-only'); END""",
    """CREATE TRIGGER IF NOT EXISTS entries_no_delete BEFORE DELETE ON entries
        BEGIN SELECT RAISE(ABORT, 'the approval log is append-only'); END""",
    """CREATE TRIGGER IF NOT EXISTS payloads_no_update BEFORE UPDATE ON payloads
        BEGIN SELECT RAISE(ABORT, 'kept payloads are read-only'); END""",
)
_RULE_SQL = "EXISTS (SELECT 1 FROM json_each(entries.body, '$.rules') AS r WHERE r.value = ?)"


def _now() -> str:
    return format_epoch(time.time())


# Openings that meet a busy new file try again this often, this far apart.
_OPEN_TRIES = 25
_OPEN_PAUSE_S = 0.02


def _prepare(conn: sqlite3.Connection, synchronous: str) -> None:
    """WAL, the durability asked for, and the schema on a new file."""
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA synchronous={synchronous}")
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'entries'").fetchone():
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _SCHEMA:
                conn.execute(statement)
            conn.execute("COMMIT")
        except sqlite3.Error:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise


class SqliteStore:
    """A log in one SQLite file. Use `SqliteStore.open(url)` or `open_store`.

    `path` is text: `pathlib` (and the `urllib.parse` and `ipaddress` it
    loads) stays off the hook's start."""

    def __init__(self, path: str, conn: sqlite3.Connection, synchronous: str) -> None:
        self.path = path
        self.synchronous = synchronous
        self._conn = conn
        self._lock = allocate_lock()
        # For connections that are never closed (`audit.shared`): empty the
        # write-ahead log once it is over this many bytes (see `_trim_wal`).
        self.wal_limit: int | None = None

    @classmethod
    def open(
        cls, url: str, *, create: bool = True, deadline: Deadline | None = None
    ) -> SqliteStore:
        """`deadline`: how long opening may wait for another process's lock."""
        path, synchronous = parse_url(url)
        if not create and not os.path.isfile(path):
            raise LogUnavailable(
                f"no approval log at `{path}`",
                "check the path, `--store` or `REDLINE_STORE`; the log is made by the first record",
            )
        try:
            if create:
                from redline.home import private_file

                private_file(path)
            conn = sqlite3.connect(
                path,
                timeout=BUSY_TIMEOUT_S if deadline is None else deadline.wait_s(BUSY_TIMEOUT_S),
                isolation_level=None,
                check_same_thread=False,
            )
        except (OSError, sqlite3.Error) as err:
            raise _unavailable(path, err) from err
        for attempt in range(_OPEN_TRIES):
            try:
                _prepare(conn, synchronous)
                break
            except sqlite3.Error as err:
                busy = isinstance(err, sqlite3.OperationalError) and _busy(err)
                # Switching a new file to WAL is refused at once, without the busy
                # timeout, while another process does the same: asked again, bounded.
                left = deadline is None or deadline.wait_s(1.0) > _OPEN_PAUSE_S
                if busy and left and attempt + 1 < _OPEN_TRIES:
                    time.sleep(_OPEN_PAUSE_S)
                    continue
                conn.close()
                if busy:
                    raise LogBusy(path) from None
                raise _unavailable(path, err) from err
        if deadline is not None:  # the deadline bounded the opening only
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        return cls(path, conn, synchronous)

    @property
    def url(self) -> str:
        return display_url(f"sqlite://{self.path}")

    def append(
        self, record: Record, payload: Payload | None = None, *, deadline: Deadline | None = None
    ) -> Entry:
        return self.append_many([(record, payload)], deadline=deadline)[0]

    def append_many(
        self,
        items: Sequence[tuple[Record, Payload | None]],
        *,
        wait: bool = True,
        deadline: Deadline | None = None,
    ) -> list[Entry]:
        """Chain several records in one transaction: all are committed, or none.
        `wait=False`: `LogBusy` rather than SQLite's busy wait, which sleeps
        in whole milliseconds (an event loop retries sooner, see `LogWriter`).
        `deadline`: wait for another process's write lock until then at most;
        `LogBusy` past it."""
        conn = self._conn
        with self._lock:
            try:
                if not wait:
                    self._begin_now()
                elif deadline is not None:
                    self._begin_by(deadline)
                else:
                    conn.execute("BEGIN IMMEDIATE")
                try:
                    row = conn.execute(
                        "SELECT seq, hash FROM entries ORDER BY seq DESC LIMIT 1"
                    ).fetchone()
                    entries, kept = seal_batch(items, row)
                    conn.executemany(
                        "INSERT INTO entries (seq, prev, hash, body) VALUES (?, ?, ?, ?)",
                        [entry.link for entry in entries],
                    )
                    if kept:
                        conn.executemany(
                            "INSERT INTO payloads (seq, sha256, body, expires_at)"
                            " VALUES (?, ?, ?, ?)",
                            kept,
                        )
                        conn.execute("DELETE FROM payloads WHERE expires_at <= ?", (_now(),))
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
            except sqlite3.Error as err:
                raise _unavailable(self.path, err) from err
            if self.wal_limit is not None:
                self._trim_wal(self.wal_limit)
        return entries

    def _begin_now(self) -> None:
        self._begin_within(0)

    def _begin_by(self, deadline: Deadline) -> None:
        self._begin_within(int(deadline.wait_s(BUSY_TIMEOUT_S) * 1000))

    def _begin_within(self, busy_ms: int) -> None:
        """`BEGIN IMMEDIATE`, waiting `busy_ms` at most for the write lock."""
        conn = self._conn
        conn.execute(f"PRAGMA busy_timeout = {busy_ms}")
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as err:
            if _busy(err):
                raise LogBusy(self.path, busy_ms / 1000) from None
            raise
        finally:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")

    def _trim_wal(self, limit: int) -> None:
        """Fold the write-ahead log into the database and truncate it once it
        is over `limit` bytes.

        A process that ends without closing its connection leaves the log in
        place, and the next process to open the database alone rebuilds its
        index by reading all of it, then appends after it: the log would grow
        without bound and every start would read it. Closing would fold and
        delete it every time (~1.5 ms); this does it every few dozen calls.
        Never waits: if another connection is reading or writing, a later
        append tries again (the answer is already committed either way)."""
        try:
            if os.stat(self.path + "-wal").st_size <= limit:
                return
        except OSError:
            return
        conn = self._conn
        try:
            conn.execute("PRAGMA busy_timeout = 0")
            try:
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            finally:
                conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        except sqlite3.Error:
            return  # busy, or the connection broke: the next append tries again

    def get(self, seq: int) -> Entry | None:
        rows = self._fetch("SELECT seq, prev, hash, body FROM entries WHERE seq = ?", (seq,))
        return Entry.from_link(rows[0]) if rows else None

    def query(self, query: Query) -> list[Entry]:
        clause, params = where(query, "?", _RULE_SQL)
        # `where` builds the clause from fixed text; every value is a bound parameter.
        rows = self._fetch("SELECT seq, prev, hash, body FROM entries" + clause, params)  # noqa: S608
        return [Entry.from_link(row) for row in rows]

    def links(self) -> Iterator[Link]:
        reader = self._reader()
        try:
            yield from reader.execute("SELECT seq, prev, hash, body FROM entries ORDER BY seq")
        except sqlite3.Error as err:
            raise _unavailable(self.path, err) from err
        finally:
            reader.close()

    def head(self) -> Head | None:
        rows = self._fetch("SELECT seq, hash FROM entries ORDER BY seq DESC LIMIT 1", ())
        return Head(rows[0][0], rows[0][1]) if rows else None

    def count(self) -> int:
        count: int = self._fetch("SELECT count(*) FROM entries", ())[0][0]
        return count

    def payload(self, seq: int, now: datetime | None = None) -> Payload | None:
        moment = _now() if now is None else format_time(now)
        rows = self._fetch(
            "SELECT body, expires_at, sha256 FROM payloads WHERE seq = ? AND expires_at > ?",
            (seq, moment),
        )
        return Payload(*rows[0]) if rows else None

    def payload_digests(self) -> Iterator[tuple[int, str]]:
        from redline.audit.chain import payload_digest

        for seq, body in self._fetch("SELECT seq, body FROM payloads ORDER BY seq", ()):
            yield seq, payload_digest(body)

    def purge_expired(self, now: datetime | None = None) -> int:
        moment = _now() if now is None else format_time(now)
        with self._lock:
            try:
                cursor = self._conn.execute("DELETE FROM payloads WHERE expires_at <= ?", (moment,))
            except sqlite3.Error as err:
                raise _unavailable(self.path, err) from err
        return cursor.rowcount

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _fetch(self, sql: str, params: Any) -> list[Any]:
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.Error as err:
                raise _unavailable(self.path, err) from err

    def _reader(self) -> sqlite3.Connection:
        """A second connection, so a long read never holds the writer's lock."""
        try:
            return sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, check_same_thread=False)
        except sqlite3.Error as err:
            raise _unavailable(self.path, err) from err


def _parse(url: str) -> tuple[Path, str]:
    """`parse_url` with the file as a `Path` (for the approval service's tables)."""
    from pathlib import Path

    path, synchronous = parse_url(url)
    return Path(path), synchronous


def parse_url(url: str) -> tuple[str, str]:
    """The file (as `pathlib` spells it, `~` expanded) and the `synchronous`
    level of a `sqlite://` URL; a bad URL raises `LogUnavailable`."""
    rest = url[len("sqlite://") :] if url.lower().startswith("sqlite://") else url
    text, _, query = rest.partition("?")
    if not text:
        raise LogUnavailable(f"no file in log store url `{url}`", "use `sqlite:///PATH`")
    options = _query_options(query)
    synchronous = options.get("synchronous", ["normal"])[-1].upper()
    if synchronous not in SYNCHRONOUS:
        raise LogUnavailable(
            f"unknown `synchronous={synchronous.lower()}` in log store url `{url}`",
            "use `normal` (the default) or `full`",
        )
    return _pure_path(text), synchronous


def _query_options(query: str) -> dict[str, list[str]]:
    """`urllib.parse.parse_qs(query)`, which is only imported for escapes."""
    if "%" in query or "+" in query:
        from urllib.parse import parse_qs

        return parse_qs(query)
    options: dict[str, list[str]] = {}
    for part in query.split("&"):
        name, eq, value = part.partition("=")
        if eq and value:  # like parse_qs: no `=` or an empty value is skipped
            options.setdefault(name, []).append(value)
    return options


def _pure_path(text: str) -> str:
    """`str(Path(text).expanduser())`: `~` expanded, empty and `.` parts and a
    trailing slash dropped (`..` kept), as `pathlib` spells a path."""
    if text[:1] == "~":
        head, sep, tail = text.partition("/")
        home = os.path.expanduser(head)
        if home[:1] == "~":
            raise RuntimeError("Could not determine home directory.")
        text = home + sep + tail
    root = "//" if text[:2] == "//" and text[2:3] != "/" else "/" if text[:1] == "/" else ""
    parts = [part for part in text.split("/") if part and part != "."]
    return root + "/".join(parts) if root or parts else "."


def _busy(err: sqlite3.OperationalError) -> bool:
    return (err.sqlite_errorcode & 0xFF) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def _unavailable(path: str, err: Exception) -> LogUnavailable:
    return LogUnavailable(
        f"approval log `{path}` cannot be used ({err})",
        "check that its directory exists and is writable and the disk is not full, "
        "or point `--store`/`REDLINE_STORE` at another log",
    )
