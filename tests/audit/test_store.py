"""One suite for every backend: `make_store` opens SQLite or PostgreSQL."""

from __future__ import annotations

import contextlib
import multiprocessing
import sqlite3
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest

from redline.audit import postgres
from redline.audit.chain import GENESIS, Break, BreakKind, entry_hash
from redline.audit.entry import Entry, Head, Kind, Record, format_time
from redline.audit.store import (
    LogBusy,
    LogUnavailable,
    Payload,
    Query,
    Store,
    open_store,
    verify_store,
)

MakeStore = Callable[[], Store]
MakeRecord = Callable[..., Record]
MakeTamper = Callable[[], Any]
T0 = datetime(2025, 6, 1, 12, 0, 0, tzinfo=UTC)


def fill(store: Store, make_record: MakeRecord, n: int) -> list[Entry]:
    return [store.append(make_record(i)) for i in range(1, n + 1)]


def seqs(entries: list[Entry]) -> list[int]:
    return [entry.seq for entry in entries]


def test_append_get_head_count(make_store: MakeStore, make_record: MakeRecord) -> None:
    store = make_store()
    assert store.head() is None
    assert store.count() == 0
    appended = fill(store, make_record, 3)
    assert [e.seq for e in appended] == [1, 2, 3]
    assert store.get(2) == appended[1]
    assert store.get(2) == Entry.from_link(appended[1].link)
    assert store.get(2).record == make_record(2)  # type: ignore[union-attr]
    assert store.get(99) is None
    assert store.head() == Head(3, appended[2].hash)
    assert store.count() == 3
    assert list(store.links()) == [e.link for e in appended]


def test_second_connection_continues_the_chain(
    make_store: MakeStore, make_record: MakeRecord
) -> None:
    first, second = make_store(), make_store()
    a = first.append(make_record(1))
    b = second.append(make_record(2))
    c = first.append(make_record(3))
    assert (b.seq, b.prev, c.prev) == (2, a.hash, b.hash)
    assert verify_store(second).ok


def test_queries(make_store: MakeStore, make_record: MakeRecord) -> None:
    store = make_store()
    store.append(make_record(1, session="a", tool="Bash", verdict="allow"))
    store.append(make_record(2, session="a", tool="Write", verdict="deny", rules=("fs.rm",)))
    store.append(make_record(3, session="b", tool="Bash", verdict="ask", rules=("x", "fs.rm")))
    store.append(make_record(4, session="b", tool="Bash", verdict="deny", rules=("fs.rmdir",)))
    store.append(make_record(5, kind=Kind.OUTCOME, ref=3, outcome="approved", verdict="allow"))
    assert seqs(store.query(Query())) == [1, 2, 3, 4, 5]
    assert seqs(store.query(Query(session="a"))) == [1, 2]
    assert seqs(store.query(Query(tool="Bash", session="b"))) == [3, 4]
    assert seqs(store.query(Query(verdict="deny"))) == [2, 4]
    assert seqs(store.query(Query(rule="fs.rm"))) == [2, 3]
    assert seqs(store.query(Query(kind="outcome"))) == [5]
    since, until = T0.replace(minute=2), T0.replace(minute=4)
    assert seqs(store.query(Query(since=since, until=until))) == [2, 3]
    assert seqs(store.query(Query(limit=2))) == [1, 2]
    assert seqs(store.query(Query(limit=2, newest_first=True))) == [5, 4]
    assert seqs(store.query(Query(verdict="deny", limit=1, newest_first=True))) == [4]


def test_payload_is_kept_until_it_expires(make_store: MakeStore, make_record: MakeRecord) -> None:
    store = make_store()
    now = datetime.now(UTC)
    body = "python3 - <<'EOF'\n" + "print('x')\n" * 10_000 + "EOF"
    payload = Payload.of(body, now + timedelta(days=7))
    entry = store.append(make_record(1, verdict="deny"), payload)
    assert entry.record.payload_sha256 == payload.sha256
    assert store.payload(1) == payload
    assert store.payload(1, now=now + timedelta(days=8)) is None
    assert store.purge_expired(now=now + timedelta(days=6)) == 0
    assert store.purge_expired(now=now + timedelta(days=8)) == 1
    assert store.payload(1) is None
    assert verify_store(store).ok


def test_expired_payloads_are_purged_on_append(
    make_store: MakeStore, make_record: MakeRecord
) -> None:
    store = make_store()
    store.append(make_record(1), Payload.of("old", datetime(2000, 1, 1, tzinfo=UTC)))
    store.append(make_record(2), Payload.of("new", datetime(2100, 1, 1, tzinfo=UTC)))
    assert [seq for seq, _ in store.payload_digests()] == [2]


def test_append_only_is_enforced(
    make_store: MakeStore, make_record: MakeRecord, store_url: str
) -> None:
    store = make_store()
    fill(store, make_record, 2)
    if store_url.startswith("sqlite"):
        with sqlite3.connect(store_url.removeprefix("sqlite://")) as conn:
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                conn.execute("UPDATE entries SET body = '{}' WHERE seq = 1")
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                conn.execute("DELETE FROM entries")
        conn.close()
    else:
        base, _, schema = store_url.partition("?schema=")
        with psycopg.connect(base, autocommit=True) as pg:
            for statement in ("DELETE FROM {}.entries", "TRUNCATE {}.entries"):
                with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
                    pg.execute(statement.format(schema).encode())
    assert verify_store(store).ok


