"""The PostgreSQL log's one-statement append (`pg_append`) and its awaited
form (`pg_async`): the server chains as `chain` does, a schema of an older
release gets the function, a function that chains otherwise is refused, and
an appender on a loop waits for the lock, then reconnects after a drop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime

import psycopg
import pytest

from redline.audit import pg_append
from redline.audit.entry import Record
from redline.audit.postgres import PostgresStore
from redline.audit.store import LogBusy, LogUnavailable, Payload, open_store, verify_store

pytestmark = pytest.mark.postgres
MakeRecord = Callable[..., Record]


def _open(url: str) -> PostgresStore:
    store = open_store(url)
    assert isinstance(store, PostgresStore)
    return store


def _sql(url: str, text: str) -> None:
    base, _, schema = url.partition("?schema=")
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(text.format(schema=schema).encode())


def test_an_older_schema_gets_the_function_and_keeps_its_chain(
    pg_url: str, make_record: MakeRecord
) -> None:
    store = _open(pg_url)
    store.append(make_record(1))
    store.close()
    # A schema as a release before the function left it.
    _sql(pg_url, f"DROP FUNCTION {{schema}}.{pg_append.SIGNATURE}")
    store = _open(pg_url)
    try:
        store.append(make_record(2))
        result = verify_store(store)
        assert result.ok and result.count == 2
    finally:
        store.close()


def test_a_function_that_chains_otherwise_is_refused(pg_url: str, make_record: MakeRecord) -> None:
    store = _open(pg_url)
    try:
        store.append(make_record(1))
        wrong = pg_append.DEFINITION.replace("redline-log/1", "redline-log/0")
        _sql(pg_url, wrong)
        with pytest.raises(LogUnavailable, match="unlike the chain's own hashing"):
            store.append(make_record(2))
    finally:
        store.close()


def test_the_awaited_appender_chains_payloads_and_waits_for_the_lock(
    pg_url: str, make_record: MakeRecord
) -> None:
    store = _open(pg_url)
    appender = store.appender(lock_wait_s=0.2)
    base, _, schema = pg_url.partition("?schema=")
    kept = Payload.of("the whole command", datetime(2100, 1, 1, tzinfo=UTC))

    async def run() -> None:
        first = await appender.append_many([(make_record(1), None), (make_record(2), kept)])
        assert [e.seq for e in first] == [1, 2]
        assert first[1].record.payload_sha256 == kept.sha256
        with psycopg.connect(base) as holder:  # a transaction until the block ends
            holder.execute(f"LOCK TABLE {schema}.entries IN SHARE ROW EXCLUSIVE MODE".encode())
            with pytest.raises(LogBusy):
                await appender.append_many([(make_record(3), None)])
            holder.rollback()
        # PostgreSQL drops the connection (a restart): that batch fails, the next goes on.
        with psycopg.connect(base, autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE query LIKE %s AND pid <> pg_backend_pid()",
                (f"%{pg_append.NAME}%",),
            )
        with pytest.raises(LogUnavailable):
            await appender.append_many([(make_record(4), None)])
        again = await appender.append_many([(make_record(5), None)])
        assert [e.seq for e in again] == [3]
        await appender.close()

    try:
        asyncio.run(run())
        result = verify_store(store)
        assert result.ok and result.count == 3
        assert store.payload(2) is not None
    finally:
        store.close()
