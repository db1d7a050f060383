"""`--enforce` (or `REDLINE_HOOK_ENFORCE=1`): Claude Code's allowed Bash calls
come back as `updatedInput` that runs the same command under `redline run`,
with a ticket; `redline install claude-code --enforce` writes the flag into
the hook's command line and `redline doctor` runs the rewrite."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hookkit import Env, run_process

from redline.hooks.enforce import redline_argv
from redline.sandbox.level import NAMESPACES, probe


def payload(tool: str, tool_input: dict[str, Any], cwd: str) -> dict[str, Any]:
    return {
        "session_id": "s1",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_1",
    }


def hook(
    env: Env, tool: str, tool_input: dict[str, Any], cwd: Path, *flags: str
) -> dict[str, Any] | None:
    done = run_process("claude-code", payload(tool, tool_input, str(cwd)), env, *flags)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if done.stdout else None


def test_an_allowed_bash_call_is_wrapped_and_runs_sandboxed(env: Env, tmp_path: Path) -> None:
    """Through `redline run` (`REDLINE_ENFORCE_LAUNCH=run`, or no namespaces)."""
    ws = tmp_path / "ws"
    ws.mkdir()
    enforced = {**env, "REDLINE_HOOK_ENFORCE": "1", "REDLINE_ENFORCE_LAUNCH": "run"}
    answer = hook(enforced, "Bash", {"command": "echo hi > out", "description": "d"}, ws)
    assert answer is not None
    output = answer["hookSpecificOutput"]
    assert (output["permissionDecision"], output["updatedInput"]["description"]) == ("allow", "d")
    argv = shlex.split(output["updatedInput"]["command"])
    assert argv[0] == f"REDLINE_HOME={env['REDLINE_HOME']}"
    nonce = argv[7]
    assert argv[1:] == redline_argv(["run", "--ticket", nonce, "--session", "s1",
                                     "--shell", "echo hi > out"])  # fmt: skip
    assert argv[1:3] == [sys.executable, "-I"]
    assert (Path(env["REDLINE_HOME"]) / "tickets" / nonce).exists()
    ran = subprocess.run(  # as Claude Code's Bash tool runs it
        ["bash", "-c", output["updatedInput"]["command"]], cwd=ws, env=enforced,
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert (ran.returncode, (ws / "out").read_text()) == (0, "hi\n"), ran.stderr
    assert not (Path(env["REDLINE_HOME"]) / "tickets" / nonce).exists()


def test_without_the_switch_an_allow_still_passes_no_opinion(env: Env, tmp_path: Path) -> None:
    assert hook(env, "Bash", {"command": "ls"}, tmp_path) is None


def test_a_deny_and_other_tools_are_not_wrapped(env: Env, tmp_path: Path) -> None:
    enforced = {**env, "REDLINE_HOOK_ENFORCE": "1"}
    denied = hook(enforced, "Bash", {"command": "rm -rf /"}, tmp_path)
    assert denied is not None
    assert denied["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "updatedInput" not in denied["hookSpecificOutput"]
    assert hook(enforced, "Read", {"file_path": str(tmp_path / "x")}, tmp_path) is None


def test_the_flag_turns_it_on_and_the_wrapper_ignores_a_planted_redline(
    env: Env, tmp_path: Path
) -> None:
    """`--enforce` on the hook's command line; the rewrite runs in the
    agent's directory, where a `redline/` of its own is never loaded."""
    ws = tmp_path / "ws"
    (ws / "redline").mkdir(parents=True)
    (ws / "redline" / "__init__.py").write_text("")
    (ws / "redline" / "__main__.py").write_text("open('PLANTED', 'w').close()\n")
    via_run = {**env, "REDLINE_ENFORCE_LAUNCH": "run"}
    answer = hook(via_run, "Bash", {"command": "echo ok > out"}, ws, "--enforce")
    assert answer is not None
    command = answer["hookSpecificOutput"]["updatedInput"]["command"]
    ran = subprocess.run(
        ["bash", "-c", command], cwd=ws, env={"PATH": env["PATH"], "HOME": env["HOME"]},
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert (ran.returncode, (ws / "out").read_text()) == (0, "ok\n"), ran.stderr
    assert not (ws / "PLANTED").exists()


def test_install_writes_the_flag_and_doctor_runs_the_rewrite(env: Env, tmp_path: Path) -> None:
    from redline.hooks.doctor import diagnose
    from redline.hooks.install import Options, install, uninstall
    from redline.hooks.install.jsonhooks import installed

    home = tmp_path / "home"
    install("claude-code", home=str(home), options=Options(enforce=True), environ=env)
    path = home / ".claude" / "settings.json"
    [(_, command)] = installed("claude-code", str(path))
    assert "--enforce" in shlex.split(command)
    [finding] = [f for f in diagnose(str(home), None, env) if f.host == "claude-code"]
    assert finding.ok, finding.detail
    assert "enforcing: allowed commands run " in finding.detail
    tickets = Path(env["REDLINE_HOME"]) / "tickets"  # none, or the sample's was used
    assert not tickets.exists() or not list(tickets.iterdir())
    uninstall("claude-code", home=str(home), environ=env)
    assert not path.exists()


def test_doctor_reports_an_enforcing_hook_whose_rewrite_is_missing(env: Env) -> None:
    from redline.hooks.doctor import enforcement

    ok, detail = enforcement(json.dumps({"hookSpecificOutput": {}}), env)
    assert (ok, detail) == (
        False, "enforcement is on (`--enforce`) but the allowed `ls` was not rewritten"
    )  # fmt: skip


@pytest.mark.parametrize("host", ["codex", "gemini", "hermes"])
def test_enforce_is_refused_where_the_hook_cannot_rewrite(
    env: Env, tmp_path: Path, host: str
) -> None:
    from redline.hooks.install import Options, install
    from redline.hooks.install.files import ConfigError

    with pytest.raises(ConfigError, match="--enforce is for claude-code"):
        install(host, home=str(tmp_path / "home"), options=Options(enforce=True), environ=env)


@pytest.mark.skipif(probe().name != NAMESPACES, reason="needs the namespace sandbox")
def test_with_namespaces_the_hook_writes_the_bwrap_launch_itself(env: Env, tmp_path: Path) -> None:
    """No second Python: the rewrite is bwrap's own launch, with the scrubbed
    environment, the terminal filter and the process bound; it runs the
    command in the sandbox and passes its exit status through; the level is
    in the hook's log entry."""
    ws = tmp_path / "ws"
    (ws / ".git").mkdir(parents=True)
    secret = {**env, "DEPLOY_TOKEN": "canary-secret", "ORDINARY": "plain"}
    script = "echo ${DEPLOY_TOKEN:-absent} ${ORDINARY:-absent} > out; touch ~/x 2>/dev/null; exit 7"
    answer = hook(secret, "Bash", {"command": script}, ws, "--enforce")
    assert answer is not None
    command = answer["hookSpecificOutput"]["updatedInput"]["command"]
    words = shlex.split(command)
    assert (words[0], words[-3], words[-1]) == ("(", "9<", ")") and "exec" in words
    assert "--clearenv" in words and "--seccomp" in words and "--die-with-parent" in words
    assert "canary-secret" not in command
    assert not (Path(env["REDLINE_HOME"]) / "tickets").exists()
    # as Claude Code's Bash tool runs it: in the call's directory, its own environment
    ran = subprocess.run(
        ["bash", "-c", command], cwd=ws, env={**secret, "SNEAKY_TOKEN": "also-gone"},
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert ran.returncode == 7, ran.stderr
    assert (ws / "out").read_text() == "absent plain\n"  # nor the shell's own SNEAKY_TOKEN
    home = Path(env["HOME"])
    if not str(home).startswith(("/tmp/", "/var/tmp/")):
        assert not (home / "x").exists()
    from redline.audit.recorder import open_log
    from redline.audit.store import Query

    store = open_log(environ=env)
    try:
        [entry] = [e.record for e in store.query(Query())]
    finally:
        store.close()
    logged = json.loads(entry.args) if isinstance(entry.args, str) else entry.args
    assert logged["enforcement"] == NAMESPACES and logged["command"] == script
