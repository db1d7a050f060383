"""Group commit: many calls share a transaction, none is answered before its
entry is committed, a failed commit denies its whole batch, and the chain
stays whole; and the lean decision route keeps the loopback host rule."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest
from servicekit import POLICY

from redline.approve import logwriter
from redline.approve.app import build
from redline.approve.install_secrets import HOOK_TOKEN_HEADER
from redline.approve.logwriter import LogWriter
from redline.approve.paths import ServicePaths
from redline.approve.service import Service
from redline.approve.signing import Signer
from redline.audit.entry import Entry, Kind, Record
from redline.audit.store import LogBusy, LogUnavailable, Payload, Store, open_store, verify_store
from redline.gatekeeper import Gate

TOKEN = "t" * 43
AUTO = {"tool": "Bash", "args": {"command": "ls -la /srv/app"}, "cwd": "/srv/app"}


def record(n: int) -> Record:
    return Record(
        kind=Kind.DECISION, time="2026-01-01T00:00:00.000000Z", tool="Bash", reason=str(n)
    )


def make_service(tmp_path: Path) -> Service:
    signer = Signer.load_or_create(ServicePaths(str(tmp_path / "redline")))
    url = f"sqlite://{tmp_path}/log.sqlite3"
    return Service(gate=Gate(POLICY), signer=signer, store_url=url, hook_token=TOKEN)


def call(n: int) -> dict[str, Any]:
    return {**AUTO, "session": f"s{n % 7}", "nonce": f"{n:032x}"}


def on_loopback_http(service: Service) -> Any:
    """The service's app as its loopback HTTP listener sees requests."""
    app = build(service, hook_socket="/nonexistent/h", owner_socket="/nonexistent/o", web=[])

    async def listener(scope: Any, receive: Any, send: Any) -> None:
        await app({**scope, "server": ("127.0.0.1", 8787)}, receive, send)

    transport = httpx.ASGITransport(app=listener, client=("127.0.0.1", 50000))
    token = {HOOK_TOKEN_HEADER: TOKEN}
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1", headers=token)


def test_concurrent_appends_share_transactions_and_keep_the_chain(tmp_path: Path) -> None:
    store = open_store(f"sqlite://{tmp_path}/log.sqlite3")
    writer = LogWriter(store)

    async def run() -> list[int]:
        seqs = await asyncio.gather(*(writer.append(record(n)) for n in range(300)))
        await writer.close()
        return list(seqs)

    seqs = asyncio.run(run())
    assert sorted(seqs) == list(range(1, 301))
    assert writer.appended == 300 and writer.batches < 300  # grouped, not one commit each
    for n, seq in enumerate(seqs):  # each caller got its own record's seq
        entry = store.get(seq)
        assert entry is not None and entry.record.reason == str(n)
    assert verify_store(store).ok
    store.close()


def test_the_service_logs_every_concurrent_decision_before_answering(tmp_path: Path) -> None:
    async def run() -> list[dict[str, Any]]:
        service = make_service(tmp_path)
        replies = await asyncio.gather(*(service.decide(call(n)) for n in range(120)))
        for reply in replies:  # committed before the answer: another reader sees it now
            with open_store(f"sqlite://{tmp_path}/log.sqlite3", create=False) as other:
                assert other.get(int(reply["answer"]["request"].removeprefix("auto-")))
        await service.stop()
        return list(replies)

    replies = asyncio.run(run())
    assert all(r["status"] == "answered" and r["answer"]["verdict"] == "allow" for r in replies)
    with open_store(f"sqlite://{tmp_path}/log.sqlite3", create=False) as store:
        assert store.count() == 120 and verify_store(store).ok


class Gated:
    """A store whose commits wait for `release`, or fail."""

    def __init__(self, inner: Store, fail: bool = False) -> None:
        self.inner = inner
        self.fail = fail
        self.release = threading.Event()
        self.batches: list[int] = []

    def append_many(
        self, items: Sequence[tuple[Record, Payload | None]], *, wait: bool = True
    ) -> list[Entry]:
        self.release.wait(30)
        self.batches.append(len(items))
        if self.fail:
            raise LogUnavailable("the disk is full", "free some space")
        return self.inner.append_many(items, wait=wait)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_no_answer_leaves_before_its_commit(tmp_path: Path) -> None:
    async def run() -> None:
        service = make_service(tmp_path)
        gated = Gated(service.store)
        service.writer = LogWriter(gated)  # type: ignore[arg-type]
        tasks = [asyncio.create_task(service.decide(call(n))) for n in range(5)]
        await asyncio.sleep(0.3)
        assert not any(task.done() for task in tasks)
        assert service.store.count() == 0
        gated.release.set()
        replies = await asyncio.gather(*tasks)
        assert all(r["answer"]["verdict"] == "allow" for r in replies)
        assert service.store.count() == 5
        await service.stop()

    asyncio.run(run())


def test_a_failed_commit_denies_every_call_in_its_batch(tmp_path: Path) -> None:
    async def run() -> list[dict[str, Any]]:
        service = make_service(tmp_path)
        gated = Gated(service.store, fail=True)
        service.writer = LogWriter(gated)  # type: ignore[arg-type]
        tasks = [asyncio.create_task(service.decide(call(n))) for n in range(6)]
        await asyncio.sleep(0.2)
        gated.release.set()
        replies = await asyncio.gather(*tasks)
        assert sum(gated.batches) == 6 and len(gated.batches) < 6
        await service.stop()
        return list(replies)

    for reply in asyncio.run(run()):
        answer = reply["answer"]
        assert answer["verdict"] == "deny"
        assert answer["decision"]["code"] == "log-unavailable"
        assert "the disk is full" in answer["decision"]["reason"]


