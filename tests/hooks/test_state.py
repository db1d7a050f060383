"""Saving a session's state reads the gate through its public API."""

from __future__ import annotations

from pathlib import Path

from redline.gate.actions import ToolCall
from redline.gatekeeper import Gate
from redline.hooks.state import apply, capture


def test_capture_and_apply_keep_the_rejection_memory(tmp_path: Path) -> None:
    gate = Gate(None, home="/home/me", redline_home=tmp_path / "rl")
    call = ToolCall("terminal", {"command": "git push --force origin main", "workdir": "/srv"})
    gate.record_outcome("s", call, "rejected")
    data: dict[str, object] = {"version": 1, "grants": [], "memory": [], "asks": {}}
    capture(data, gate, "s")
    memory = data["memory"]
    assert isinstance(memory, list) and len(memory) == 1
    assert memory[0]["outcome"] == "rejected"
    assert memory[0]["summary"] == "git push --force origin main"
    fresh = Gate(None, home="/home/me", redline_home=tmp_path / "rl")
    apply(data, fresh, "s")
    assert fresh.check(call._replace(session="s")).code == "rejected-before"
