"""Hermes reads only a hook's stdout: a non-zero exit, stderr, garbage and a
timeout all let the call run. So every way the Hermes hook can fail must
print Hermes's block object on stdout: in the hook process, at its start,
and in the `sh` wrapper `install` writes around it when Python cannot run."""

from __future__ import annotations

import io
import json
import os
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hookkit import Env, run_inproc, run_process

from redline.hooks.install import FAILED_TO_RUN, Options
from redline.hooks.install.hermes import BLOCK_OBJECT, COULD_NOT_RUN, command
from redline.hooks.install.hermes import install as install_hermes
from redline.hooks.install.service import ConfigError

CALL = {
    "hook_event_name": "pre_tool_call",
    "tool_name": "terminal",
    "tool_input": {"command": "ls", "workdir": "/"},
    "session_id": "s",
    "cwd": "/",
    "extra": {},
}


def block_message(stdout: str) -> str:
    """The message of Hermes's block object, which must be all of stdout."""
    reply = json.loads(stdout)
    assert set(reply) == {"action", "message"} and reply["action"] == "block", stdout
    message: str = reply["message"]
    return message


BAD_INPUT = [
    (b"", "the hook input is empty; expected a JSON object on stdin"),
    (b"not json", "the hook input is not valid JSON (Expecting value: line 1 column 1 (char 0))"),
    (b"[1, 2]", "the hook input must be a JSON object, not list"),
    (b"\xff\xfe", "the hook input is not utf-8 text"),
    (b'{"session_id": "s"}', "the hook input has no `tool_name`"),
    (json.dumps({**CALL, "hook_event_name": "Stop"}).encode(), "unknown hook event `Stop`"),
    (json.dumps({**CALL, "tool_input": "ls"}).encode(), "`tool_input` must be a JSON object"),
]


@pytest.mark.parametrize(("data", "why"), BAD_INPUT)
def test_bad_input_prints_the_block_object(env: Env, data: bytes, why: str) -> None:
    reply = run_inproc("hermes", data, env)
    assert reply.code == 0
    assert block_message(reply.stdout).startswith("redline blocked this call: " + why)


def test_a_broken_policy_prints_the_block_object(
    make_env: Callable[..., Env], tmp_path: Path
) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text("version: 1\nrules: [\n")
    reply = run_inproc("hermes", CALL, make_env(REDLINE_POLICY=str(policy)))
    assert reply.code == 0
    assert block_message(reply.stdout).startswith(
        "redline refused this call (`policy-unavailable`): the approval policy cannot be loaded"
    )


def test_an_unwritable_log_prints_the_block_object(
    make_env: Callable[..., Env], tmp_path: Path
) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    env = make_env(REDLINE_STORE=f"sqlite:///{a_file}/sub/log.sqlite3")
    reply = run_inproc("hermes", CALL, env)
    assert "(`log-unavailable`): the approval log cannot be written" in block_message(reply.stdout)


def test_an_internal_error_prints_the_block_object(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr("redline.hooks.judge.decide", broken)
    reply = run_inproc("hermes", CALL, env)
    assert reply.code == 0
    assert block_message(reply.stdout).startswith(
        "redline blocked this call: the gate hit an internal error (RuntimeError: boom)"
    )


@pytest.mark.parametrize(
    ("flags", "why"),
    [
        (("--bogus",), "redline blocked this call: the hook's arguments: unknown option `--bogus`"),
        (("--ask", "maybe"), "redline blocked this call: the hook's arguments: unknown ask mode"),
        (("--service-key",), "redline blocked this call: the hook's arguments: `--service-key`"),
    ],
)
def test_bad_arguments_print_the_block_object(env: Env, flags: tuple[str, ...], why: str) -> None:
    done = run_process("hermes", CALL, env, *flags)
    assert done.returncode == 0
    assert block_message(done.stdout).startswith(why)


def test_a_failure_at_start_prints_the_block_object(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from redline.cli import hook

    def broken(host: str) -> Any:
        raise ImportError("no module named redline.hooks.hermes")

    monkeypatch.setattr(hook, "adapter_for", broken)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(CALL).encode())))
    assert hook.fast_main(["hermes"]) == 0
    assert block_message(capsys.readouterr().out) == (
        "redline blocked this call: the hook failed to start: no module named redline.hooks.hermes"
    )


