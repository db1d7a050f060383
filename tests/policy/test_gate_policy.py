"""A broken policy never means allow: the gate refuses to start, or keeps its
last good policy and says so (F-GATE-4)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from redline import gatekeeper
from redline.decision import Verdict
from redline.gate.actions import ToolCall
from redline.gatekeeper import Gate, check_tool_call
from redline.policy.load import PolicyError

DENY_SENDS = "version: 1\nrules:\n  - {id: no-sends, verdict: deny, match: {tool: send_message}}\n"
SEND = ToolCall("send_message", {"target": "telegram:1", "message": "hi"})


def write(path: Path, text: str) -> None:
    path.write_text(text)
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


def test_a_broken_policy_stops_the_gate_from_starting(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text("version: 1\ndefault: alow\n")
    with pytest.raises(PolicyError) as caught:
        Gate(path, home="/home/me", redline_home=tmp_path)
    assert str(caught.value) == (
        f"{path}:2: error: `default` must be `allow`, `ask` or `deny`, not `alow`\n"
        "  help: did you mean `allow`?"
    )


def test_a_changed_policy_is_reloaded(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text("version: 1\n")
    gate = Gate(path, home="/home/me", redline_home=tmp_path)
    assert gate.check(SEND).verdict is Verdict.ALLOW
    write(path, DENY_SENDS)
    assert gate.check(SEND).verdict is Verdict.DENY


def test_a_broken_reload_keeps_the_last_good_policy_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(DENY_SENDS)
    gate = Gate(path, home="/home/me", redline_home=tmp_path)
    write(path, DENY_SENDS.replace("deny", "dney"))
    decision = gate.check(SEND)
    assert (decision.verdict, decision.notes) == (
        Verdict.DENY,
        (
            f"policy `{path}` failed to reload ({path}:3: error: the verdict of rule "
            "`no-sends` must be `allow`, `ask` or `deny`, not `dney`); still using the last "
            "good policy",
        ),
    )
    write(path, "version: 1\n")
    fixed = gate.check(SEND)
    assert (fixed.verdict, fixed.notes) == (Verdict.ALLOW, ())


def test_check_tool_call_uses_the_configured_policy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "policy.yaml").write_text(DENY_SENDS)
    monkeypatch.setenv("REDLINE_HOME", str(tmp_path))
    monkeypatch.delenv("REDLINE_POLICY", raising=False)
    monkeypatch.setattr(gatekeeper, "_default_gate", None)
    decision = check_tool_call("send_message", {"target": "t", "message": "m"}, context="gateway")
    assert (decision.verdict, decision.code, decision.context) == (
        Verdict.DENY,
        "policy-deny",
        "gateway",
    )


def test_check_tool_call_refuses_to_run_on_a_broken_policy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("version: 1\nrules: 3\n")
    monkeypatch.setenv("REDLINE_POLICY", str(bad))
    monkeypatch.setattr(gatekeeper, "_default_gate", None)
    with pytest.raises(PolicyError, match=r"bad\.yaml:2: error: `rules` must be a list"):
        check_tool_call("Read", {"file_path": "/x"}, cwd="/")


def test_redline_exports_the_tool_call_api() -> None:
    import redline

    assert redline.check_tool_call is check_tool_call
    assert redline.Gate is Gate
    assert {"check_tool_call", "Gate", "check_command"} <= set(redline.__all__)
