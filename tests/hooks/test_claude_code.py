"""Claude Code `PreToolUse`: payloads shaped as Claude Code sends them, checked
against the exact stdout and exit code."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hookkit import PROJECT, Env, gate_decision, log_entries, run_inproc, run_process

from redline.decision import Verdict
from redline.hooks import messages
from redline.hooks.base import Settings


def payload(tool: str, tool_input: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "session_id": "abc123",
        "transcript_path": "/home/u/.claude/projects/p/abc123.jsonl",
        "cwd": PROJECT,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_01",
        **extra,
    }


def at_home(tool_input: dict[str, Any], env: Env) -> dict[str, Any]:
    """Claude Code sends absolute paths: `{home}` stands for the test's HOME."""
    return {
        k: v.replace("{home}", env["HOME"]) if isinstance(v, str) else v
        for k, v in tool_input.items()
    }


def answer(verdict: str, reason: str) -> str:
    body = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": verdict,
            "permissionDecisionReason": reason,
        }
    }
    return json.dumps(body) + "\n"


ALLOWED = [
    ("Bash", {"command": "ls -la", "description": "List files"}),
    ("Write", {"file_path": f"{PROJECT}/notes.txt", "content": "hello\n"}),
    ("Edit", {"file_path": f"{PROJECT}/a.py", "old_string": "a", "new_string": "b"}),
    ("Read", {"file_path": f"{PROJECT}/a.py"}),
    ("WebFetch", {"url": "https://example.com/docs", "prompt": "summarise"}),
    ("mcp__github__create_issue", {"owner": "o", "repo": "r", "title": "t"}),
]


@pytest.mark.parametrize(("tool", "tool_input"), ALLOWED)
def test_an_allow_passes_no_opinion(env: Env, tool: str, tool_input: dict[str, Any]) -> None:
    assert gate_decision(env, tool, tool_input).verdict is Verdict.ALLOW
    reply = run_inproc("claude-code", payload(tool, tool_input), env)
    assert (reply.code, reply.stdout, reply.stderr) == (0, "", "")


def test_allow_explicit_answers_allow(env: Env) -> None:
    reply = run_inproc(
        "claude-code", payload("Bash", {"command": "ls"}), env, Settings(allow_explicit=True)
    )
    decision = gate_decision(env, "Bash", {"command": "ls"})
    assert reply == (0, answer("allow", messages.note(decision)), "")


def test_allow_explicit_from_the_environment(make_env: Any) -> None:
    env = make_env(REDLINE_HOOK_ALLOW="explicit")
    reply = run_inproc("claude-code", payload("Bash", {"command": "ls"}), env)
    assert json.loads(reply.stdout)["hookSpecificOutput"]["permissionDecision"] == "allow"


DENIED = [
    ("Bash", {"command": "rm -rf /"}, ("fs.delete-root",)),
    ("Read", {"file_path": "{home}/.ssh/id_rsa"}, ("never-run.credentials",)),
]


@pytest.mark.parametrize(("tool", "tool_input", "rules"), DENIED)
def test_a_deny_is_written_for_the_model(
    env: Env, tool: str, tool_input: dict[str, Any], rules: tuple[str, ...]
) -> None:
    tool_input = at_home(tool_input, env)
    decision = gate_decision(env, tool, tool_input)
    assert (decision.verdict, decision.rule_ids[: len(rules)]) == (Verdict.DENY, rules)
    reply = run_inproc("claude-code", payload(tool, tool_input), env)
    assert reply == (0, answer("deny", messages.refusal(decision)), "")
    text = messages.refusal(decision)
    assert "It did not run." in text and "Do not retry it another way" in text


ASKED = [
    ("Bash", {"command": "git push --force origin main"}, "vcs.push-force"),
    (
        "Write",
        {"file_path": "/etc/hosts", "content": "127.0.0.1 x\n"},
        "sensitive.write-system-config",
    ),
    (
        "Edit",
        {"file_path": "/etc/fstab", "old_string": "a", "new_string": "b"},
        "sensitive.write-system-config",
    ),
]


@pytest.mark.parametrize(("tool", "tool_input", "rule"), ASKED)
def test_an_ask_is_written_for_the_person(
    env: Env, tool: str, tool_input: dict[str, Any], rule: str
) -> None:
    tool_input = at_home(tool_input, env)
    decision = gate_decision(env, tool, tool_input)
    assert (decision.verdict, decision.rule_ids) == (Verdict.ASK, (rule,))
    reply = run_inproc("claude-code", payload(tool, tool_input), env)
    assert reply == (0, answer("ask", messages.question(decision)), "")


