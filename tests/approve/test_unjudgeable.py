"""Through the service, input that cannot be judged is a logged deny, never
an HTTP 500 that the hook reports as `gate-unreachable` (issue 12 #6): JSON
nested 10,000 deep, bytes that are not UTF-8, a 4 KB chain of wrappers, NUL
bytes, lone surrogates, huge strings. With and without judging workers."""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Callable
from typing import Any

import pytest
from servicekit import PROJECT, Env, ServiceProcess, hook_payload, run_hook

from redline.audit.recorder import open_log
from redline.audit.store import Query

NONCE = "0123456789abcdef0123"


def post(path: str, body: bytes) -> tuple[int, Any]:
    """A raw POST /v1/decide (the body as given, not encoded by us)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(60)
        sock.connect(path)
        head = (
            "POST /v1/decide HTTP/1.1\r\nHost: redline\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        )
        sock.sendall(head.encode() + body)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    top, _, payload = b"".join(chunks).partition(b"\r\n\r\n")
    return int(top.split(b" ", 2)[1]), json.loads(payload)


def call_body(args_json: bytes, tool: bytes = b'"Bash"') -> bytes:
    return (
        b'{"tool": ' + tool + b', "args": ' + args_json + b', "cwd": "' + PROJECT.encode()
        + b'", "session": "s1", "nonce": "' + NONCE.encode() + b'"}'
    )  # fmt: skip


def unreadable_entries(env: Env) -> list[Any]:
    store = open_log(environ=env)
    try:
        return [e.record for e in store.query(Query(tool="(unreadable)"))]
    finally:
        store.close()


@pytest.fixture(params=["0", "1"], ids=["no-workers", "one-worker"])
def service(
    request: pytest.FixtureRequest, make_service: Callable[..., ServiceProcess]
) -> ServiceProcess:
    return make_service("--workers", request.param)


@pytest.mark.slow
def test_bodies_that_cannot_be_read_are_logged_denies(service: ServiceProcess, env: Env) -> None:
    socket_path = service.paths.hook_socket
    deep = b"[" * 10_000 + b"]" * 10_000
    bodies = {
        "deep body": b'{"x": ' + deep + b"}",
        "deep args": call_body(b'{"command": "ls", "x": ' + deep + b"}"),
        "over 100 levels": call_body(b'{"x": ' + b"[" * 150 + b"]" * 150 + b"}"),
        "not utf-8": call_body(b'{"command": "ls \xff\xfe"}'),
    }
    for name, body in bodies.items():
        status, reply = post(socket_path, body)
        assert status == 400, name
        assert reply["error"] in (
            "the body cannot be judged: it is nested deeper than 100 levels",
            "the body is not UTF-8 text",
        ), name
    logged = unreadable_entries(env)
    assert [(r.verdict, r.code) for r in logged] == [("deny", "unjudgeable")] * len(bodies)
    assert logged[0].reason == (
        "the request cannot be judged: the body cannot be judged: "
        "it is nested deeper than 100 levels"
    )


@pytest.mark.slow
def test_calls_that_are_hard_to_judge_get_a_signed_verdict(
    service: ServiceProcess, env: Env
) -> None:
    socket_path = service.paths.hook_socket
    chains = {
        "env": "env " * 1024 + "rm -rf /",
        "sudo": "sudo " * 820 + "rm -rf /",
        "nice": "nice " * 820 + "rm -rf /",
        "time": "time " * 820 + "rm -rf /",
    }
    for name, command in chains.items():
        args = json.dumps({"command": command}).encode()
        status, reply = post(socket_path, call_body(args))
        assert status == 200, name
        decision = reply["answer"]["decision"]
        assert (reply["answer"]["verdict"], decision["hardline"]) == ("deny", True), name
        assert "fs.delete-root" in decision["rules"], name
    odd = {
        "nul": (b'{"command": "rm -rf /\\u0000 ls"}', False),
        "lone surrogate": (b'{"command": "rm -rf / \\ud800"}', False),
        "huge string": (b'{"command": "echo ' + b"a" * 3_000_000 + b'"}', True),
        "many words": (b'{"command": "echo ' + b"a " * 500_000 + b'"}', True),
    }
    for name, (args, harmless) in odd.items():
        status, reply = post(socket_path, call_body(args))
        assert status == 200, name
        # Held for the owner (an ask), or answered; only a harmless echo runs.
        verdict = "ask" if reply["status"] == "pending" else reply["answer"]["verdict"]
        assert verdict in (("allow", "ask", "deny") if harmless else ("ask", "deny")), name


@pytest.mark.slow
def test_a_hook_gets_the_hard_line_for_a_wrapper_chain_through_the_service(
    make_service: Callable[..., ServiceProcess], env: Env
) -> None:
    make_service("--workers", "0")
    code, decision = run_hook(env, hook_payload("env " * 1024 + "rm -rf /"))
    assert (code, decision["verdict"], decision["hardline"]) == (4, "deny", True)
    assert decision["code"] != "gate-unreachable"
    assert os.path.exists(env["REDLINE_HOME"])
