"""Every way a hook can fail ends in a block the host understands: exit 2
with the reason on stderr (or a JSON deny for the generic hook), never 0
without a deny, never 1 (which Claude Code, Codex and Gemini CLI would run)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hookkit import Env, run_inproc, run_process

from redline.hooks.install import hook_command

CLAUDE = {
    "session_id": "s",
    "cwd": "/work/project",
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "ls"},
    "tool_use_id": "t",
}
HOSTS = ["claude-code", "codex", "gemini"]  # Hermes reads stdout only: test_hermes_failclosed.py

BAD_INPUT = [
    (b"", "the hook input is empty; expected a JSON object on stdin"),
    (b"not json", "the hook input is not valid JSON (Expecting value: line 1 column 1 (char 0))"),
    (json.dumps(CLAUDE).encode()[:40], "the hook input is not valid JSON"),
    (b"[1, 2]", "the hook input must be a JSON object, not list"),
    (b"\xff\xfe", "the hook input is not utf-8 text"),
    (b'{"session_id": "s"}', "the hook input has no `tool_name`"),
]


@pytest.mark.parametrize("host", HOSTS)
@pytest.mark.parametrize(("data", "why"), BAD_INPUT)
def test_bad_input_blocks(env: Env, host: str, data: bytes, why: str) -> None:
    reply = run_inproc(host, data, env)
    assert (reply.code, reply.stdout) == (2, "")
    assert reply.stderr.startswith("redline blocked this call: " + why)


def test_unknown_event_blocks(env: Env) -> None:
    reply = run_inproc("claude-code", {**CLAUDE, "hook_event_name": "Stop"}, env)
    assert reply == (
        2,
        "",
        "redline blocked this call: unknown hook event `Stop`; this hook "
        "handles `PreToolUse`, `PostToolUse`\n",
    )


def test_tool_input_of_the_wrong_type_blocks(env: Env) -> None:
    reply = run_inproc("claude-code", {**CLAUDE, "tool_input": "ls"}, env)
    assert reply.code == 2 and "`tool_input` must be a JSON object, not str" in reply.stderr


def test_broken_policy_denies(make_env: Callable[..., Env], tmp_path: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text("version: 1\nrules: [\n")
    env = make_env(REDLINE_POLICY=str(policy))
    reply = run_inproc("claude-code", {**CLAUDE}, env)
    out = json.loads(reply.stdout)["hookSpecificOutput"]
    assert (reply.code, out["permissionDecision"]) == (0, "deny")
    assert out["permissionDecisionReason"].startswith(
        "redline refused this call (`policy-unavailable`): the approval policy cannot be loaded"
    )


def test_missing_policy_denies(make_env: Callable[..., Env], tmp_path: Path) -> None:
    env = make_env(REDLINE_POLICY=str(tmp_path / "nowhere.yaml"))
    reply = run_inproc("codex", {**CLAUDE}, env)
    assert (
        "`policy-unavailable`"
        in json.loads(reply.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
    )


def test_unwritable_log_denies(make_env: Callable[..., Env], tmp_path: Path) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    env = make_env(REDLINE_STORE=f"sqlite:///{a_file}/sub/log.sqlite3")
    reply = run_inproc("claude-code", {**CLAUDE}, env)
    out = json.loads(reply.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny"
    assert (
        "(`log-unavailable`): the approval log cannot be written" in out["permissionDecisionReason"]
    )


def test_log_that_is_not_a_database_denies(make_env: Callable[..., Env], tmp_path: Path) -> None:
    bad = tmp_path / "log.sqlite3"
    bad.write_bytes(b"this is not a database" * 100)
    env = make_env(REDLINE_STORE=f"sqlite:///{bad}")
    for host in ["claude-code", "gemini", "hermes"]:
        reply = run_inproc(host, {**CLAUDE, "hook_event_name": None}, env)
        assert "log-unavailable" in reply.stdout, host


def test_internal_error_blocks(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr("redline.hooks.judge.decide", broken)
    for host in HOSTS:
        reply = run_inproc(host, {**CLAUDE, "hook_event_name": None}, env)
        assert reply.code == 2
        assert reply.stderr.startswith(
            "redline blocked this call: the gate hit an internal error (RuntimeError: boom)"
        )


def test_bad_arguments_block(env: Env) -> None:
    for flags in [("nobody",), ("claude-code", "--bogus"), ("claude-code", "--ask", "maybe")]:
        done = run_process(flags[0], CLAUDE, env, *flags[1:])
        assert done.returncode == 2 and "redline blocked this call" in done.stderr


def test_garbage_as_a_real_process(env: Env) -> None:
    for host in HOSTS:
        done = run_process(host, "{truncated", env)
        assert (done.returncode, done.stdout) == (2, "")


@pytest.mark.parametrize("host", HOSTS)
def test_a_missing_interpreter_blocks(env: Env, host: str, tmp_path: Path) -> None:
    import subprocess

    command = hook_command(host, python=str(tmp_path / "gone" / "python"), environ=env)
    done = subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps(CLAUDE),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "redline: the hook could not run; the call is blocked" in done.stderr


def test_an_interpreter_without_redline_blocks(env: Env) -> None:
    import subprocess

    command = hook_command("claude-code", python="/usr/bin/python3", environ=env)
    done = subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps(CLAUDE),
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": "/usr/bin:/bin", "PYTHONNOUSERSITE": "1"},
    )
    assert done.returncode == 2


def test_the_wrapper_keeps_a_deliberate_block_as_it_is(env: Env) -> None:
    import subprocess
    import sys

    command = hook_command("claude-code", python=sys.executable, environ=env)
    done = subprocess.run(
        ["/bin/sh", "-c", command],
        input="garbage",
        capture_output=True,
        text=True,
        check=False,
        env=dict(env),
    )
    assert done.returncode == 2
    assert "could not run" not in done.stderr
    assert done.stderr.startswith("redline blocked this call: the hook input is not valid JSON")
