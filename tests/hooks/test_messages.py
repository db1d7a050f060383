"""Codes in the words each host's agent is taught: Hermes agents learn the
`hook-` codes and the service's failures from their approval skill."""

from __future__ import annotations

from pathlib import Path

import pytest

from redline.approve.client import outcome_timeout, unreachable, unverified
from redline.decision import Decision, Verdict
from redline.hooks import messages
from redline.hooks.base import Settings
from redline.hooks.hermes import _block


@pytest.mark.parametrize(
    ("code", "spelled"),
    [
        ("unsupported-execution-context", "hook-unsupported-execution-context"),
        ("execute-code-unbound", "hook-hermes-execute-code-unbound"),
        ("timeout", "hook-timeout"),
        ("gate-unreachable", "approval facade unreachable"),
        ("gate-unverified (bad-signature)", "av-approval: gate unverified (bad-signature)"),
        ("never-run", "never-run"),
        ("no-approver", "no-approver"),
    ],
)
def test_hermes_codes(code: str, spelled: str) -> None:
    assert messages.hermes_code(code) == spelled


def test_unreachable_reads_as_the_seed_says() -> None:
    text = _block(unreachable("connection refused"))["message"]
    assert text.startswith("redline refused this call (`approval facade unreachable`): ")
    assert "with the code `approval facade unreachable`" in text
    assert "gate-unreachable" not in text


def test_unverified_reads_as_the_seed_says() -> None:
    text = _block(unverified("replayed"))["message"]
    assert "(`av-approval: gate unverified (replayed)`)" in text
    assert "with the code `av-approval: gate unverified (replayed)`" in text


def test_timeout_reads_as_the_seed_says() -> None:
    text = _block(outcome_timeout("req-1"))["message"]
    assert text.startswith("redline refused this call (`hook-timeout`): nobody answered in time")
    assert "expired" in text


def test_other_hosts_keep_the_plain_codes() -> None:
    decision = unreachable("connection refused")
    assert "(`gate-unreachable`)" in messages.refusal(decision)


def test_a_decision_without_a_code_is_left_alone() -> None:
    decision = Decision(Verdict.DENY, reason="no", code=None)
    assert messages.in_hermes_words(decision) is decision


@pytest.mark.parametrize(
    ("host", "tool", "context"),
    [
        ("claude-code", "Bash", None),
        ("codex", "Bash", None),
        ("gemini", "run_shell_command", None),
        ("hermes", "terminal", None),
        ("codex", "Bash", "cron"),
    ],
)
def test_a_refused_ask_says_once_that_nobody_can_be_asked(
    host: str, tool: str, context: str | None, tmp_path: Path
) -> None:
    from hookkit import run_inproc

    env = {"REDLINE_HOME": str(tmp_path / "r"), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    if context:
        env["REDLINE_CONTEXT"] = context
    args = {"command": "git push --force origin main"}
    if host == "hermes":
        args["workdir"] = "/srv/app"
        body = {"hook_event_name": "pre_tool_call", "tool_name": tool, "tool_input": args}
    else:
        event = "BeforeTool" if host == "gemini" else "PreToolUse"
        body = {"hook_event_name": event, "tool_name": tool, "tool_input": args, "cwd": "/srv"}
    settings = Settings(ask="deny")
    text = run_inproc(host, {**body, "session_id": "s1"}, env, settings).stdout
    said = text.count("cannot ask the owner here") + text.count("nobody can answer")
    assert (said, text.count("cannot ask for it")) == (1, 0), text
    assert "needs the owner's approval (`vcs.push-force`)" in text
