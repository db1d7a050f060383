"""Appends to the PostgreSQL log from an event loop, on a connection of its own.

The service's `LogWriter` awaits each batch here instead of handing it to a
thread: the loop judges calls while the server chains the batch, without a
GIL hand-off per round trip (under load each one waited for the judging
thread's turn to end). The server waits for the log's write lock itself, up
to `lock_wait_s` per try (`LogBusy` after it; the writer tries again), so no
try is refused while another replica commits for a fraction of a millisecond.

Every batch is one `append_entries_v1` call (`pg_append`), checked as the
synchronous store checks it. A broken connection fails its batch
(`LogUnavailable`: the calls in it are denied) and the next batch connects
again, so a restarted server needs no restart of the service.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg import sql

from redline.audit import pg_append
from redline.audit.entry import Entry, Record
from redline.audit.postgres import CONNECT_TIMEOUT_S, _parse, _unavailable
from redline.audit.store import LogBusy, Payload, display_url


class AsyncAppender:
    """`append_many` for a loop, on one connection opened when first needed."""

    def __init__(self, url: str, lock_wait_s: float) -> None:
        self._url = url
        self._conninfo, schema = _parse(url)
        self._call = sql.SQL(pg_append.CALL).format(append=sql.Identifier(schema, pg_append.NAME))
        self._lock_wait_ms = max(1, int(lock_wait_s * 1000))
        self._conn: psycopg.AsyncConnection[Any] | None = None

    async def append_many(self, items: Sequence[tuple[Record, Payload | None]]) -> list[Entry]:
        """Chain `items` in one transaction once the write lock is free:
        every one is committed, or `LogUnavailable` (`LogBusy` if the lock
        stayed held past `lock_wait_s`) and none is."""
        batch = pg_append.Batch(items, wait=True)
        try:
            conn = await self._live()
            cur = await conn.execute(self._call, batch.params)
            rows = await cur.fetchall()
        except psycopg.errors.LockNotAvailable:
            raise LogBusy(display_url(self._url)) from None
        except psycopg.Error as err:
            raise _unavailable(self._url, err) from err
        except BaseException:
            # Cancelled mid-statement: the connection's state is unknown.
            await self.close()
            raise
        return batch.entries(rows, display_url(self._url))

    async def _live(self) -> psycopg.AsyncConnection[Any]:
        conn = self._conn
        if conn is None or conn.closed or conn.broken:
            self._conn = None
            conn = await psycopg.AsyncConnection.connect(
                self._conninfo, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S
            )
            try:
                await conn.execute(sql.SQL("SET lock_timeout = {}").format(self._lock_wait_ms))
            except BaseException:
                await conn.close()
                raise
            self._conn = conn
        return conn

    async def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            await conn.close()