def test_edit_is_found(
    make_store: MakeStore, make_record: MakeRecord, make_tamper: MakeTamper
) -> None:
    store = make_store()
    fill(store, make_record, 5)
    tamper = make_tamper()
    body = tamper.row(3)[3].replace('"allow"', '"deny"')
    tamper.run("UPDATE entries SET body = ? WHERE seq = ?", (body, 3))
    assert verify_store(store).broken == Break(
        3, BreakKind.EDITED, "its contents do not match its hash"
    )


def test_deletion_is_found(
    make_store: MakeStore, make_record: MakeRecord, make_tamper: MakeTamper
) -> None:
    store = make_store()
    fill(store, make_record, 5)
    make_tamper().run("DELETE FROM entries WHERE seq = ?", (3,))
    assert verify_store(store).broken == Break(3, BreakKind.DELETED, "entry 3 is missing")


def test_deletion_with_renumbering_is_found(
    make_store: MakeStore, make_record: MakeRecord, make_tamper: MakeTamper
) -> None:
    store = make_store()
    fill(store, make_record, 5)
    tamper = make_tamper()
    tamper.run("DELETE FROM entries WHERE seq = ?", (3,))
    tamper.renumber(4, -1)
    assert verify_store(store).broken == Break(
        3, BreakKind.DELETED, "it was chained after an entry that is no longer in the log"
    )


def test_insertion_is_found(
    make_store: MakeStore, make_record: MakeRecord, make_tamper: MakeTamper
) -> None:
    store = make_store()
    entries = fill(store, make_record, 5)
    tamper = make_tamper()
    tamper.renumber(3, 1)
    body = make_record(42, verdict="allow", tool="Read").to_body()
    forged = (3, entries[1].hash, entry_hash(3, entries[1].hash, body), body)
    tamper.run("INSERT INTO entries (seq, prev, hash, body) VALUES (?, ?, ?, ?)", forged)
    assert verify_store(store).broken == Break(
        3, BreakKind.INSERTED, "entry 3 was put into the chain after it was written"
    )


@pytest.mark.parametrize("seq", [0, -5])
def test_entry_planted_before_the_first_is_found(
    make_store: MakeStore, make_record: MakeRecord, make_tamper: MakeTamper, seq: int
) -> None:
    store = make_store()
    fill(store, make_record, 3)
    body = make_record(7).to_body()
    planted = (seq, GENESIS, entry_hash(seq, GENESIS, body), body)
    make_tamper().run("INSERT INTO entries (seq, prev, hash, body) VALUES (?, ?, ?, ?)", planted)
    broken = verify_store(store).broken
    assert broken is not None and broken.kind == BreakKind.REORDERED


