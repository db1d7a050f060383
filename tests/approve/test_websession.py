"""The owner's web session is never shared: with `redline serve --http` and
its default judging worker(s), once the owner has logged in, requests without
the session cookie are refused on every page and API route, whichever
process takes them (a worker relays them to the service)."""

from __future__ import annotations

import http.client
import json
import os
import random
import shutil
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from servicekit import POLICY, Env, HookProcess, ServiceProcess, hook_payload
from test_web import ASKED, free_port, web_code

from redline.approve.install_secrets import HOOK_TOKEN_HEADER, read_hook_token
from redline.approve.worker import JUDGED_BY, RELAYED_BY
from redline.cli.serve import default_workers

ATTEMPTS = 200
LOGINS = 5  # the most one sender may try in a minute
# The default worker(s); at least one, on a machine where the default is none.
WORKERS = ("--workers", str(max(1, default_workers())))
PARALLEL = 8  # an idle service takes every connection itself; in parallel, workers take some


def request(
    port: int, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    """One request on a fresh connection, with exactly these headers (no cookie
    unless given)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        reply = conn.getresponse()
        return reply.status, {k.lower(): v for k, v in reply.getheaders()}, reply.read()
    finally:
        conn.close()


def log_in(service: ServiceProcess, port: int) -> tuple[str, str, str]:
    """The owner logs in (as a browser would: same origin): the cookie, the
    CSRF token and the worker that relayed the login ("" for none)."""
    body = f"code={web_code(service)}".encode()
    origin = f"http://127.0.0.1:{port}"
    form = {"content-type": "application/x-www-form-urlencoded", "origin": origin}
    status, headers, _ = request(port, "POST", "/login", body, form)
    assert (status, headers["location"]) == (303, "/")
    cookie = headers["set-cookie"].split(";", 1)[0]
    status, _, reply = request(port, "GET", "/api/session", headers={"cookie": cookie})
    assert status == 200
    return cookie, json.loads(reply)["csrf"], headers.get(RELAYED_BY.decode(), "")


def decide(port: int, session: str, token: str) -> str:
    """An auto-allowed call; the pid of the worker that answered it, or ""."""
    body = json.dumps(hook_payload("ls /srv", session, nonce=os.urandom(16).hex())).encode()
    status, headers, _ = request(port, "POST", "/v1/decide", body, {HOOK_TOKEN_HEADER: token})
    assert status == 200
    return headers.get(JUDGED_BY.decode(), "")


def serving_worker(port: int, token: str) -> None:
    """Wait until a worker answers calls (workers start after the service)."""
    end = time.monotonic() + 60
    with ThreadPoolExecutor(PARALLEL) as pool:
        while not any(pool.map(decide, [port] * PARALLEL, ["warm"] * PARALLEL, [token] * PARALLEL)):
            assert time.monotonic() < end, "no worker answered within a minute"


def refused(status: int, headers: dict[str, str]) -> bool:
    return status in (401, 403) or (status == 303 and headers.get("location") == "/login")


def test_cookieless_requests_through_the_workers_never_act_as_the_owner(
    env: Env, make_service: Callable[..., ServiceProcess], tmp_path: Path
) -> None:
    port = free_port()
    # A policy of its own: an "always" that got through would write its allowlist.
    policy = tmp_path / "policy.yaml"
    shutil.copy(POLICY, policy)
    service = make_service("--http", f"127.0.0.1:{port}", "--policy", str(policy), *WORKERS)
    origin = f"http://127.0.0.1:{port}"
    hooks = [HookProcess(env, hook_payload(ASKED, session=f"held-{n}")) for n in range(3)]
    held = [row["id"] for row in service.wait_pending(3)]
    token = read_hook_token(service.paths) or ""
    serving_worker(port, token)

    # The owner logs in while calls keep both processes busy, until a login
    # (and its reply setting the cookie) passed through a worker.
    stop = threading.Event()

    def busy(n: int) -> None:
        while not stop.is_set():
            decide(port, f"busy-{n}", token)

    sessions: list[tuple[str, str, str]] = []
    with ThreadPoolExecutor(PARALLEL) as pool:
        load = [pool.submit(busy, n) for n in range(PARALLEL - 1)]
        try:
            while len(sessions) < LOGINS and not any(via for _, _, via in sessions):
                sessions.append(log_in(service, port))
        finally:
            stop.set()
        for done in load:
            done.result()
    # Which process takes a connection is the kernel's choice: on a quiet
    # machine the service may take every login itself. The property checked
    # below (cookieless requests through a worker never act as the owner)
    # needs only that some of those requests pass through a worker, and says so.
    cookie, csrf, _ = sessions[-1]

    # Every protected page and API route, without the cookie but with the
    # owner's CSRF token and the page's own origin (all a stranger could add).
    change = {"content-type": "application/json", "x-csrf-token": csrf, "origin": origin}
    routes: list[tuple[str, str, bytes, dict[str, str]]] = [
        ("GET", "/", b"", {}),
        ("GET", "/api/session", b"", {}),
        ("GET", "/api/pending?since=-1&wait=0", b"", {}),
        ("GET", "/api/history?limit=5", b"", {}),
        ("GET", "/api/rules", b"", {}),
        *(
            ("POST", f"/api/held/{i}/approve", json.dumps({"scope": s}).encode(), change)
            for i in held
            for s in ("always", "session", "once")
        ),
        *(("POST", f"/api/held/{i}/reject", b'{"reason": "x"}', change) for i in held),
    ]
    attempts = [routes[n % len(routes)] for n in range(ATTEMPTS - 10)]
    attempts += [("POST", "/logout", b"", {"x-csrf-token": csrf, "origin": origin})] * 10
    # Auto-allowed calls in the same stream keep both processes busy.
    hook = {HOOK_TOKEN_HEADER: token}
    calls: list[tuple[str, str, bytes, dict[str, str]]] = [
        ("POST", "/v1/decide", json.dumps(hook_payload("ls /srv", "w", nonce=nonce)).encode(), hook)
        for nonce in (f"{n:032x}" for n in range(100))
    ]
    mixed = attempts[:-10] + calls
    random.Random(12).shuffle(mixed)
    mixed += attempts[-10:]

    def send(item: tuple[str, str, bytes, dict[str, str]]) -> tuple[str, int, dict[str, str]]:
        method, path, body, headers = item
        status, reply_headers, _ = request(port, method, path, body, headers)
        return path, status, reply_headers

    with ThreadPoolExecutor(PARALLEL) as pool:
        results = list(pool.map(send, mixed))
    web = [(path, status, h) for path, status, h in results if path != "/v1/decide"]
    relayed = [path for path, _, h in web if h.get(RELAYED_BY.decode())]

    assert len(web) == ATTEMPTS
    succeeded = [(path, status) for path, status, h in web if not refused(status, h)]
    assert succeeded == []
    assert relayed, "no request passed through a worker"
    # Nothing was answered, and the owner's session still works.
    assert [row["state"] for row in service.pending()] == ["pending"] * 3
    assert not (tmp_path / "allowlist.json").exists()
    assert request(port, "GET", "/api/session", headers={"cookie": cookie})[0] == 200
    for held_id in held:
        service.owner("POST", f"/v1/held/{held_id}/reject", {"reason": "done"})
    assert [hook.result()[1]["code"] for hook in hooks] == ["rejected"] * 3
