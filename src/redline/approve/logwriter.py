"""Group commit for the service's decision log.

Every auto-decided call must be in the log before its answer goes out, and a
commit per call (BEGIN, read the head, insert, COMMIT) was a third of a
decision's cost. `LogWriter.append` queues a record and waits for the commit
that carries it; every record queued while a commit runs, or in the same turn
of the event loop, goes into the next one, in one transaction. No timer: a
lone call is committed at once, and under load the batches grow by themselves.

Where a commit runs depends on the store. A local SQLite commit is a fraction
of a millisecond that holds the GIL most of the time: on the loop it costs
just that; on a thread it cost as much again in GIL hand-offs and wake-ups,
and bought no parallel judging (`inline`). Like a lone commit always did, it
then blocks the loop while another process holds the log's write lock. A
commit that waits on a network (PostgreSQL) goes to the writer's thread while
the loop goes on judging calls; a lone record is committed on the loop there
too, as handing it over costs more than its commit.

Several processes may append to one log (the service and its judging
workers). A store's own wait for another's write lock would block the event
loop (SQLite's sleeps in whole milliseconds), so the writer asks the store
not to wait (`LogBusy`), keeps judging calls and tries again moments later
with what queued up meanwhile in the same batch.

An answer is only returned after its own transaction committed; if that
commit fails, every call in it gets `LogUnavailable` (and so a deny
`log-unavailable`), never an answer for an entry that is not in the log.

The hash chain stays whole: the store reads the head and chains the batch
inside one transaction, under the same lock and `BEGIN IMMEDIATE` (or table
lock) as a single append.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable

from redline.audit.entry import Record
from redline.audit.store import LogBusy, LogUnavailable, Payload, Store

MAX_BATCH = 256
"""Records in one transaction at most, so one commit stays short."""
BUSY_WAIT_S = 30.0
"""How long a batch waits for another process's write lock before its calls
are denied `log-unavailable` (as long as a store's own busy wait)."""
BUSY_PAUSES_S = (0.0, 0.0, 0.0002, 0.0005, 0.001, 0.002, 0.005)
"""Pauses between tries while the lock is held elsewhere, the last repeated:
a commit holds it for a fraction of a millisecond."""

Pending = tuple[Record, Payload | None, "asyncio.Future[int]"]


class LogWriter:
    """Appends from the event loop, committed in batches on one thread."""

    def __init__(self, store: Store, max_batch: int = MAX_BATCH, *, inline: bool = False) -> None:
        self.store = store
        self.max_batch = max_batch
        self.inline = inline
        self.batches = 0
        self.appended = 0
        self._queue: list[Pending] = []
        self._running: asyncio.Task[None] | None = None
        self._thread = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="redline-log")

    async def append(self, record: Record, payload: Payload | None = None) -> int:
        """The record's seq once its transaction committed; `LogUnavailable` if
        that transaction failed."""
        return await self.submit(record, payload)

    def submit(self, record: Record, payload: Payload | None = None) -> asyncio.Future[int]:
        """`append` as a future, for a caller that would rather not wait in a task."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[int] = loop.create_future()
        self._queue.append((record, payload, done))
        if self._running is None:
            self._running = loop.create_task(self._drain())
        return done

    async def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        busy_since: float | None = None  # the lock held elsewhere since then
        tries = 0
        try:
            while self._queue:
                batch = self._queue[: self.max_batch]
                del self._queue[: self.max_batch]
                items = [(record, payload) for record, payload, _ in batch]
                commit = self._commit(items)
                try:
                    # Calls that arrive while this commits queue up for the next batch.
                    here = self.inline or len(items) == 1
                    entries = commit() if here else await loop.run_in_executor(self._thread, commit)
                except LogBusy as err:
                    busy_since = loop.time() if busy_since is None else busy_since
                    if loop.time() - busy_since < BUSY_WAIT_S:
                        self._queue[:0] = batch  # first again, with what queues meanwhile
                        await asyncio.sleep(BUSY_PAUSES_S[min(tries, len(BUSY_PAUSES_S) - 1)])
                        tries += 1
                        continue
                    self._fail(batch, LogUnavailable(err.problem, "see what else writes the log"))
                    busy_since, tries = None, 0
                    continue
                except Exception as err:  # noqa: BLE001 - every failure denies the batch
                    failure = (
                        err
                        if isinstance(err, LogUnavailable)
                        else LogUnavailable(
                            f"the log writer failed ({type(err).__name__}: {err})",
                            "see the service's log; restart `redline serve`",
                        )
                    )
                    self._fail(batch, failure)
                    busy_since, tries = None, 0
                    continue
                busy_since, tries = None, 0
                self.batches += 1
                self.appended += len(batch)
                for (_, _, done), seq in zip(batch, entries, strict=True):
                    if not done.done():
                        done.set_result(seq)
        finally:
            self._running = None
            for _, _, done in self._queue:  # only if the loop is being torn down
                if not done.done():
                    done.set_exception(LogUnavailable("the service is stopping", "try again"))
            self._queue.clear()

    @staticmethod
    def _fail(batch: list[Pending], failure: LogUnavailable) -> None:
        for _, _, done in batch:
            if not done.done():
                done.set_exception(failure)

    def _commit(self, items: list[tuple[Record, Payload | None]]) -> Callable[[], list[int]]:
        def run() -> list[int]:
            entries = self.store.append_many(items, wait=False)
            if len(entries) != len(items):
                raise LogUnavailable("the log committed a different number of entries", "")
            return [entry.seq for entry in entries]

        return run

    async def close(self) -> None:
        """Wait for what is queued, then stop the writer's thread."""
        running = self._running
        if running is not None:
            await asyncio.shield(running)
        self._thread.shutdown(wait=True)
