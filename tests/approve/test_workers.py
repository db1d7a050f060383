"""Judging workers (`redline serve --workers N`): they answer auto-decided
calls on the service's own sockets, with the service's key, logged in the one
chain; they see every owner's answer before the hook that asked does; a dead
worker is replaced; none outlives the service."""

from __future__ import annotations

import json
import os
import signal
import socket
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from servicekit import Env, HookProcess, ServiceProcess, eventually, hook_payload

from redline.approve.client import call_digest, pinned_key, verify
from redline.approve.install_secrets import HOOK_TOKEN_HEADER, read_hook_token
from redline.approve.paths import ServicePaths
from redline.approve.worker import JUDGED_BY
from redline.audit.recorder import open_log
from redline.audit.store import open_store, verify_store

ASKED = "git push --force origin main"
TRIES = 400  # fresh connections to find a worker's answers among the service's


def decide(
    address: str, payload: dict[str, Any], host: str = "127.0.0.1", token: str | None = None
) -> tuple[int, str, Any]:
    """One call on a fresh connection: status, the answering worker's pid ("" for
    the service itself), and the JSON reply. `token`: the hook token to send."""
    data = json.dumps(payload).encode()
    extra = f"{HOOK_TOKEN_HEADER}: {token}\r\n" if token else ""
    head = (
        f"POST /v1/decide HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(data)}\r\n{extra}Connection: close\r\n\r\n"
    ).encode()
    if address.startswith("/"):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(address)
    else:
        name, _, port = address.rpartition(":")
        sock = socket.create_connection((name, int(port)))
    with sock:
        sock.settimeout(60)
        sock.sendall(head + data)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    top, _, body = reply.partition(b"\r\n\r\n")
    lines = top.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    json_reply = headers.get("content-type") == "application/json"
    value = json.loads(body) if json_reply else body.decode()
    return int(lines[0].split()[1]), headers.get(JUDGED_BY.decode(), ""), value


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def nonce(n: int) -> str:
    return f"{n:032x}"


def answers(
    address: str,
    command: str,
    session: str,
    tries: int = TRIES,
    host: str = "127.0.0.1",
    worker: bool = True,
    token: str | None = None,
) -> list[tuple[int, str, Any]]:
    """Fresh-connection calls until some were answered by a worker and some by
    the service, or `tries` ran out (workers start after the service does: a
    call with none answering yet waits for them, up to a minute)."""
    seen: list[tuple[int, str, Any]] = []
    end = time.monotonic() + (60 if worker else 0)

    def one(n: int) -> tuple[int, str, Any]:
        payload = hook_payload(command, session, nonce=nonce(time.time_ns()))
        return decide(address, payload, host, token)

    # Calls in parallel: an idle service takes every connection itself.
    with ThreadPoolExecutor(8) as pool:
        while len(seen) < tries or (not worker_pids(seen) and time.monotonic() < end):
            seen.extend(pool.map(one, range(8)))
            if len({bool(who) for _, who, _ in seen}) == 2 and len(seen) >= 20:
                break
    return seen


def worker_pids(seen: list[tuple[int, str, Any]]) -> set[int]:
    return {int(who) for _, who, _ in seen if who}


def test_workers_answer_with_the_service_key_in_the_one_chain(
    env: Env, make_service: Callable[..., ServiceProcess]
) -> None:
    service = make_service("--workers", "2")
    pinned = pinned_key(service.paths)
    seen = []
    for n in range(TRIES):
        payload = hook_payload("ls /srv", "s1", nonce=nonce(n))
        status, who, reply = decide(service.paths.hook_socket, payload)
        assert status == 200, reply
        digest = call_digest("Bash", payload["args"], payload["cwd"], "s1", None, None)
        body = verify(reply, pinned, request=None, nonce=payload["nonce"], call=digest)
        assert body["verdict"] == "allow", body["decision"]["reason"]
        seen.append(who)
        if len(set(seen)) >= 2 and len(seen) >= 20:
            break
    assert {w for w in seen if w}, "no call was answered by a worker"
    store = open_log(environ=env)
    try:
        result = verify_store(store)
        assert result.broken is None
        assert result.count == len(seen)
    finally:
        store.close()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_args(request: pytest.FixtureRequest) -> list[str]:
    if request.param == "sqlite":
        return []
    return ["--store", request.getfixturevalue("pg_url")]


