"""One approval port: the shipped policies' `approval.port` (which the
never-run rule "listening on the approval service's port" protects) is the
port `redline serve --http` listens on by default."""

from __future__ import annotations

from pathlib import Path

import pytest

import redline.policy
from redline.approve.defaults import HTTP_HOST, HTTP_PORT
from redline.cli.serve import http_spec
from redline.gate.actions import ToolCall
from redline.gatekeeper import Gate
from redline.policy.load import load_policy

SHIPPED = sorted(Path(redline.policy.__file__).parent.glob("*.yaml"))


def test_every_shipped_policy_is_checked() -> None:
    assert {p.name for p in SHIPPED} >= {"default.yaml", "record_only.yaml"}


@pytest.mark.parametrize("policy", SHIPPED, ids=lambda p: p.name)
def test_shipped_policies_name_the_port_serve_uses(policy: Path) -> None:
    port = load_policy(policy).approval_port
    assert port == HTTP_PORT
    assert http_spec("", port) == f"{HTTP_HOST}:{HTTP_PORT}"


def test_a_bare_http_flag_follows_the_policy_and_an_explicit_one_wins() -> None:
    assert http_spec("", 9999) == f"{HTTP_HOST}:9999"
    assert http_spec("", None) == f"{HTTP_HOST}:{HTTP_PORT}"
    assert http_spec("127.0.0.1:8000", HTTP_PORT) == "127.0.0.1:8000"


def test_the_default_policy_refuses_to_listen_on_that_port() -> None:
    gate = Gate()
    command = f"python3 -m http.server --bind 127.0.0.1 {HTTP_PORT}"
    decision = gate.check(ToolCall("Bash", {"command": command}, "/tmp", None, "port"))
    assert str(decision.verdict) == "deny", decision
