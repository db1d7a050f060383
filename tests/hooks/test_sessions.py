"""Session state across hook processes: the host's session id is the gate's
session key, and what the person answered holds for the later calls of that
session, each of which is a new process."""

from __future__ import annotations

import json
import os
from typing import Any

from hookkit import PROJECT, Env, log_entries, run_inproc, run_process

from redline.gate.actions import ToolCall
from redline.gatekeeper import Gate
from redline.hooks.state import SessionFile, record_outcome

FORCE = {"command": "git push --force origin main"}


def claude(
    tool: str,
    tool_input: dict[str, Any],
    session: str = "sess-1",
    event: str = "PreToolUse",
    use_id: str = "toolu_1",
) -> dict[str, Any]:
    return {
        "session_id": session,
        "cwd": PROJECT,
        "hook_event_name": event,
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": use_id,
    }


def answer(env: Env, session: str, call: ToolCall, outcome: str, scope: str = "once") -> None:
    file = SessionFile.of(env["REDLINE_HOME"], "claude-code", session)
    record_outcome(Gate.from_environ(env), file, session, call, outcome, scope)


def verdict_of(stdout: str) -> str | None:
    if not stdout:
        return None
    return str(json.loads(stdout)["hookSpecificOutput"]["permissionDecision"])


def test_a_rejection_holds_for_the_session_in_later_processes(env: Env) -> None:
    answer(
        env,
        "sess-1",
        ToolCall("Write", {"file_path": "/etc/hosts", "content": "x"}, PROJECT, None, "sess-1"),
        "rejected",
    )
    other_spelling = claude("Bash", {"command": "echo 127.0.0.1 x | sudo tee /etc/hosts"})
    done = run_process("claude-code", other_spelling, env)
    out = json.loads(done.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny"
    assert out["permissionDecisionReason"].startswith(
        "redline refused this call (`sensitive.write-system-config`): the owner rejected this "
        "same effect earlier in this session"
    )
    elsewhere = run_process(
        "claude-code", claude("Bash", other_spelling["tool_input"], session="sess-2"), env
    )
    assert verdict_of(elsewhere.stdout) == "ask"


def test_a_session_approval_holds_in_later_processes(env: Env) -> None:
    assert verdict_of(run_process("claude-code", claude("Bash", FORCE), env).stdout) == "ask"
    answer(env, "sess-1", ToolCall("Bash", FORCE, PROJECT, None, "sess-1"), "approved", "session")
    again = run_process("claude-code", claude("Bash", FORCE), env)
    assert (again.returncode, again.stdout) == (0, "")
    other = run_process("claude-code", claude("Bash", FORCE, session="sess-2"), env)
    assert verdict_of(other.stdout) == "ask"


def test_an_asked_call_that_ran_is_logged_as_approved(env: Env) -> None:
    asked = run_inproc("claude-code", claude("Bash", FORCE, use_id="toolu_7"), env)
    assert verdict_of(asked.stdout) == "ask"
    file = SessionFile.of(env["REDLINE_HOME"], "claude-code", "sess-1")
    assert list(file.read()["asks"]) == ["toolu_7"]
    ran = run_inproc(
        "claude-code", claude("Bash", FORCE, event="PostToolUse", use_id="toolu_7"), env
    )
    assert ran == (0, "", "")
    entries = [e.record for e in log_entries(env)]
    assert [(r.kind, r.verdict, r.outcome, r.ref) for r in entries] == [
        ("decision", "ask", None, None),
        ("outcome", "allow", "approved", 1),
    ]
    assert file.read()["asks"] == {}


def test_a_call_that_was_not_asked_records_nothing_after(env: Env) -> None:
    run_inproc("claude-code", claude("Bash", {"command": "ls"}), env)
    run_inproc("claude-code", claude("Bash", {"command": "ls"}, event="PostToolUse"), env)
    assert [e.record.kind for e in log_entries(env)] == ["decision"]


def test_unreadable_state_is_set_aside(env: Env) -> None:
    file = SessionFile.of(env["REDLINE_HOME"], "claude-code", "sess-1")
    os.makedirs(os.path.dirname(file.path))
    with open(file.path, "w") as out:
        out.write("{broken")
    reply = run_inproc("claude-code", claude("Bash", FORCE), env)
    assert verdict_of(reply.stdout) == "ask"
    assert file.read()["version"] == 1
    assert any(".corrupt-" in name for name in os.listdir(os.path.dirname(file.path)))


def test_odd_session_ids_make_safe_file_names(env: Env) -> None:
    path = SessionFile.of(env["REDLINE_HOME"], "codex", "../../etc/passwd").path
    assert os.path.dirname(path) == os.path.join(env["REDLINE_HOME"], "sessions")
