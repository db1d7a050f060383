"""`REDLINE_HOOK_ENFORCE=1`: Claude Code's allowed Bash calls come back as
`updatedInput` that runs the same command under `redline run`, with a ticket."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

from hookkit import Env, run_process


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


def hook(env: Env, tool: str, tool_input: dict[str, Any], cwd: Path) -> dict[str, Any] | None:
    done = run_process("claude-code", payload(tool, tool_input, str(cwd)), env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if done.stdout else None


def test_an_allowed_bash_call_is_wrapped_and_runs_sandboxed(env: Env, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    enforced = {**env, "REDLINE_HOOK_ENFORCE": "1"}
    answer = hook(enforced, "Bash", {"command": "echo hi > out", "description": "d"}, ws)
    assert answer is not None
    output = answer["hookSpecificOutput"]
    assert (output["permissionDecision"], output["updatedInput"]["description"]) == ("allow", "d")
    argv = shlex.split(output["updatedInput"]["command"])
    nonce = argv[5]
    assert argv == [sys.executable, "-m", "redline", "run", "--ticket", nonce,
                    "--session", "s1", "--shell", "echo hi > out"]  # fmt: skip
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
