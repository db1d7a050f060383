"""Hermes: the shell `pre_tool_call` hook and the Python plugin."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hookkit import Env, gate_decision, run_inproc, run_process

from redline.hooks import hermes, messages

WORKDIR = "/home/agent/.hermes"


def payload(tool: str, tool_input: dict[str, Any] | None, **extra: Any) -> dict[str, Any]:
    return {
        "hook_event_name": "pre_tool_call",
        "tool_name": tool,
        "tool_input": tool_input,
        "session_id": "20260101_120000_abcd",
        "cwd": WORKDIR,
        "profile": "default",
        "extra": {"task_id": "t1", "tool_call_id": "call_9", **extra},
    }


ALLOWED = [
    ("terminal", {"command": "ls -la", "workdir": WORKDIR}),
    ("write_file", {"path": f"{WORKDIR}/notes/today.md", "content": "x"}),
    ("patch", {"path": f"{WORKDIR}/notes/today.md", "old_string": "x", "new_string": "y"}),
    ("read_file", {"path": f"{WORKDIR}/notes/today.md"}),
    ("web_extract", {"urls": ["https://example.com"]}),
]


@pytest.mark.parametrize(("tool", "tool_input"), ALLOWED)
def test_shell_hook_allow_is_silent(env: Env, tool: str, tool_input: dict[str, Any]) -> None:
    assert run_inproc("hermes", payload(tool, tool_input), env) == (0, "", "")


def block(text: str) -> str:
    return json.dumps({"action": "block", "message": text}) + "\n"


def test_shell_hook_blocks_with_the_repair(env: Env) -> None:
    no_workdir = {"command": "ls"}
    decision = gate_decision(env, "terminal", no_workdir, None)
    assert decision.code == "unsupported-execution-context"
    assert run_inproc("hermes", payload("terminal", no_workdir), env) == (
        0,
        block(messages.refusal(decision._replace(code="hook-unsupported-execution-context"))),
        "",
    )
    code = gate_decision(env, "execute_code", {"code": "print(1)"}, None)
    assert run_inproc("hermes", payload("execute_code", {"code": "print(1)"}), env) == (
        0,
        block(messages.refusal(code._replace(code="hook-hermes-execute-code-unbound"))),
        "",
    )


@pytest.mark.parametrize(
    ("tool", "tool_input", "code"),
    [
        ("terminal", {"command": "ls"}, "hook-unsupported-execution-context"),
        ("terminal", {"command": "ls", "workdir": "notes"}, "hook-unsupported-execution-context"),
        ("read_file", {"path": "notes/today.md"}, "hook-unsupported-execution-context"),
        ("write_file", {"content": "x"}, "hook-unsupported-execution-context"),
        ("execute_code", {"code": "print(1)"}, "hook-hermes-execute-code-unbound"),
    ],
)
def test_shell_hook_speaks_the_codes_hermes_agents_are_taught(
    env: Env, tool: str, tool_input: dict[str, Any], code: str
) -> None:
    message = json.loads(run_inproc("hermes", payload(tool, tool_input), env).stdout)["message"]
    assert message.startswith(f"redline refused this call (`{code}`): ")


def test_plugin_speaks_the_codes_hermes_agents_are_taught(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    blocked = hermes.pre_tool_call(tool_name="execute_code", args={"code": "1"}, session_id="s")
    assert blocked is not None
    assert "(`hook-hermes-execute-code-unbound`)" in blocked["message"]
    blocked = hermes.pre_tool_call(tool_name="terminal", args={"command": "ls"}, session_id="s")
    assert blocked is not None
    assert "(`hook-unsupported-execution-context`)" in blocked["message"]


def test_shell_hook_cannot_ask(env: Env) -> None:
    reply = run_inproc(
        "hermes",
        payload("terminal", {"command": "git push --force origin main", "workdir": WORKDIR}),
        env,
    )
    message = json.loads(reply.stdout)["message"]
    assert message.startswith(
        "redline: this call needs the owner's approval (`vcs.push-force`) "
        "and this Hermes shell hook cannot ask the owner here: "
    )
    assert message.count("cannot ask") == 1


def test_shell_hook_null_tool_input_is_an_empty_call(env: Env) -> None:
    reply = run_inproc("hermes", payload("todo", None), env)
    assert reply == (0, "", "")


def test_shell_hook_as_a_real_process(env: Env) -> None:
    done = run_process("hermes", payload("terminal", {"command": "rm -rf /", "workdir": "/"}), env)
    assert (done.returncode, json.loads(done.stdout)["action"]) == (0, "block")


def test_plugin_pre_tool_call(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    from test_hermes_plugin import hermes_approval

    hermes_approval(monkeypatch, interactive=True)
    allowed = hermes.pre_tool_call(
        tool_name="terminal",
        args={"command": "ls", "workdir": WORKDIR},
        task_id="t",
        session_id="s1",
        tool_call_id="c1",
    )
    assert allowed is None
    denied = hermes.pre_tool_call(
        tool_name="terminal", args={"command": "rm -rf /", "workdir": "/"}, session_id="s1"
    )
    decision = gate_decision(env, "terminal", {"command": "rm -rf /", "workdir": "/"}, None)
    assert denied == {"action": "block", "message": messages.refusal(decision)}
    asked = hermes.pre_tool_call(
        tool_name="terminal",
        args={"command": "git push --force origin main", "workdir": WORKDIR},
        session_id="s1",
        tool_call_id="c2",
    )
    question = messages.question(
        gate_decision(
            env, "terminal", {"command": "git push --force origin main", "workdir": WORKDIR}, None
        )
    )
    assert asked == {"action": "approve", "message": question, "rule_key": "redline:vcs.push-force"}


def test_plugin_fails_closed(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr("redline.hooks.judge.decide", broken)
    result = hermes.pre_tool_call(tool_name="terminal", args={"command": "ls", "workdir": WORKDIR})
    assert result is not None and result["action"] == "block"
    assert "internal error (RuntimeError: boom)" in result["message"]
    bad = hermes.pre_tool_call(tool_name=None, args=None)
    assert bad == {
        "action": "block",
        "message": "redline blocked this call: the hook was called without a tool name",
    }


def test_plugin_registers_its_hooks() -> None:
    registered: list[tuple[str, Any]] = []

    class Ctx:
        def register_hook(self, name: str, fn: Any) -> None:
            registered.append((name, fn))

    hermes.register(Ctx())
    from redline.hooks.hermes_inbound import pre_gateway_dispatch

    assert registered == [
        ("pre_tool_call", hermes.pre_tool_call),
        ("post_tool_call", hermes.post_tool_call),
        ("pre_gateway_dispatch", pre_gateway_dispatch),
    ]