class Busy:
    """A store whose write lock another process holds until `free` is set;
    like a store asked not to wait, it says so at once."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner
        self.free = threading.Event()
        self.tries = 0
        self.batches: list[int] = []

    def append_many(
        self, items: Sequence[tuple[Record, Payload | None]], *, wait: bool = True
    ) -> list[Entry]:
        assert not wait, "the writer must never wait for the lock on the loop"
        self.tries += 1
        if not self.free.is_set():
            raise LogBusy("test")
        self.batches.append(len(items))
        return self.inner.append_many(items)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_a_lock_held_elsewhere_does_not_stall_the_loop_and_the_calls_wait_for_it(
    tmp_path: Path,
) -> None:
    async def run() -> None:
        service = make_service(tmp_path)
        busy = Busy(service.store)
        service.writer = LogWriter(busy, inline=True)  # type: ignore[arg-type]
        first = [asyncio.create_task(service.decide(call(n))) for n in range(3)]
        ticks = 0
        for _ in range(20):  # the loop keeps running while the lock is taken
            await asyncio.sleep(0.005)
            ticks += 1
        later = [asyncio.create_task(service.decide(call(n))) for n in range(3, 6)]
        await asyncio.sleep(0.02)
        assert ticks == 20 and busy.tries > 2
        assert not any(task.done() for task in first + later)
        assert service.store.count() == 0
        busy.free.set()
        replies = await asyncio.gather(*first, *later)
        assert all(r["answer"]["verdict"] == "allow" for r in replies)
        assert busy.batches == [6]  # the calls queued meanwhile joined the waiting batch
        assert service.store.count() == 6 and verify_store(service.store).ok
        await service.stop()

    asyncio.run(run())


def test_a_lock_never_released_denies_the_calls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(logwriter, "BUSY_WAIT_S", 0.1)

    async def run() -> list[dict[str, Any]]:
        service = make_service(tmp_path)
        service.writer = LogWriter(Busy(service.store), inline=True)  # type: ignore[arg-type]
        replies = await asyncio.gather(*(service.decide(call(n)) for n in range(4)))
        await service.stop()
        return list(replies)

    for reply in asyncio.run(run()):
        decision = reply["answer"]["decision"]
        assert reply["answer"]["verdict"] == "deny" and decision["code"] == "log-unavailable"
        assert "another process is writing" in decision["reason"]


@pytest.mark.parametrize(
    ("host", "status"),
    [
        ("127.0.0.1:8787", 200),
        ("localhost", 200),
        ("evil.example", 400),
        ("rebound.example:80", 400),
        ("127.0.0.1.evil.example", 400),
    ],
)
def test_the_lean_decision_route_keeps_the_loopback_host_rule(
    tmp_path: Path, host: str, status: int
) -> None:
    service = make_service(tmp_path)

    async def run() -> httpx.Response:
        async with on_loopback_http(service) as http:
            reply = await http.post("/v1/decide", json=call(1), headers={"host": host})
        await service.stop()
        return reply

    reply = asyncio.run(run())
    assert reply.status_code == status
    if status == 200:
        assert reply.json()["answer"]["verdict"] == "allow"


def test_the_lean_decision_route_refuses_what_the_routed_one_refuses(tmp_path: Path) -> None:
    service = make_service(tmp_path)

    async def run() -> list[httpx.Response]:
        async with on_loopback_http(service) as http:
            replies = [
                await http.post("/v1/decide", content=b"not json"),
                await http.post("/v1/decide", json=[1, 2]),
                await http.post("/v1/decide", json={"tool": "Bash", "args": {}}),
                await http.post("/v1/decide", content=b" " * (5 * 1024 * 1024)),
            ]
        await service.stop()
        return replies

    codes = [reply.status_code for reply in asyncio.run(run())]
    assert codes == [400, 400, 400, 413]


class Watched:
    """A store that notes which thread ran each commit, and its size."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner
        self.commits: list[tuple[int, int]] = []

    def append_many(
        self, items: Sequence[tuple[Record, Payload | None]], *, wait: bool = True
    ) -> list[Entry]:
        self.commits.append((threading.get_ident(), len(items)))
        return self.inner.append_many(items, wait=wait)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_a_local_sqlite_log_is_committed_on_the_loop_in_batches(tmp_path: Path) -> None:
    async def run() -> list[dict[str, Any]]:
        service = make_service(tmp_path)
        assert service.writer.inline  # no hand-off to a thread for a local file
        watched = Watched(service.store)
        service.writer.store = watched  # type: ignore[assignment]
        replies = await asyncio.gather(*(service.decide(call(n)) for n in range(60)))
        assert {thread for thread, _ in watched.commits} == {threading.get_ident()}
        assert sum(size for _, size in watched.commits) == 60 and len(watched.commits) < 60
        await service.stop()
        return list(replies)

    replies = asyncio.run(run())
    assert all(r["answer"]["verdict"] == "allow" for r in replies)
    with open_store(f"sqlite://{tmp_path}/log.sqlite3", create=False) as store:
        assert store.count() == 60 and verify_store(store).ok
