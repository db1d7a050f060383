"""`@gated`: a Python tool function judged as the tool call it is."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from redline.decision import Decision, Verdict
from redline.gate.actions import ToolCall
from redline.gated import Refused, gated
from redline.gatekeeper import Gate


@pytest.fixture
def judge(tmp_path: Path) -> Any:
    gate = Gate(None, home="/home/me", redline_home=tmp_path / "redline")

    def run(tool: str, args: Mapping[str, Any]) -> Decision:
        return gate.check(ToolCall(tool, args, None, None, "s1"))

    return run


def test_an_allowed_call_runs_with_its_arguments(judge: Any) -> None:
    ran: list[str] = []

    @gated("terminal", judge=judge)
    def terminal(command: str, workdir: str = "/srv/app") -> str:
        ran.append(command)
        return "done"

    assert terminal("ls -la") == "done"
    assert ran == ["ls -la"]


def test_a_hard_line_raises_refused_with_the_decision_and_never_runs(judge: Any) -> None:
    ran: list[str] = []

    @gated("terminal", judge=judge)
    def terminal(command: str, workdir: str = "/srv/app") -> None:
        ran.append(command)

    with pytest.raises(Refused) as refused:
        terminal("sudo rm -rf /")
    assert ran == []
    assert refused.value.decision.verdict is Verdict.DENY
    assert refused.value.decision.hardline
    assert "redline refused `terminal`" in str(refused.value)
    assert isinstance(refused.value, PermissionError)


def test_a_call_with_the_wrong_shape_is_refused_with_its_repair(judge: Any) -> None:
    @gated("terminal", judge=judge)
    def terminal(command: str, workdir: str = "relative/dir") -> None:
        raise AssertionError("must not run")

    with pytest.raises(Refused) as refused:
        terminal("ls")
    assert refused.value.decision.code == "unsupported-execution-context"
    assert "Repair:" in str(refused.value)


def test_an_asked_call_runs_only_when_on_ask_says_yes(judge: Any) -> None:
    answers: list[bool] = []
    seen: list[str] = []

    def on_ask(tool: str, decision: Decision) -> bool:
        seen.append(f"{tool}:{','.join(decision.rule_ids)}")
        return answers.pop()

    @gated("terminal", judge=judge, on_ask=on_ask)
    def terminal(command: str, workdir: str = "/srv/app") -> str:
        return "pushed"

    answers.append(True)
    assert terminal("git push --force origin main") == "pushed"
    answers.append(False)
    with pytest.raises(Refused):
        terminal("git push --force origin main")
    assert seen == ["terminal:vcs.push-force"] * 2


def test_an_asked_call_with_nobody_to_ask_is_refused(judge: Any) -> None:
    @gated("terminal", judge=judge)
    def terminal(command: str, workdir: str = "/srv/app") -> None:
        raise AssertionError("must not run")

    with pytest.raises(Refused) as refused:
        terminal("git push --force origin main")
    assert refused.value.decision.verdict is Verdict.ASK


def test_args_builder_and_default_tool_name(judge: Any) -> None:
    seen: list[tuple[str, dict[str, Any]]] = []

    def spy(tool: str, args: Mapping[str, Any]) -> Decision:
        seen.append((tool, dict(args)))
        return judge(tool, args)

    @gated(judge=spy, args=lambda target, text: {"path": target, "content": text})
    def write_file(target: str, text: str) -> int:
        return len(text)

    assert write_file("/srv/app/notes.txt", "hi") == 2
    with pytest.raises(Refused) as refused:
        write_file("/home/me/.ssh/authorized_keys", "ssh-ed25519 AAAA")
    assert refused.value.decision.verdict is Verdict.DENY
    assert seen[0] == ("write_file", {"path": "/srv/app/notes.txt", "content": "hi"})


def test_coroutines_are_judged_before_they_start(judge: Any) -> None:
    started: list[str] = []

    @gated("terminal", judge=judge)
    async def terminal(command: str, workdir: str = "/srv/app") -> str:
        started.append(command)
        return "ok"

    assert asyncio.run(terminal("echo hi")) == "ok"
    with pytest.raises(Refused):
        asyncio.run(terminal(":(){ :|:& };:"))
    assert started == ["echo hi"]


def test_the_default_gate_is_used_without_a_judge(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import redline.gatekeeper as gatekeeper

    monkeypatch.setattr(gatekeeper, "_default_gate", Gate(None, redline_home=tmp_path / "rl"))

    @gated("terminal", session=lambda: "s9")
    def terminal(command: str, workdir: str = "/srv/app") -> None:
        raise AssertionError("must not run")

    with pytest.raises(Refused):
        terminal("mkfs.ext4 /dev/sda1")
