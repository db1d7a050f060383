"""Factories for log stores on both backends, and raw access for tampering.

PostgreSQL tests use a fresh schema per test, dropped afterwards. They skip
when the server is unreachable, except in CI (env `CI` set), where they fail.
"""

from __future__ import annotations

import os
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest

from redline.audit.entry import Kind, Record, format_time
from redline.audit.store import Store, open_store

PG_URL = os.environ.get("REDLINE_TEST_POSTGRES", "postgresql://root@127.0.0.1:5432/test")
T0 = datetime(2025, 6, 1, 12, 0, 0, tzinfo=UTC)


def pg_reachable(url: str = PG_URL) -> bool:
    try:
        psycopg.connect(url, connect_timeout=3).close()
    except psycopg.Error:
        return False
    return True


@pytest.fixture(scope="session")
def pg_base() -> str:
    if not pg_reachable():
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL at `{PG_URL}` is unreachable and CI is set")
        pytest.skip(f"PostgreSQL at `{PG_URL}` is unreachable")
    return PG_URL


@pytest.fixture
def pg_url(pg_base: str) -> Iterator[str]:
    schema = f"redline_test_{uuid.uuid4().hex[:16]}"
    yield f"{pg_base}?schema={schema}"
    with psycopg.connect(pg_base, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE".encode())


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite://{tmp_path}/log.sqlite3"
    url: str = request.getfixturevalue("pg_url")
    return url


@pytest.fixture
def make_store(store_url: str) -> Iterator[Callable[[], Store]]:
    """Open (another connection to) the test's log; all are closed afterwards."""
    opened: list[Store] = []

    def make() -> Store:
        store = open_store(store_url)
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()


def make_record(n: int = 0, **fields: Any) -> Record:
    base: dict[str, Any] = {
        "kind": Kind.DECISION,
        "time": format_time(T0.replace(minute=n % 60)),
        "session": "s1",
        "context": "interactive",
        "agent": "claude-code",
        "tool": "Bash",
        "args": f'{{"command":"ls /tmp/{n}"}}',
        "verdict": "allow",
        "reason": "no rule matched",
    }
    base.update(fields)
    return Record(**base)


class Tamper:
    """Raw SQL on the log's own database, with the append-only triggers off.
    Write statements with `?` placeholders and the bare table names."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.postgres = url.startswith("postgresql")
        if self.postgres:
            base, _, query = url.partition("?schema=")
            self.schema = query
            self._pg = psycopg.connect(base, autocommit=True)
            for table in ("entries", "payloads"):
                self._pg.execute(f"ALTER TABLE {query}.{table} DISABLE TRIGGER USER".encode())
        else:
            self._lite = sqlite3.connect(url.removeprefix("sqlite://"), isolation_level=None)
            self._lite.execute("DROP TRIGGER entries_no_update")
            self._lite.execute("DROP TRIGGER entries_no_delete")
            self._lite.execute("DROP TRIGGER payloads_no_update")

    def run(self, sql: str, params: tuple[Any, ...] = ()) -> None:
        if self.postgres:
            for table in ("entries", "payloads"):
                sql = sql.replace(f" {table}", f" {self.schema}.{table}")
            self._pg.execute(sql.replace("?", "%s").encode(), params)
        else:
            self._lite.execute(sql, params)

    def row(self, seq: int) -> tuple[int, str, str, str]:
        sql = "SELECT seq, prev, hash, body FROM entries WHERE seq = ?"
        if self.postgres:
            found = self._pg.execute(
                sql.replace(" entries", f" {self.schema}.entries").replace("?", "%s").encode(),
                (seq,),
            ).fetchone()
        else:
            found = self._lite.execute(sql, (seq,)).fetchone()
        assert found is not None
        return (found[0], found[1], found[2], found[3])

    def renumber(self, first: int, delta: int) -> None:
        """Shift entries `first..` by `delta`, in two steps to dodge key clashes."""
        self.run("UPDATE entries SET seq = -(seq + ?) WHERE seq >= ?", (delta, first))
        self.run("UPDATE entries SET seq = -seq WHERE seq < 0")

    def swap(self, a: int, b: int) -> None:
        self.run("UPDATE entries SET seq = -1 WHERE seq = ?", (a,))
        self.run("UPDATE entries SET seq = ? WHERE seq = ?", (a, b))
        self.run("UPDATE entries SET seq = ? WHERE seq = -1", (b,))

    def close(self) -> None:
        if self.postgres:
            self._pg.close()
        else:
            self._lite.close()


@pytest.fixture
def make_tamper(store_url: str) -> Iterator[Callable[[], Tamper]]:
    opened: list[Tamper] = []

    def make() -> Tamper:
        tamper = Tamper(store_url)
        opened.append(tamper)
        return tamper

    yield make
    for tamper in opened:
        tamper.close()


@pytest.fixture(name="make_record")
def make_record_fixture() -> Callable[..., Record]:
    return make_record