def test_processes_appending_at_once_keep_one_chain_and_every_answer_in_it(
    env: Env, make_service: Callable[..., ServiceProcess], store_args: list[str]
) -> None:
    """The service and its workers commit to one log concurrently: every
    answer's entry is there, each once, and the chain is whole."""
    service = make_service("--workers", "2", *store_args)
    address = service.paths.hook_socket
    pinned = pinned_key(service.paths)
    warm = answers(address, "ls /srv", "warm", tries=8)  # the workers are serving
    assert worker_pids(warm)

    def one(n: int) -> tuple[str, int]:
        payload = hook_payload(f"ls /srv/{n}", f"s{n % 5}", nonce=nonce(10**6 + n))
        status, who, reply = decide(address, payload)
        assert status == 200, reply
        digest = call_digest("Bash", payload["args"], payload["cwd"], f"s{n % 5}", None, None)
        body = verify(reply, pinned, request=None, nonce=payload["nonce"], call=digest)
        assert body["verdict"] == "allow", body["decision"]["reason"]
        return who, int(body["request"].removeprefix("auto-"))

    with ThreadPoolExecutor(16) as pool:
        answered = list(pool.map(one, range(600)))
    assert len({who for who, _ in answered}) >= 2, "the calls did not spread over processes"
    seqs = [seq for _, seq in answered]
    assert len(set(seqs)) == len(seqs)
    store = open_store(store_args[1]) if store_args else open_log(environ=env)
    try:
        result = verify_store(store)
        assert result.broken is None and result.count == len(seqs) + len(warm)
        logged = [store.get(seq) for seq in seqs]
        assert all(entry is not None and entry.record.verdict == "allow" for entry in logged)
    finally:
        store.close()


def test_an_owners_answer_reaches_every_worker_before_the_hook(
    env: Env, make_service: Callable[..., ServiceProcess]
) -> None:
    service = make_service("--workers", "2")
    hook = HookProcess(env, hook_payload(ASKED, "s-reject"))
    [held] = service.wait_pending(1)
    status, _ = service.owner("POST", f"/v1/held/{held['id']}/reject", {"reason": "not main"})
    assert status == 200
    assert hook.result()[0] == 4
    # Every process now refuses the same effect, however it is spelled.
    seen = answers(service.paths.hook_socket, "git push -f origin main", "s-reject")
    assert worker_pids(seen), "no call was answered by a worker"
    assert {(s, r["answer"]["verdict"]) for s, _, r in seen} == {(200, "deny")}
    # A session grant reaches them too: approved for the session, asked no more.
    hook = HookProcess(env, hook_payload("git push --force origin dev", "s-grant"))
    [held] = service.wait_pending(1)
    status, _ = service.owner("POST", f"/v1/held/{held['id']}/approve", {"scope": "session"})
    assert status == 200
    assert hook.result()[0] == 0
    seen = answers(service.paths.hook_socket, "git push --force origin dev", "s-grant")
    assert worker_pids(seen)
    assert {r.get("status") for _, _, r in seen} == {"answered"}
    assert {r["answer"]["verdict"] for _, _, r in seen} == {"allow"}
    # Another session is still asked, by whichever process takes the call.
    hook_socket = service.paths.hook_socket
    seen = answers(hook_socket, "git push --force origin dev", "s-other", 30, worker=False)
    assert {r["status"] for _, _, r in seen} == {"pending"}
    assert len(service.pending()) == len(seen)


def test_a_worker_refuses_what_the_service_refuses_on_http(
    env: Env, make_service: Callable[..., ServiceProcess]
) -> None:
    port = free_port()
    service = make_service("--workers", "2", "--http", f"127.0.0.1:{port}")
    address = f"127.0.0.1:{port}"
    token = read_hook_token(service.paths)
    seen = answers(address, "ls /srv", "s-http", token=token)
    assert worker_pids(seen)
    assert {r["answer"]["verdict"] for _, _, r in seen} == {"allow"}
    # A page on another site rebound to 127.0.0.1 is refused wherever it lands.
    refused = answers(address, "ls /srv", "s-http", 40, "evil.example", False, token)
    assert {(status, who) for status, who, _ in refused} == {(400, "")}
    assert service.pending() == []


def test_a_killed_worker_is_replaced(env: Env, make_service: Callable[..., ServiceProcess]) -> None:
    service = make_service("--workers", "1")
    first = worker_pids(answers(service.paths.hook_socket, "ls /srv", "s1"))
    assert len(first) == 1
    os.kill(first.pop(), signal.SIGKILL)
    # The service keeps answering meanwhile, and a new worker takes calls again.
    replaced = eventually(
        lambda: worker_pids(answers(service.paths.hook_socket, "ls /srv", "s1", 50)),
        what="a new worker",
    )
    assert replaced


def test_no_worker_outlives_the_service(
    env: Env, make_service: Callable[..., ServiceProcess]
) -> None:
    service = make_service("--workers", "2")
    pids = eventually(
        lambda: (
            len(p := worker_pids(answers(service.paths.hook_socket, "ls /srv", "s1"))) == 2 and p
        ),
        what="both workers answering",
    )
    service.kill9()

    def gone() -> bool:
        return all(not os.path.exists(f"/proc/{pid}") or _zombie(pid) for pid in pids)

    eventually(gone, 30, "the workers to exit")
    # And the service starts again on the same home.
    again = make_service("--workers", "1")
    assert ServicePaths(env["REDLINE_HOME"]).hook_socket == again.paths.hook_socket
    seen = answers(again.paths.hook_socket, "ls /srv", "s1", 50)
    assert {r["answer"]["verdict"] for _, _, r in seen} == {"allow"}


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rpartition(")")[2].split()[0] == "Z"
    except OSError:
        return True
