"""The service's own tables, beside the approval log in the same database.

One small adapter over SQLite and PostgreSQL: statements are written once with
`?` placeholders and run on either. The log's own URL picks the backend, so
`pending`, pairing and proposals live in the same SQLite file (or the same
PostgreSQL schema) as the log they refer to.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from typing import Any

from redline.audit.store import LogUnavailable

Row = tuple[Any, ...]
BUSY_TIMEOUT_S = 30.0


class Database:
    """A connection with a lock; `execute` returns the rows changed."""

    def __init__(self, url: str) -> None:
        scheme = url.partition("://")[0].lower()
        self.postgres = scheme in ("postgresql", "postgres")
        self._lock = threading.Lock()
        self._pg: Any = None
        self._lite: sqlite3.Connection | None = None
        if self.postgres:
            import psycopg

            from redline.audit.postgres import _parse

            self._conninfo, self.schema = _parse(url)
            self.application_name = ""
            try:
                self._pg = psycopg.connect(self._conninfo, autocommit=True, connect_timeout=5)
                self.script([f"CREATE SCHEMA IF NOT EXISTS {self.schema}"])
                self._pg.execute(f"SET search_path TO {self.schema}".encode())
            except psycopg.Error as err:
                raise LogUnavailable(
                    f"the service database cannot be used ({err})", "check the PostgreSQL server"
                ) from err
        else:
            from redline.audit.sqlite import _parse as parse_sqlite

            path, _ = parse_sqlite(url)
            from redline.home import private_file

            private_file(str(path))
            self.schema = ""
            try:
                self._lite = sqlite3.connect(
                    path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
                )
                self._lite.execute("PRAGMA journal_mode=WAL")
                self._lite.execute("PRAGMA synchronous=NORMAL")
            except sqlite3.Error as err:
                raise LogUnavailable(
                    f"the service database `{path}` cannot be used ({err})",
                    "check that its directory is writable",
                ) from err

    def _sql(self, sql: str) -> str:
        if not self.postgres:
            return sql
        return sql.replace("?", "%s").replace(" REAL", " double precision")

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        with self._lock:
            if self._lite is not None:
                return self._lite.execute(sql, params).rowcount
            cursor = self._live().execute(self._sql(sql).encode(), params)
            return int(cursor.rowcount)

    def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        with self._lock:
            if self._lite is not None:
                return self._lite.execute(sql, params).fetchall()
            query = self._sql(sql).encode()
            try:
                rows: list[Row] = self._live().execute(query, params).fetchall()
            except Exception:
                # A connection the server dropped (a restart, `pg_terminate_backend`)
                # is only found broken by the next statement. A read is asked
                # again once on a new connection; a write fails closed.
                if not self._pg.broken:
                    raise
                rows = self._live().execute(query, params).fetchall()
            return rows

    def name(self, application_name: str) -> None:
        """Name this connection (and the next, if it breaks) in `pg_stat_activity`
        and to triggers (`approve.fleet` tells replicas apart by it)."""
        self.application_name = application_name
        self.execute("SELECT set_config('application_name', ?, false)", (application_name,))

    def _live(self) -> Any:
        """The PostgreSQL connection, opened again if the last one broke (a
        server restarted): the statement that saw it break failed closed."""
        if self._pg.closed or self._pg.broken:
            import psycopg

            self._pg = psycopg.connect(self._conninfo, autocommit=True, connect_timeout=5)
            self._pg.execute(f"SET search_path TO {self.schema}".encode())
            if self.application_name:
                self._pg.execute(
                    "SELECT set_config('application_name', %s, false)", (self.application_name,)
                )
        return self._pg

    def script(self, statements: Sequence[str]) -> None:
        """Schema statements, run once whoever else runs them at the same moment.

        `CREATE ... IF NOT EXISTS` is not safe against itself on PostgreSQL:
        replicas started together on an empty database collide on the catalog
        (`UniqueViolation` on `pg_type`). One advisory lock per schema, held for
        the transaction, puts them in a row (the log's own tables take the same).
        """
        if self._pg is None:
            for statement in statements:
                self.execute(statement)
            return
        with self._lock, self._pg.transaction():
            self._pg.execute(
                "SELECT pg_advisory_xact_lock(hashtext(%s))", (f"redline-schema:{self.schema}",)
            )
            for statement in statements:
                self._pg.execute(self._sql(statement).encode())

    def close(self) -> None:
        with self._lock:
            if self._lite is not None:
                self._lite.close()
            if self._pg is not None:
                self._pg.close()
