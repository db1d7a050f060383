"""Approval log benchmark: appends/s and verify speed, SQLite and PostgreSQL.

Run as `python bench/bench_log.py` (about 30-60 s). Options: `--postgres URL`
(default the local test server; skipped when unreachable), `--verify-entries N`.
Durability: SQLite runs in WAL mode with `synchronous=NORMAL` by default (a
process crash loses nothing, a power cut may lose the last commits); `FULL`
syncs each commit. PostgreSQL runs with the server's own settings.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sqlite3
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from redline.audit.chain import GENESIS, seal
from redline.audit.entry import Kind, Record, format_time
from redline.audit.recorder import record_decision
from redline.audit.store import Store, open_store, verify_store
from redline.decision import Decision, RuleHit, Severity, Verdict

PG_DEFAULT = "postgresql://root@127.0.0.1:5432/test"
SECONDS = 2.0
WORKERS = 4
PER_WORKER = 400
HIT = RuleHit("fs.rm-recursive", "recursive delete", Severity.DANGEROUS, "destructive")


def make_record(i: int, session: str = "bench") -> Record:
    return Record(
        kind=Kind.DECISION,
        time=format_time(datetime.now(UTC)),
        session=session,
        context="interactive",
        agent="claude-code",
        tool="Bash",
        args=f'{{"command":"git status && ls -la /home/user/project/{i}","workdir":"/home/user"}}',
        verdict="allow",
        reason="no rule matched",
    )


def timed(run: Callable[[int], None], seconds: float = SECONDS) -> float:
    """Calls per second of `run(i)` over about `seconds`."""
    count, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(50):
            run(count)
            count += 1
    return count / elapsed


def single(url: str) -> tuple[float, float]:
    with open_store(url) as store:

        def append(i: int) -> None:
            store.append(make_record(i))

        appends = timed(append)
        decision = Decision(Verdict.DENY, hits=(HIT,), reason="recursive delete")

        def recorded(i: int) -> None:
            record_decision(
                store,
                session="bench",
                context="interactive",
                agent="claude-code",
                tool="Bash",
                args={"command": f"rm -rf /home/user/build/{i}", "workdir": "/home/user"},
                decision=decision,
                environ={},
            )

        records = timed(recorded)
    return appends, records


def _worker(url: str, worker: int, count: int, barrier: Any) -> None:
    with open_store(url) as store:
        barrier.wait(timeout=60)
        for i in range(count):
            store.append(make_record(i, session=f"w{worker}"))


def concurrent(url: str) -> float:
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(WORKERS + 1)
    processes = [
        ctx.Process(target=_worker, args=(url, w, PER_WORKER, barrier)) for w in range(WORKERS)
    ]
    for process in processes:
        process.start()
    try:
        barrier.wait(timeout=60)
    except threading.BrokenBarrierError:
        for process in processes:
            process.kill()
        raise SystemExit("a writer process failed to start") from None
    start = time.perf_counter()
    for process in processes:
        process.join()
    elapsed = time.perf_counter() - start
    if any(p.exitcode != 0 for p in processes):
        raise SystemExit("a writer process failed")
    with open_store(url) as store:
        result = verify_store(store)
        if not result.ok:
            raise SystemExit(f"chain broken after concurrent appends: {result.broken}")
    return WORKERS * PER_WORKER / elapsed


def bulk_links(n: int) -> list[tuple[int, str, str, str]]:
    links, prev = [], GENESIS
    for i in range(1, n + 1):
        entry = seal(make_record(i), i, prev)
        links.append(entry.link)
        prev = entry.hash
    return links


def fill_sqlite(url: str, links: list[tuple[int, str, str, str]]) -> None:
    open_store(url).close()
    conn = sqlite3.connect(url.removeprefix("sqlite://"))
    with conn:
        conn.executemany("INSERT INTO entries (seq, prev, hash, body) VALUES (?, ?, ?, ?)", links)
    conn.close()


def fill_postgres(url: str, links: list[tuple[int, str, str, str]]) -> None:
    import psycopg

    open_store(url).close()
    base, _, schema = url.partition("?schema=")
    copy_sql = f"COPY {schema}.entries (seq, prev, hash, body) FROM STDIN".encode()
    with psycopg.connect(base) as conn, conn.cursor() as cur, cur.copy(copy_sql) as copy:
        for link in links:
            copy.write_row(link)


def verify_rate(store: Store) -> tuple[float, int]:
    start = time.perf_counter()
    result = verify_store(store)
    elapsed = time.perf_counter() - start
    if not result.ok:
        raise SystemExit(f"bulk chain does not verify: {result.broken}")
    return result.count / elapsed, result.count


def pg_reachable(url: str) -> bool:
    try:
        import psycopg

        psycopg.connect(url, connect_timeout=3).close()
    except Exception:  # noqa: BLE001 - any failure means "skip PostgreSQL"
        return False
    return True


def drop_schema(base: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE".encode())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", default=PG_DEFAULT, help="server for the PostgreSQL runs")
    parser.add_argument("--verify-entries", type=int, default=100_000)
    args = parser.parse_args()

    print(f"append: {SECONDS:.0f} s per single-writer run; {WORKERS} processes x {PER_WORKER}")
    with tempfile.TemporaryDirectory() as tmp:
        for sync in ("normal", "full"):
            label = "synchronous=NORMAL (default)" if sync == "normal" else "synchronous=FULL"
            url = f"sqlite://{Path(tmp)}/{sync}.sqlite3?synchronous={sync}"
            appends, records = single(url)
            many = concurrent(f"sqlite://{Path(tmp)}/{sync}-many.sqlite3?synchronous={sync}")
            print(
                f"sqlite  WAL {label:29} 1 writer: {appends:8,.0f} appends/s "
                f"({records:,.0f}/s via record_decision)  "
                f"{WORKERS} writers: {many:8,.0f} appends/s"
            )
        links = bulk_links(args.verify_entries)
        url = f"sqlite://{Path(tmp)}/verify.sqlite3"
        fill_sqlite(url, links)
        with open_store(url) as store:
            rate, count = verify_rate(store)
        print(f"sqlite  verify {count:,} entries: {count / rate:.2f} s ({rate:,.0f} entries/s)")

    if not pg_reachable(args.postgres):
        print(f"postgres: `{args.postgres}` unreachable; skipped")
        return
    schemas = [f"redline_bench_{uuid.uuid4().hex[:12]}" for _ in range(3)]
    try:
        single_url, many_url, verify_url = (f"{args.postgres}?schema={s}" for s in schemas)
        appends, records = single(single_url)
        many = concurrent(many_url)
        print(
            f"postgres (server durability settings)      1 writer: {appends:8,.0f} appends/s "
            f"({records:,.0f}/s via record_decision)  "
            f"{WORKERS} writers: {many:8,.0f} appends/s"
        )
        fill_postgres(verify_url, links)
        with open_store(verify_url) as store:
            rate, count = verify_rate(store)
        print(f"postgres verify {count:,} entries: {count / rate:.2f} s ({rate:,.0f} entries/s)")
    finally:
        for schema in schemas:
            drop_schema(args.postgres, schema)


if __name__ == "__main__":
    main()
