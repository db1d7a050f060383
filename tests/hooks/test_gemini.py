"""Gemini CLI `BeforeTool`: `{}` for an allow, `decision: deny` with the reason
for the model, `decision: ask` for the person."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hookkit import PROJECT, Env, gate_decision, run_inproc, run_process

from redline.decision import Verdict
from redline.hooks import messages
from redline.hooks.base import Settings
from redline.hooks.gemini import run_is_headless


def payload(tool: str, tool_input: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "session_id": "gem-1",
        "transcript_path": "/home/u/.gemini/tmp/chats/session.json",
        "cwd": PROJECT,
        "hook_event_name": "BeforeTool",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "tool_name": tool,
        "tool_input": tool_input,
        **extra,
    }


ALLOWED = [
    ("run_shell_command", {"command": "npm test", "description": "run tests"}),
    ("write_file", {"file_path": f"{PROJECT}/out.txt", "content": "x"}),
    ("replace", {"file_path": f"{PROJECT}/a.ts", "old_string": "a", "new_string": "b"}),
    ("read_file", {"absolute_path": f"{PROJECT}/a.ts"}),
    ("web_fetch", {"prompt": "summarise https://example.com/page"}),
]


def test_allowed_calls_answer_an_empty_object(env: Env) -> None:
    for tool, tool_input in ALLOWED:
        assert run_inproc("gemini", payload(tool, tool_input), env) == (0, "{}\n", "")
    mcp = payload(
        "mcp__github__list_issues",
        {"repo": "r"},
        mcp_context={"server_name": "github", "tool_name": "list_issues"},
    )
    assert run_inproc("gemini", mcp, env) == (0, "{}\n", "")


def test_allow_explicit(env: Env) -> None:
    reply = run_inproc(
        "gemini",
        payload("run_shell_command", {"command": "ls"}),
        env,
        Settings(allow_explicit=True),
    )
    assert reply == (0, '{"decision": "allow"}\n', "")


def test_deny_and_ask(env: Env) -> None:
    hard = {"command": "rm -rf /"}
    reply = run_inproc("gemini", payload("run_shell_command", hard), env)
    decision = gate_decision(env, "run_shell_command", hard)
    assert reply == (
        0,
        json.dumps({"decision": "deny", "reason": messages.refusal(decision)}) + "\n",
        "",
    )
    asked = {"file_path": "/etc/hosts", "content": "x"}
    question = messages.question(gate_decision(env, "write_file", asked))
    reply = run_inproc("gemini", payload("write_file", asked), env)
    body = {"decision": "ask", "reason": question, "systemMessage": question}
    assert reply == (0, json.dumps(body) + "\n", "")


def test_ask_deny_for_releases_without_ask(env: Env) -> None:
    reply = run_inproc(
        "gemini",
        payload("write_file", {"file_path": "/etc/hosts", "content": "x"}),
        env,
        Settings(ask="deny"),
    )
    assert json.loads(reply.stdout)["decision"] == "deny"


def test_as_a_real_process(env: Env) -> None:
    done = run_process("gemini", payload("run_shell_command", {"command": "rm -rf /"}), env)
    assert (done.returncode, json.loads(done.stdout)["decision"]) == (0, "deny")
    after = run_process(
        "gemini",
        {
            **payload("run_shell_command", {"command": "ls"}),
            "hook_event_name": "AfterTool",
            "tool_response": {},
        },
        env,
    )
    assert (after.returncode, after.stdout) == (0, "{}\n")


def _process(proc: Path, pid: int, parent: int, argv: list[str], stdin: str) -> None:
    folder = proc / str(pid)
    (folder / "fd").mkdir(parents=True)
    (folder / "cmdline").write_bytes(b"\0".join(a.encode() for a in argv) + b"\0")
    (folder / "stat").write_text(f"{pid} (x y) S {parent} 1 1 0 -1\n")
    (folder / "fd" / "0").symlink_to(stdin)


HOOK_SH = ["/bin/sh", "-c", "/usr/bin/python3 -I -c 'import redline' hook gemini || exit 2"]
NODE = ["/usr/bin/node", "--max-old-space-size=4096", "/opt/npm/bin/gemini"]


@pytest.mark.parametrize(
    ("args", "stdin", "headless"),
    [
        (["-p", "do it"], "/dev/pts/3", True),
        (["--prompt=do it", "--yolo"], "/dev/pts/3", True),
        ([], "pipe:[123]", True),
        ([], "/dev/null", True),
        ([], "/dev/pts/3", False),
        (["-i", "do it"], "/dev/pts/3", False),
        (["--experimental-acp"], "pipe:[9]", False),
    ],
)
def test_a_headless_run_is_read_from_the_gemini_process(
    tmp_path: Path, args: list[str], stdin: str, headless: bool
) -> None:
    proc = tmp_path / "proc"
    _process(proc, 40, 30, HOOK_SH, "pipe:[7]")
    _process(proc, 30, 20, [*NODE, *args], stdin)
    _process(proc, 20, 1, ["bash"], "/dev/pts/3")
    assert run_is_headless(str(proc), 40) is headless


def test_no_gemini_process_is_not_headless(tmp_path: Path) -> None:
    proc = tmp_path / "proc"
    _process(proc, 40, 30, HOOK_SH, "pipe:[7]")
    _process(proc, 30, 1, ["bash"], "pipe:[8]")
    assert run_is_headless(str(proc), 40) is False
    assert run_is_headless(str(tmp_path / "none"), 40) is False


def test_a_headless_run_refuses_an_ask(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    from redline.hooks import gemini

    tool_input = {"command": "git push --force origin main"}
    monkeypatch.setattr(gemini, "run_is_headless", lambda proc, pid: True)
    body = json.loads(run_inproc("gemini", payload("run_shell_command", tool_input), env).stdout)
    decision = gate_decision(env, "run_shell_command", tool_input)
    shaped = decision._replace(verdict=Verdict.DENY, code="no-approver")
    assert body == {"decision": "deny", "reason": messages.approval_needed(shaped, "Gemini CLI")}
    monkeypatch.setattr(gemini, "run_is_headless", lambda proc, pid: False)
    body = json.loads(run_inproc("gemini", payload("run_shell_command", tool_input), env).stdout)
    assert body["decision"] == "ask"
