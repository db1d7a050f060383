"""The PostgreSQL log backend, for several service replicas and many agents.

`postgresql://USER@HOST:PORT/DB?schema=NAME` (default schema `redline`). Each
append takes a table lock that only appenders contend for (`SHARE ROW
EXCLUSIVE`, readers are not blocked), reads the head and inserts in one
transaction, so concurrent appenders never fork the chain.

That transaction is one statement, a call of the schema's `append_entries_v1`
function (`pg_append`): the lock is held for the server's work and its
commit, never across a round trip. Replicas of older releases take the same
lock and read the head themselves: both kinds may share a schema.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, Self
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import psycopg
from psycopg import sql
from psycopg.pq import TransactionStatus

from redline.audit import pg_append
from redline.audit.chain import payload_digest
from redline.audit.entry import Entry, Head, Link, Record, format_time
from redline.audit.store import (
    LogBusy,
    LogUnavailable,
    Payload,
    Query,
    display_url,
    where,
)
from redline.deadline import Deadline

DEFAULT_SCHEMA = "redline"
CONNECT_TIMEOUT_S = 5
MIN_CONNECT_TIMEOUT_S = 2
"""libpq's least connect timeout: a smaller one counts as 2 s."""
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")


def _generated(name: str) -> str:
    return f"{name} text GENERATED ALWAYS AS ((body::jsonb) ->> '{name}') STORED"


