"""The PostgreSQL log's one-statement append (`pg_append`): the server chains
as `chain` does, a schema of an older release gets the function, and a
function that chains otherwise is refused."""

from __future__ import annotations

from collections.abc import Callable

import psycopg
import pytest

from redline.audit import pg_append
from redline.audit.entry import Record
from redline.audit.postgres import PostgresStore
from redline.audit.store import LogUnavailable, open_store, verify_store

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
