"""Signed answers: only an answer signed by the pinned key, bound to this
request, nonce and call, and still in date, is believed. A hook facing a
service that sends anything else gets `gate-unverified (<code>)`."""

from __future__ import annotations

import base64
import json
import os
import socketserver
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from servicekit import hook_payload, make_env, run_hook

from redline.approve.client import Unverified, call_digest, decide_via_service, verify
from redline.approve.paths import ServicePaths
from redline.approve.signing import Signer, encode_public
from redline.decision import Decision, Verdict

CALL = call_digest("Bash", {"command": "ls"}, "/srv", "s1", None, "generic")
NONCE = "n" * 32
ALLOW = Decision(Verdict.ALLOW, reason="no rule matched").to_json()


@pytest.fixture
def signer(tmp_path: Path) -> Signer:
    return Signer.load_or_create(ServicePaths(str(tmp_path / "redline")))


def sign(signer: Signer, **change: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "request": "r1",
        "nonce": NONCE,
        "call": CALL,
        "outcome": "auto",
        "verdict": "allow",
        "decision": ALLOW,
    }
    fields.update(change)
    return signer.sign(**fields).envelope


def code_of(envelope: Any, signer: Signer, request: str | None = "r1") -> str:
    with pytest.raises(Unverified) as caught:
        verify(envelope, signer.public_raw, request=request, nonce=NONCE, call=CALL)
    return caught.value.code


def test_a_good_answer_verifies(signer: Signer) -> None:
    body = verify(sign(signer), signer.public_raw, request="r1", nonce=NONCE, call=CALL)
    assert (body["verdict"], body["outcome"], body["key"]) == ("allow", "auto", signer.key_id)


def test_the_signed_text_is_the_answer_as_json(signer: Signer) -> None:
    # The lean route writes this text instead of encoding the answer again.
    decision = Decision(Verdict.DENY, reason="écrit « ailleurs »").to_json()
    signed = signer.sign(
        request="r1", nonce=NONCE, call=CALL, outcome="auto", verdict="deny", decision=decision
    )
    assert json.loads(signed.text) == signed.envelope["answer"]
    assert signed.envelope["sig"] == signed.sig
    body = verify(signed.envelope, signer.public_raw, request="r1", nonce=NONCE, call=CALL)
    assert body["decision"]["reason"] == "écrit « ailleurs »"


def test_a_forged_answer_is_refused(signer: Signer) -> None:
    envelope = sign(signer, verdict="deny")
    envelope["answer"]["verdict"] = "allow"  # edited after signing
    assert code_of(envelope, signer) == "bad-signature"
    envelope = sign(signer)
    envelope["sig"] = base64.b64encode(b"\0" * 64).decode()
    assert code_of(envelope, signer) == "bad-signature"


def test_an_answer_from_another_key_is_refused(signer: Signer) -> None:
    other = Signer(Ed25519PrivateKey.generate())
    assert code_of(sign(other), signer) == "unknown-key"
    forged = sign(other)
    forged["answer"]["key"] = signer.key_id  # claims the right key, signed by another
    assert code_of(forged, signer) == "bad-signature"


def test_a_replayed_answer_is_refused(signer: Signer) -> None:
    assert code_of(sign(signer, nonce="m" * 32), signer) == "replayed"


def test_an_expired_answer_is_refused(signer: Signer) -> None:
    assert code_of(sign(signer, now=time.time() - 3600), signer) == "expired"


def test_a_mismatched_answer_is_refused(signer: Signer) -> None:
    assert code_of(sign(signer, request="r2"), signer) == "request-mismatch"
    other_call = call_digest("Bash", {"command": "rm -rf /srv"}, "/srv", "s1", None, "generic")
    assert code_of(sign(signer, call=other_call), signer) == "call-mismatch"
    assert code_of({"sig": "x"}, signer) == "malformed"


def test_the_private_key_is_the_owners_alone(tmp_path: Path) -> None:
    paths = ServicePaths(str(tmp_path / "redline"))
    first = Signer.load_or_create(paths)
    again = Signer.load_or_create(paths)
    assert first.key_id == again.key_id
    assert os.stat(paths.private_key).st_mode & 0o777 == 0o600
    with open(paths.public_key, encoding="ascii") as source:
        assert source.read().strip() == encode_public(first.public_raw)


Forge = Callable[[Signer, dict[str, Any]], dict[str, Any]]


@pytest.fixture
def fake_service(tmp_path: Path, signer: Signer) -> Iterator[Callable[[Forge], str]]:
    """A service on the hook socket that answers with whatever `forge` makes
    of the request; returns the home for `decide_via_service`."""
    home = str(tmp_path / "redline")
    paths = ServicePaths(home)
    servers: list[socketserver.UnixStreamServer] = []

    def start(forge: Forge) -> str:
        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                length = 0
                while (line := self.rfile.readline().strip()) != b"":
                    name, _, value = line.decode().partition(":")
                    if name.lower() == "content-length":
                        length = int(value)
                request = json.loads(self.rfile.read(length))
                body = json.dumps(forge(signer, request)).encode()
                head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n\r\n"
                self.wfile.write(head.encode() + body)

        server = socketserver.UnixStreamServer(paths.hook_socket, Handler)
        servers.append(server)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return home

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def _digest(request: dict[str, Any]) -> str:
    fields = ("tool", "args", "cwd", "session", "context", "agent")
    return call_digest(*(request[f] for f in fields))


def forge(signer: Signer, request: dict[str, Any], **change: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "request": "r",
        "nonce": request["nonce"],
        "call": _digest(request),
        "outcome": "auto",
        "verdict": "allow",
        "decision": ALLOW,
    }
    fields.update(change)
    return signer.sign(**fields).envelope


def _bad_signature(s: Signer, r: dict[str, Any]) -> dict[str, Any]:
    return {**forge(s, r), "sig": base64.b64encode(os.urandom(64)).decode()}


FORGERIES: dict[str, Forge] = {
    "bad-signature": _bad_signature,
    "replayed": lambda s, r: forge(s, r, nonce="0" * 32),
    "expired": lambda s, r: forge(s, r, now=time.time() - 600),
    "call-mismatch": lambda s, r: forge(s, r, call="0" * 64),
    "unknown-key": lambda s, r: forge(Signer(Ed25519PrivateKey.generate()), r),
}


@pytest.mark.parametrize("code", sorted(FORGERIES))
def test_a_hook_blocks_what_it_cannot_verify(
    fake_service: Callable[[Forge], str], code: str
) -> None:
    home = fake_service(lambda s, r: {"status": "answered", **FORGERIES[code](s, r)})
    decision = decide_via_service("Bash", {"command": "ls"}, cwd="/srv", session="s1", home=home)
    assert (decision.verdict, decision.code) == (Verdict.DENY, f"gate-unverified ({code})")
    assert f"`gate-unverified ({code})`" in decision.repair
    # and a real hook process, as an agent's host runs it
    env = make_env(Path(home).parent, REDLINE_HOME=home)
    exit_code, shown = run_hook(env, hook_payload("ls /srv"))
    assert (exit_code, shown["verdict"], shown["code"]) == (4, "deny", f"gate-unverified ({code})")
