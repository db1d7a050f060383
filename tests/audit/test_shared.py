"""The log a process keeps open across calls (`redline.audit.shared`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from redline.audit.entry import Kind, Record
from redline.audit.recorder import open_log
from redline.audit.shared import drop_shared_log, shared_log
from redline.audit.store import Store, verify_store


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    drop_shared_log()
    yield
    drop_shared_log()


def env_for(home: Path) -> dict[str, str]:
    return {"REDLINE_HOME": str(home)}


def note(store: Store, text: str) -> None:
    store.append(Record(Kind.DECISION, "2030-01-01T00:00:00Z", session=text))


def sessions(store: Store) -> list[str]:
    return [json.loads(link[3])["session"] for link in store.links()]


def test_the_same_store_serves_call_after_call(tmp_path: Path) -> None:
    first = shared_log(env_for(tmp_path))
    assert shared_log(env_for(tmp_path)) is first


def test_another_log_replaces_the_kept_one(tmp_path: Path) -> None:
    first = shared_log(env_for(tmp_path / "a"))
    second = shared_log(env_for(tmp_path / "b"))
    assert second is not first
    assert shared_log(env_for(tmp_path / "b")) is second


def test_a_log_deleted_underneath_is_reopened_not_written_to_the_void(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    first = shared_log(env)
    note(first, "before")
    path = Path(first.path)  # type: ignore[attr-defined]  # an SqliteStore
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    second = shared_log(env)
    assert second is not first
    note(second, "after")
    reader = open_log(environ=env)
    try:
        assert sessions(reader) == ["after"]
    finally:
        reader.close()


# A one-shot process as a hook is: append through the kept log, end with
# os._exit (never closing it). argv: a session prefix, how many appends, and
# the WAL limit to use.
ONE_SHOT = (
    "import os, sys\n"
    "from redline.audit import shared\n"
    "from redline.audit.entry import Kind, Record\n"
    "prefix, count, limit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])\n"
    "shared.WAL_LIMIT_BYTES = limit or shared.WAL_LIMIT_BYTES\n"
    "for n in range(count):\n"
    "    record = Record(Kind.DECISION, '2030-01-01T00:00:00Z', session=f'{prefix}{n}')\n"
    "    shared.shared_log(os.environ).append(record)\n"
    "os._exit(0)\n"
)


def run_one_shots(home: Path, processes: int, appends: int, wal_limit: int = 0) -> None:
    env = {**os.environ, **env_for(home)}
    for n in range(processes):
        argv = [sys.executable, "-c", ONE_SHOT, f"{n}-", str(appends), str(wal_limit)]
        subprocess.run(argv, env=env, check=True)


def test_a_hook_process_that_never_closes_loses_nothing(tmp_path: Path) -> None:
    # Ten processes append and end with os._exit, as a hook does; a new
    # reader sees every entry and an intact chain.
    run_one_shots(tmp_path, 10, 1)
    reader = open_log(environ=env_for(tmp_path))
    try:
        assert reader.count() == 10
        report = verify_store(reader)
        assert report.ok, report
        assert sessions(reader) == [f"{n}-0" for n in range(10)]
    finally:
        reader.close()


def test_the_write_ahead_log_of_processes_that_never_close_stays_short(tmp_path: Path) -> None:
    # Each opener reads the whole WAL and appends after it; without folding
    # it back it would grow with every call (and slow every start).
    run_one_shots(tmp_path, 40, 5, wal_limit=32 * 1024)
    wal = tmp_path / "log.sqlite3-wal"
    assert not wal.exists() or wal.stat().st_size < 32 * 1024 + 64 * 1024
    reader = open_log(environ=env_for(tmp_path))
    try:
        assert reader.count() == 200
        assert verify_store(reader).ok
    finally:
        reader.close()