def test_unattended_context_turns_an_ask_into_a_deny(env: Env) -> None:
    tool_input = {"command": "git push --force origin main"}
    reply = run_inproc(
        "claude-code", payload("Bash", tool_input), env, Settings(context="single_query")
    )
    out = json.loads(reply.stdout)["hookSpecificOutput"]
    assert (reply.code, out["permissionDecision"]) == (0, "deny")
    assert "needs the owner's approval" in out["permissionDecisionReason"]


def test_ask_deny_setting_refuses_asks(env: Env) -> None:
    reply = run_inproc(
        "claude-code",
        payload("Bash", {"command": "git push --force origin main"}),
        env,
        Settings(ask="deny"),
    )
    out = json.loads(reply.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny"
    assert out["permissionDecisionReason"].startswith(
        "redline: this call needs the owner's approval (`vcs.push-force`) and Claude Code "
        "cannot ask the owner here: "
    )
    assert out["permissionDecisionReason"].count("cannot ask") == 1


def test_every_call_is_logged_with_the_agent_and_session(env: Env) -> None:
    run_inproc("claude-code", payload("Bash", {"command": "ls"}), env)
    run_inproc("claude-code", payload("Bash", {"command": "rm -rf /"}), env)
    entries = log_entries(env)
    assert [
        (e.record.agent, e.record.session, e.record.tool, e.record.verdict) for e in entries
    ] == [
        ("claude-code", "abc123", "Bash", "allow"),
        ("claude-code", "abc123", "Bash", "deny"),
    ]


def test_as_a_real_process(env: Env) -> None:
    allowed = run_process("claude-code", payload("Bash", {"command": "ls"}), env)
    assert (allowed.returncode, allowed.stdout) == (0, "")
    denied = run_process("claude-code", payload("Bash", {"command": "rm -rf /"}), env)
    decision = gate_decision(env, "Bash", {"command": "rm -rf /"})
    assert (denied.returncode, denied.stdout) == (0, answer("deny", messages.refusal(decision)))
    asked = run_process(
        "claude-code",
        payload("Edit", {"file_path": "/etc/fstab", "old_string": "a", "new_string": "b"}),
        env,
    )
    assert json.loads(asked.stdout)["hookSpecificOutput"]["permissionDecision"] == "ask"


def test_post_tool_use_is_acknowledged_silently(env: Env) -> None:
    post = payload(
        "Bash", {"command": "ls"}, hook_event_name="PostToolUse", tool_response={"stdout": ""}
    )
    assert run_inproc("claude-code", post, env) == (0, "", "")


@pytest.mark.parametrize(
    ("extra", "verdict"),
    [
        ({"CLAUDE_CODE_SESSION_ATTENDED": "1", "CLAUDE_CODE_ENTRYPOINT": "cli"}, "ask"),
        ({"CLAUDE_CODE_SESSION_ATTENDED": "0", "CLAUDE_CODE_ENTRYPOINT": "sdk-cli"}, "deny"),
        ({"CLAUDE_CODE_ENTRYPOINT": "sdk-cli"}, "deny"),  # releases without ATTENDED
        ({"CLAUDE_CODE_ENTRYPOINT": "cli"}, "ask"),
        ({}, "ask"),
    ],
)
def test_a_headless_run_refuses_an_ask_with_the_text_for_the_model(
    env: Env, extra: dict[str, str], verdict: str
) -> None:
    tool_input = {"command": "git push --force origin main"}
    reply = run_inproc("claude-code", payload("Bash", tool_input), {**env, **extra})
    out = json.loads(reply.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == verdict
    if verdict == "deny":
        decision = gate_decision(env, "Bash", tool_input)
        shaped = decision._replace(verdict=Verdict.DENY, code="no-approver")
        assert out["permissionDecisionReason"] == messages.approval_needed(shaped, "Claude Code")
        assert messages.NO_RETRY in out["permissionDecisionReason"]


def test_a_headless_run_leaves_allows_and_denies_as_they_are(env: Env) -> None:
    headless = {**env, "CLAUDE_CODE_SESSION_ATTENDED": "0"}
    assert run_inproc("claude-code", payload("Bash", {"command": "ls"}), headless) == (0, "", "")
    denied = run_inproc("claude-code", payload("Bash", {"command": "rm -rf /"}), headless)
    decision = gate_decision(env, "Bash", {"command": "rm -rf /"})
    reason = json.loads(denied.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
    assert reason == messages.refusal(decision)