def test_a_chain_longer_than_one_read_page_verifies_and_breaks_where_edited(
    make_store: MakeStore,
    make_record: MakeRecord,
    make_tamper: MakeTamper,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(postgres, "_PAGE_SIZE", 3)  # PostgreSQL reads the chain in pages
    store = make_store()
    fill(store, make_record, 10)
    assert verify_store(store).count == 10
    make_tamper().run("UPDATE entries SET body = replace(body, 'tmp', 'etc') WHERE seq = ?", (7,))
    assert verify_store(store).broken == Break(
        7, BreakKind.EDITED, "its contents do not match its hash"
    )


def test_reorder_is_found(
    make_store: MakeStore, make_record: MakeRecord, make_tamper: MakeTamper
) -> None:
    store = make_store()
    fill(store, make_record, 5)
    make_tamper().swap(2, 4)
    assert verify_store(store).broken == Break(
        2, BreakKind.REORDERED, "it was chained after entry 3, which now comes after it"
    )


def test_truncation_is_found_against_a_saved_head(
    make_store: MakeStore, make_record: MakeRecord, make_tamper: MakeTamper
) -> None:
    store = make_store()
    fill(store, make_record, 5)
    head = store.head()
    assert verify_store(store, head).ok
    make_tamper().run("DELETE FROM entries WHERE seq > ?", (3,))
    assert verify_store(store).ok
    assert verify_store(store, head).broken == Break(
        4,
        BreakKind.TRUNCATED,
        "the log ends at entry 3 but the saved head is missing (the saved head is entry 5)",
    )


def test_payload_edit_is_found(
    make_store: MakeStore, make_record: MakeRecord, make_tamper: MakeTamper
) -> None:
    store = make_store()
    store.append(make_record(1))
    store.append(make_record(2), Payload.of("rm -rf /", datetime(2100, 1, 1, tzinfo=UTC)))
    make_tamper().run("UPDATE payloads SET body = ? WHERE seq = ?", ("ls", 2))
    assert verify_store(store).broken == Break(
        2, BreakKind.EDITED, "its kept payload does not match the digest the entry committed to"
    )


def _append_many(url: str, worker: int, count: int) -> None:
    with open_store(url) as store:
        for i in range(count):
            record = Record(
                kind=Kind.DECISION,
                time=format_time(datetime.now(UTC)),
                session=f"worker-{worker}",
                tool="Bash",
                args=f'{{"command":"echo {i}"}}',
                verdict="allow",
            )
            store.append(record)


@pytest.mark.slow
def test_concurrent_appenders_never_fork_the_chain(make_store: MakeStore, store_url: str) -> None:
    workers, per_worker = 4, 200
    ctx = multiprocessing.get_context("spawn")
    processes = [
        ctx.Process(target=_append_many, args=(store_url, w, per_worker)) for w in range(workers)
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=120)
    for process in processes:
        if process.is_alive():
            process.kill()
            process.join()
    assert [p.exitcode for p in processes] == [0] * workers
    store = make_store()
    result = verify_store(store)
    assert result.ok
    assert result.count == store.count() == workers * per_worker
    for w in range(workers):
        assert len(store.query(Query(session=f"worker-{w}"))) == per_worker


def test_unknown_url_is_log_unavailable() -> None:
    with pytest.raises(LogUnavailable) as caught:
        open_store("mongodb://x/y")
    assert str(caught.value) == (
        "unknown log store url `mongodb://x/y`; use `sqlite:///PATH` or `postgresql://USER@HOST/DB`"
    )


def test_missing_sqlite_log_is_not_created_for_readers(tmp_path: Path) -> None:
    path = tmp_path / "none" / "log.sqlite3"
    with pytest.raises(LogUnavailable, match="no approval log at"):
        open_store(f"sqlite://{path}", create=False)
    assert not path.parent.exists()


def test_unwritable_sqlite_log_is_log_unavailable(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(LogUnavailable) as caught:
        open_store(f"sqlite://{blocker}/log.sqlite3")
    assert caught.value.problem.startswith(f"approval log `{blocker}/log.sqlite3` cannot be used")
    assert "writable" in caught.value.repair


def test_bad_sqlite_option_is_log_unavailable(tmp_path: Path) -> None:
    with pytest.raises(LogUnavailable, match="unknown `synchronous=sometimes`"):
        open_store(f"sqlite://{tmp_path}/log.sqlite3?synchronous=sometimes")


def test_sqlite_full_sync_option(tmp_path: Path) -> None:
    with open_store(f"sqlite://{tmp_path}/log.sqlite3?synchronous=full") as store:
        assert getattr(store, "synchronous", None) == "FULL"


def test_unreachable_postgres_is_log_unavailable() -> None:
    with pytest.raises(LogUnavailable) as caught:
        open_store("postgresql://nobody:hunter2@127.0.0.1:1/none?connect_timeout=2")
    assert caught.value.problem.startswith(
        "approval log `postgresql://nobody:[REDACTED:url-password]@127.0.0.1:1/none"
    )
    assert "hunter2" not in str(caught.value)


def test_bad_postgres_schema_is_log_unavailable() -> None:
    with pytest.raises(LogUnavailable, match="bad schema name `1; drop`"):
        open_store("postgresql://root@127.0.0.1/test?schema=1; drop")


def test_failed_append_rolls_back_and_the_store_stays_usable(
    make_store: MakeStore, make_record: MakeRecord, make_tamper: MakeTamper
) -> None:
    store = make_store()
    store.append(make_record(1))
    make_tamper().run("DROP TABLE payloads")
    with pytest.raises(LogUnavailable, match="cannot be used"):
        store.append(make_record(2), Payload.of("x", datetime(2100, 1, 1, tzinfo=UTC)))
    assert store.append(make_record(3)).seq == 2
    assert [seq for seq, *_ in store.links()] == [1, 2]
    assert store.count() == 2


@contextlib.contextmanager
def write_lock_taken(url: str) -> Iterator[None]:
    """Another connection holds the log's write lock meanwhile."""
    if url.startswith("sqlite"):
        lite = sqlite3.connect(url.removeprefix("sqlite://"), isolation_level=None)
        lite.execute("BEGIN IMMEDIATE")
        try:
            yield
        finally:
            lite.execute("ROLLBACK")
            lite.close()
        return
    base, _, schema = url.partition("?schema=")
    with psycopg.connect(base) as conn:  # a transaction until the block ends
        conn.execute(f"LOCK TABLE {schema}.entries IN SHARE ROW EXCLUSIVE MODE".encode())
        yield
        conn.rollback()


def test_an_appender_that_will_not_wait_hears_the_log_is_busy(
    make_store: MakeStore, make_record: MakeRecord, store_url: str
) -> None:
    store = make_store()
    # Refusals and appends in turn, past the point where the driver starts
    # preparing statements: a refusal must leave the connection usable.
    for n in range(12):
        with write_lock_taken(store_url):
            with pytest.raises(LogBusy) as busy:
                store.append_many([(make_record(98), None), (make_record(99), None)], wait=False)
            assert "another process is writing" in busy.value.problem
        assert store.count() == n  # nothing of a refused batch was written
        store.append_many([(make_record(n), None)], wait=False)
    result = verify_store(store)
    assert result.ok and result.count == 12
