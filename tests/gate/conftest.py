from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from redline.decision import Decision
from redline.gate.actions import ToolCall
from redline.gatekeeper import Gate

HOME = "/home/me"


@pytest.fixture
def make_gate(tmp_path: Path) -> Callable[..., Gate]:
    """A gate on an explicit policy text (or the shipped one), with its own
    home, gate home and allowlist under `tmp_path`."""

    def make(policy: str | None = None, **kwargs: Any) -> Gate:
        path = None
        if policy is not None:
            path = tmp_path / "policy" / "policy.yaml"
            path.parent.mkdir(exist_ok=True)
            path.write_text(policy)
        kwargs.setdefault("home", HOME)
        kwargs.setdefault("redline_home", tmp_path / "redline")
        return Gate(path, **kwargs)

    return make


@pytest.fixture
def gate(make_gate: Callable[..., Gate]) -> Gate:
    return make_gate()


@pytest.fixture
def check(gate: Gate) -> Callable[..., Decision]:
    def run(tool: str, args: dict[str, Any], **kwargs: Any) -> Decision:
        return gate.check(ToolCall(tool, args, **kwargs))

    return run
