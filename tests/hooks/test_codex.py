"""Codex `PreToolUse` / `PermissionRequest`: only a deny is honoured on
`PreToolUse`, so an ask must come back as a deny that says approval is needed."""

from __future__ import annotations

import json
from typing import Any

from hookkit import PROJECT, Env, gate_decision, run_inproc, run_process

from redline.hooks import messages
from redline.hooks.base import Settings

PATCH = "*** Begin Patch\n*** Add File: /work/project/hello.txt\n+hi\n*** End Patch\n"


def payload(tool: str, tool_input: dict[str, Any], event: str = "PreToolUse") -> dict[str, Any]:
    body = {
        "session_id": "019a-thread",
        "turn_id": "turn-1",
        "transcript_path": None,
        "cwd": PROJECT,
        "hook_event_name": event,
        "model": "gpt-5-codex",
        "permission_mode": "default",
        "tool_name": tool,
        "tool_input": tool_input,
    }
    if event != "PermissionRequest":
        body["tool_use_id"] = "call_1"
    return body


def deny(reason: str) -> str:
    body = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    }
    return json.dumps(body) + "\n"


def test_allowed_shell_patch_and_mcp_calls_pass_no_opinion(env: Env) -> None:
    for tool, tool_input in [
        ("Bash", {"command": "cargo test"}),
        ("apply_patch", {"command": PATCH}),
        ("mcp__memory__create_entities", {"entities": []}),
    ]:
        assert run_inproc("codex", payload(tool, tool_input), env) == (0, "", "")


def test_allow_explicit_still_passes_no_opinion(env: Env) -> None:
    # Codex rejects `allow` without rewritten input as invalid output.
    reply = run_inproc(
        "codex", payload("Bash", {"command": "ls"}), env, Settings(allow_explicit=True)
    )
    assert reply == (0, "", "")


def test_a_deny_is_a_deny(env: Env) -> None:
    decision = gate_decision(env, "Bash", {"command": "rm -rf /"})
    reply = run_inproc("codex", payload("Bash", {"command": "rm -rf /"}), env)
    assert reply == (0, deny(messages.refusal(decision)), "")


def test_an_ask_fails_closed_to_a_deny_saying_approval_is_needed(env: Env) -> None:
    tool_input = {"command": "git push --force origin main"}
    decision = gate_decision(env, "Bash", tool_input)
    shaped = decision._replace(verdict=decision.verdict.DENY, code="no-approver")
    reply = run_inproc("codex", payload("Bash", tool_input), env)
    assert reply == (0, deny(messages.approval_needed(shaped, "Codex")), "")
    text = json.loads(reply.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
    assert text.startswith(
        "redline: this call needs the owner's approval (`vcs.push-force`) and Codex cannot "
        f"ask the owner here: {decision.reason}"
    )
    assert text.count("cannot ask") == 1


def test_defer_ask_leaves_the_ask_to_codex(env: Env) -> None:
    tool_input = {"command": "git push --force origin main"}
    reply = run_inproc("codex", payload("Bash", tool_input), env, Settings(defer_ask=True))
    assert reply == (0, "", "")


def test_permission_request(env: Env) -> None:
    deny_body = run_inproc(
        "codex", payload("Bash", {"command": "rm -rf /"}, "PermissionRequest"), env
    )
    out = json.loads(deny_body.stdout)["hookSpecificOutput"]
    assert (out["hookEventName"], out["decision"]["behavior"]) == ("PermissionRequest", "deny")
    ask = run_inproc(
        "codex", payload("Bash", {"command": "git push --force"}, "PermissionRequest"), env
    )
    assert ask == (0, "", "")  # the person answers at Codex's prompt
    allow = run_inproc(
        "codex",
        payload("Bash", {"command": "ls"}, "PermissionRequest"),
        env,
        Settings(allow_explicit=True),
    )
    assert json.loads(allow.stdout) == {
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "allow"},
        }
    }


def test_as_a_real_process(env: Env) -> None:
    done = run_process("codex", payload("Bash", {"command": "git push --force origin main"}), env)
    assert done.returncode == 0
    out = json.loads(done.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny"
    forced = run_process(
        "codex",
        {**payload("Bash", {"command": "rm -rf /"}), "hook_event_name": None},
        env,
        "--event",
        "permission-request",
    )
    assert json.loads(forced.stdout)["hookSpecificOutput"]["decision"]["behavior"] == "deny"