def test_garbage_as_a_real_process(env: Env) -> None:
    done = run_process("hermes", "{truncated", env)
    assert done.returncode == 0
    assert block_message(done.stdout).startswith(
        "redline blocked this call: the hook input is not valid JSON"
    )


def test_a_service_that_cannot_be_used_prints_the_block_object(env: Env) -> None:
    done = run_process("hermes", CALL, env, "--service")
    assert done.returncode == 0
    assert block_message(done.stdout).startswith(
        "redline refused this call (`av-approval: gate unverified (no-pinned-key)`)"
    )


def as_hermes_runs(hook: str, data: str, env: Env) -> subprocess.CompletedProcess[str]:
    """What Hermes does: split the command into words, no shell, stdin JSON."""
    return subprocess.run(
        shlex.split(os.path.expanduser(hook)),
        input=data,
        capture_output=True,
        text=True,
        env=dict(env),
        timeout=120,
        check=False,
    )


def test_the_installed_command_passes_the_answer_on(env: Env) -> None:
    hook = command(Options(), env)
    allowed = as_hermes_runs(hook, json.dumps(CALL), env)
    assert (allowed.returncode, allowed.stdout) == (0, "\n")
    hard = {**CALL, "tool_input": {"command": "rm -rf /", "workdir": "/"}}
    denied = as_hermes_runs(hook, json.dumps(hard), env)
    assert denied.returncode == 0
    assert "(`fs.delete-root`)" in block_message(denied.stdout)
    garbage = as_hermes_runs(hook, "{truncated", env)
    assert block_message(garbage.stdout).startswith("redline blocked this call: the hook input")


def test_a_missing_interpreter_prints_the_block_object(env: Env, tmp_path: Path) -> None:
    hook = command(Options(), env, python=str(tmp_path / "gone" / "python"))
    done = as_hermes_runs(hook, json.dumps(CALL), env)
    assert (done.returncode, done.stdout) == (2, BLOCK_OBJECT + "\n")
    assert block_message(done.stdout) == COULD_NOT_RUN
    assert FAILED_TO_RUN in done.stderr


def test_an_interpreter_without_redline_prints_the_block_object(env: Env) -> None:
    hook = command(Options(), env, python="/usr/bin/python3")
    done = as_hermes_runs(hook, json.dumps(CALL), {"PATH": "/usr/bin:/bin"})
    assert (done.returncode, done.stdout) == (2, BLOCK_OBJECT + "\n")


def test_half_an_answer_is_replaced_by_the_block_object(env: Env, tmp_path: Path) -> None:
    """A process that wrote something and then died: its output never reaches
    Hermes (two JSON documents, or a cut one, would read as "no opinion")."""
    python = tmp_path / "python"
    python.write_text('#!/bin/sh\necho \'{"action": "block", "mess\'\nexit 1\n')
    python.chmod(0o755)
    hook = command(Options(), env, python=str(python))
    done = as_hermes_runs(hook, json.dumps(CALL), env)
    assert (done.returncode, done.stdout) == (2, BLOCK_OBJECT + "\n")


def test_install_refuses_a_hold_hermes_would_cut_short(env: Env, tmp_path: Path) -> None:
    options = Options(service=True, service_key="k", hold_timeout_s=400)
    with pytest.raises(ConfigError, match="Hermes stops a hook after 300 s at most"):
        install_hermes(home=str(tmp_path / "home"), project=None, options=options, environ=env)
    assert not (tmp_path / "home" / ".hermes" / "config.yaml").exists()
