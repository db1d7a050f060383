"""The Hermes plugin asks through Hermes only where Hermes asks a person, and
logs what Hermes says became of an asked call (its `post_tool_call` status)."""

from __future__ import annotations

import types
from typing import Any

import pytest
from hookkit import Env, log_entries

from redline.hooks import hermes

WORKDIR = "/home/agent/.hermes"
FORCE = {"command": "git push --force origin main", "workdir": WORKDIR}


def hermes_approval(
    monkeypatch: pytest.MonkeyPatch,
    *,
    interactive: bool = False,
    gateway: bool = False,
    bypass: bool = False,
    frozen_yolo: bool = False,
) -> None:
    """Stand in for Hermes's `tools.approval`, as the plugin finds it in
    Hermes's process (same names as Hermes 0.19)."""
    approval = types.ModuleType("tools.approval")
    approval._YOLO_MODE_FROZEN = frozen_yolo  # type: ignore[attr-defined]
    approval.is_approval_bypass_active = lambda: bypass  # type: ignore[attr-defined]
    approval._is_interactive_cli = lambda: interactive  # type: ignore[attr-defined]
    approval._is_gateway_approval_context = lambda: gateway  # type: ignore[attr-defined]
    monkeypatch.setitem(__import__("sys").modules, "tools.approval", approval)


@pytest.fixture
def plugin_env(env: Env, monkeypatch: pytest.MonkeyPatch) -> Env:
    for name in ("HERMES_YOLO_MODE", "HERMES_CRON_SESSION", "REDLINE_SERVICE", "REDLINE_HOOK_ASK"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env


def ask(call_id: str = "c1") -> dict[str, Any] | None:
    return hermes.pre_tool_call(
        tool_name="terminal", args=FORCE, session_id="s1", tool_call_id=call_id
    )


def refused_as_needing_approval(reply: dict[str, Any] | None) -> bool:
    return (
        reply is not None
        and reply["action"] == "block"
        and reply["message"].startswith(
            "redline: this call needs the owner's approval (`vcs.push-force`) "
            "and this Hermes plugin cannot ask the owner here"
        )
    )


def test_an_ask_goes_to_hermes_where_it_asks_a_person(
    plugin_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    hermes_approval(monkeypatch, interactive=True)
    assert ask() is not None and ask()["action"] == "approve"  # type: ignore[index]
    hermes_approval(monkeypatch, gateway=True)
    assert ask()["action"] == "approve"  # type: ignore[index]


@pytest.mark.parametrize(
    ("env_var", "state"),
    [
        ("HERMES_YOLO_MODE", {"interactive": True}),  # `--yolo`, and `hermes -z` sets it
        ("HERMES_CRON_SESSION", {"interactive": True}),  # cron_mode: approve approves alone
        (None, {"interactive": True, "bypass": True}),  # approvals.mode: off, gateway /yolo
        (None, {"interactive": True, "frozen_yolo": True}),
        (None, {}),  # neither a terminal nor a gateway
    ],
)
def test_an_ask_is_refused_where_hermes_approves_by_itself(
    plugin_env: Env, monkeypatch: pytest.MonkeyPatch, env_var: str | None, state: dict[str, bool]
) -> None:
    if env_var:
        monkeypatch.setenv(env_var, "1")
    hermes_approval(monkeypatch, **state)
    assert refused_as_needing_approval(ask())


def test_an_ask_is_refused_when_hermes_cannot_be_read(
    plugin_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(__import__("sys").modules, "tools.approval", raising=False)
    assert refused_as_needing_approval(ask())
    broken = types.ModuleType("tools.approval")  # a Hermes whose names changed
    monkeypatch.setitem(__import__("sys").modules, "tools.approval", broken)
    assert refused_as_needing_approval(ask())


def test_with_a_service_every_call_goes_to_it(
    plugin_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REDLINE_SERVICE", "1")
    hermes_approval(monkeypatch, interactive=True)
    reply = hermes.pre_tool_call(
        tool_name="terminal", args={"command": "ls", "workdir": WORKDIR}, session_id="s1"
    )
    assert reply is not None and reply["action"] == "block"
    assert "gate unverified (no-pinned-key)" in reply["message"]


def outcomes(env: Env) -> list[tuple[str, str | None, str | None]]:
    return [(e.record.kind, e.record.verdict, e.record.outcome) for e in log_entries(env)]


@pytest.mark.parametrize(
    ("status", "message", "outcome"),
    [
        ("ok", None, ("allow", "approved")),
        ("error", None, ("allow", "approved")),  # it ran and failed: it was approved
        (
            "blocked",
            "BLOCKED: Action timed out without user response. Silence...",
            ("deny", "timeout"),
        ),
        ("blocked", "BLOCKED: Action denied by user. The user has NOT...", ("deny", "rejected")),
        ("blocked", "BLOCKED: User denied this potentially dangerous action", ("deny", "rejected")),
        (
            "blocked",
            "BLOCKED: Tool 'terminal' requires approval (...) but no",
            ("deny", "gate-unreachable"),
        ),
    ],
)
def test_post_tool_call_logs_what_hermes_says(
    plugin_env: Env,
    monkeypatch: pytest.MonkeyPatch,
    status: str,
    message: str | None,
    outcome: tuple[str, str],
) -> None:
    hermes_approval(monkeypatch, interactive=True)
    assert ask("c7")["action"] == "approve"  # type: ignore[index]
    hermes.post_tool_call(
        tool_name="terminal",
        args=FORCE,
        session_id="s1",
        tool_call_id="c7",
        status=status,
        error_message=message,
    )
    assert outcomes(plugin_env) == [("decision", "ask", None), ("outcome", *outcome)]


def test_a_rejection_hermes_reports_is_remembered_for_the_session(
    plugin_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    hermes_approval(monkeypatch, interactive=True)
    ask("c1")
    hermes.post_tool_call(
        tool_name="terminal",
        args=FORCE,
        session_id="s1",
        tool_call_id="c1",
        status="blocked",
        error_message="BLOCKED: Action denied by user.",
    )
    again = ask("c2")
    assert again is not None and again["action"] == "block"
    assert "the owner rejected this same effect earlier" in again["message"]


def test_after_a_timeout_hermes_reports_the_retry_is_asked_again(
    plugin_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A timeout is not a rejection (F-GATE-7): the owner is asked again."""
    hermes_approval(monkeypatch, interactive=True)
    ask("c1")
    hermes.post_tool_call(
        tool_name="terminal",
        args=FORCE,
        session_id="s1",
        tool_call_id="c1",
        status="blocked",
        error_message="BLOCKED: Action timed out without user response.",
    )
    again = ask("c2")
    assert again is not None and again["action"] == "approve"


def test_no_status_claims_nothing(plugin_env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    hermes_approval(monkeypatch, interactive=True)
    ask("c1")
    hermes.post_tool_call(tool_name="terminal", args=FORCE, session_id="s1", tool_call_id="c1")
    assert outcomes(plugin_env) == [("decision", "ask", None)]