_SCHEMA = (
    "CREATE SCHEMA IF NOT EXISTS {schema}",
    f"""CREATE TABLE IF NOT EXISTS {{schema}}.entries (
        seq bigint PRIMARY KEY,
        prev text NOT NULL,
        hash text NOT NULL,
        body text NOT NULL,
        {_generated("kind")}, {_generated("time")}, {_generated("session")},
        {_generated("tool")}, {_generated("verdict")}
    )""",
    "CREATE INDEX IF NOT EXISTS entries_session ON {schema}.entries (session)",
    "CREATE INDEX IF NOT EXISTS entries_tool ON {schema}.entries (tool)",
    "CREATE INDEX IF NOT EXISTS entries_verdict ON {schema}.entries (verdict)",
    "CREATE INDEX IF NOT EXISTS entries_time ON {schema}.entries (time)",
    """CREATE TABLE IF NOT EXISTS {schema}.payloads (
        seq bigint PRIMARY KEY,
        sha256 text NOT NULL,
        body text NOT NULL,
        expires_at text NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS payloads_expiry ON {schema}.payloads (expires_at)",
    """CREATE OR REPLACE FUNCTION {schema}.append_only() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'the approval log is append-only'; END $$""",
    """CREATE OR REPLACE TRIGGER entries_append_only
        BEFORE UPDATE OR DELETE ON {schema}.entries
        FOR EACH ROW EXECUTE FUNCTION {schema}.append_only()""",
    """CREATE OR REPLACE TRIGGER entries_no_truncate BEFORE TRUNCATE ON {schema}.entries
        FOR EACH STATEMENT EXECUTE FUNCTION {schema}.append_only()""",
    """CREATE OR REPLACE TRIGGER payloads_read_only BEFORE UPDATE ON {schema}.payloads
        FOR EACH ROW EXECUTE FUNCTION {schema}.append_only()""",
)
# With a deadline, every wait of the transaction (the lock, the statement) is
# bounded by what is left of it (milliseconds, set per transaction).
_BOUNDS = "SELECT set_config('lock_timeout', %s, true), set_config('statement_timeout', %s, true)"
_RULE_SQL = "(body::jsonb -> 'rules') ? %s"
_HEAD = "SELECT seq, hash FROM {entries} ORDER BY seq DESC LIMIT 1"
# Raised when a bounded wait ran out: the lock (55P03), a statement (57014).
_TIMED_OUT = (psycopg.errors.LockNotAvailable, psycopg.errors.QueryCanceled)
_FIRST_PAGE = "SELECT seq, prev, hash, body FROM {entries} ORDER BY seq LIMIT %s"
_PAGE = "SELECT seq, prev, hash, body FROM {entries} WHERE seq > %s ORDER BY seq LIMIT %s"
_PAGE_SIZE = 5_000
_PURGE = "DELETE FROM {payloads} WHERE expires_at <= %s"


def _now() -> str:
    return format_time(datetime.now(UTC))


class PostgresStore:
    """A log in two tables of one PostgreSQL schema. Use `PostgresStore.open(url)`."""

    def __init__(self, url: str, schema: str, conn: psycopg.Connection[Any]) -> None:
        self.schema = schema
        self._url = url
        self._conn = conn
        self._lock = threading.RLock()
        self._tables = {
            "entries": sql.Identifier(schema, "entries"),
            "payloads": sql.Identifier(schema, "payloads"),
            "append": sql.Identifier(schema, pg_append.NAME),
        }
        self._queries: dict[str, bytes] = {}

    @classmethod
    def open(cls, url: str, *, deadline: Deadline | None = None) -> PostgresStore:
        """`deadline` bounds the connection (libpq counts whole seconds, 2 at
        least) and the schema check."""
        conninfo, schema = _parse(url)
        timeout = CONNECT_TIMEOUT_S
        if deadline is not None:
            timeout = max(MIN_CONNECT_TIMEOUT_S, min(timeout, int(deadline.wait_s())))
        try:
            conn = psycopg.connect(conninfo, autocommit=True, connect_timeout=timeout)
        except psycopg.Error as err:
            raise _unavailable(url, err) from err
        try:
            if deadline is not None:
                with conn.transaction():
                    _bound(conn, deadline)
                    _ensure_schema(conn, schema)
            else:
                _ensure_schema(conn, schema)
        except psycopg.Error as err:
            conn.close()
            if isinstance(err, _TIMED_OUT):
                raise LogBusy(display_url(url)) from None
            raise _unavailable(url, err) from err
        return cls(url, schema, conn)

    @property
    def url(self) -> str:
        return display_url(self._url)

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
        `wait=False`: `LogBusy` at once while another session holds the lock;
        `deadline`: `LogBusy` once the lock or the statement waits past it."""
        batch = pg_append.Batch(items, wait=wait)
        with self._lock:
            try:
                conn = self._live()
                if wait and deadline is not None:
                    ms = str(max(1, int(deadline.wait_s() * 1000)))
                    # One round trip: the bounds, the batch and its commit.
                    with conn.pipeline():
                        conn.execute(b"BEGIN")
                        conn.execute(self._q(_BOUNDS), (ms, ms))
                        cur = conn.execute(self._q(pg_append.CALL), batch.params)
                        conn.execute(b"COMMIT")
                else:
                    cur = conn.execute(self._q(pg_append.CALL), batch.params)
                rows = cur.fetchall()
            except BaseException as err:
                self._rollback()
                if isinstance(err, _TIMED_OUT):
                    raise LogBusy(self.url) from None
                if isinstance(err, psycopg.Error):
                    raise _unavailable(self._url, err) from err
                raise
        return batch.entries(rows, self.url)

    def get(self, seq: int) -> Entry | None:
        rows = self._fetch("SELECT seq, prev, hash, body FROM {entries} WHERE seq = %s", (seq,))
        return Entry.from_link(rows[0]) if rows else None

    def query(self, query: Query) -> list[Entry]:
        clause, params = where(query, "%s", _RULE_SQL)
        # `where` builds the clause from fixed text; every value is a bound parameter.
        rows = self._fetch("SELECT seq, prev, hash, body FROM {entries}" + clause, params)  # noqa: S608
        return [Entry.from_link(row) for row in rows]

    def links(self) -> Iterator[Link]:
        # Keyset pages rather than one server-side cursor: no long transaction
        # holds back vacuum, and short binary queries are faster. The next page
        # is fetched while the caller hashes this one.
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(1, thread_name_prefix="redline-log-read") as reader:
            # The first page starts at the lowest seq there is, even a planted 0.
            rows = self._page(_FIRST_PAGE, (_PAGE_SIZE,))
            while rows:
                following = reader.submit(self._page, _PAGE, (rows[-1][0], _PAGE_SIZE))
                yield from rows
                rows = following.result()

    def _page(self, query: str, params: tuple[int, ...]) -> list[Link]:
        with self._lock:
            try:
                with self._conn.cursor(binary=True) as cur:
                    cur.execute(self._q(query), params)
                    rows: list[Link] = cur.fetchall()
                    return rows
            except psycopg.Error as err:
                raise _unavailable(self._url, err) from err

    def head(self) -> Head | None:
        rows = self._fetch(_HEAD, ())
        return Head(rows[0][0], rows[0][1]) if rows else None

    def count(self) -> int:
        count: int = self._fetch("SELECT count(*) FROM {entries}", ())[0][0]
        return count

    def payload(self, seq: int, now: datetime | None = None) -> Payload | None:
        moment = _now() if now is None else format_time(now)
        rows = self._fetch(
            "SELECT body, expires_at, sha256 FROM {payloads} WHERE seq = %s AND expires_at > %s",
            (seq, moment),
        )
        return Payload(*rows[0]) if rows else None

    def payload_digests(self) -> Iterator[tuple[int, str]]:
        rows = self._fetch("SELECT seq, body FROM {payloads} ORDER BY seq", ())
        for seq, body in rows:
            yield seq, payload_digest(body)

    def purge_expired(self, now: datetime | None = None) -> int:
        moment = _now() if now is None else format_time(now)
        with self._lock:
            try:
                with self._live().cursor() as cur:
                    cur.execute(self._q(_PURGE), (moment,))
                    return cur.rowcount
            except psycopg.Error as err:
                raise _unavailable(self._url, err) from err

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

    def _live(self) -> psycopg.Connection[Any]:
        """The connection, opened again if the last one broke (a server
        restarted, a connection killed): the call that saw it break failed
        closed; the next one goes on, with no restart of the service."""
        if self._conn.closed or self._conn.broken:
            conninfo, _ = _parse(self._url)
            self._conn = psycopg.connect(
                conninfo, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S
            )
        return self._conn

    def _rollback(self) -> None:
        try:
            if self._conn.info.transaction_status != TransactionStatus.IDLE:
                self._conn.execute(b"ROLLBACK")
        except psycopg.Error:
            pass  # the connection is gone; the server rolls back on its own

    def _q(self, text: str) -> bytes:
        query = self._queries.get(text)
        if query is None:
            query = sql.SQL(text).format(**self._tables).as_bytes(self._conn)
            self._queries[text] = query
        return query

    def _fetch(self, query: str, params: Any) -> list[Any]:
        with self._lock:
            try:
                with self._live().cursor() as cur:
                    cur.execute(self._q(query), params)
                    return cur.fetchall()
            except psycopg.Error as err:
                raise _unavailable(self._url, err) from err


def _bound(conn: psycopg.Connection[Any], deadline: Deadline) -> None:
    """Bound the waits of the transaction `conn` is in by `deadline`."""
    ms = str(max(1, int(deadline.wait_s() * 1000)))
    conn.execute(_BOUNDS.encode(), (ms, ms))


def _ddl(text: str) -> bytes:
    """Schema setup: our own text and a schema name checked against `_NAME`."""
    return text.encode()


def _ensure_schema(conn: psycopg.Connection[Any], schema: str) -> None:
    found = conn.execute(
        "SELECT to_regclass(%s), to_regprocedure(%s)",
        (f"{schema}.payloads", f"{schema}.{pg_append.SIGNATURE}"),
    ).fetchone()
    if found is not None and found[0] is not None and found[1] is not None:
        return
    with conn.transaction():
        # Concurrent first opens would race on CREATE ... IF NOT EXISTS.
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"redline-schema:{schema}",))
        # A schema of an older release gets only what it lacks (its appenders run meanwhile).
        statements = _SCHEMA if found is None or found[0] is None else ()
        for statement in (*statements, pg_append.DEFINITION):
            conn.execute(_ddl(statement.format(schema=schema)))


def _parse(url: str) -> tuple[str, str]:
    """Split our own `schema` option off the URL; the rest goes to libpq."""
    parts = urlsplit(url)
    options = parse_qsl(parts.query, keep_blank_values=True)
    schema = DEFAULT_SCHEMA
    rest: list[tuple[str, str]] = []
    for key, value in options:
        if key == "schema":
            schema = value
        else:
            rest.append((key, value))
    if not _NAME.fullmatch(schema):
        raise LogUnavailable(
            f"bad schema name `{schema}` in log store url `{display_url(url)}`",
            "use letters, digits and `_`, not starting with a digit",
        )
    return urlunsplit(parts._replace(query=urlencode(rest))), schema.lower()


def _unavailable(url: str, err: Exception) -> LogUnavailable:
    reason = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    return LogUnavailable(
        f"approval log `{display_url(url)}` cannot be used ({reason})",
        "check that the PostgreSQL server is up and the user may write the schema, "
        "or point `--store`/`REDLINE_STORE` at another log",
    )
