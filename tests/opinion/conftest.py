"""Factories for second-opinion tests: a stand-in chat API on 127.0.0.1, and
gates whose policy (the shipped one, plus `second_opinion`) points at it."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from chatstandin import ChatStandIn, Reply, opinion_policy

from redline.gatekeeper import Gate


@pytest.fixture
def chat() -> Iterator[Callable[..., ChatStandIn]]:
    started: list[ChatStandIn] = []

    def make(reply: Reply, slow_s: float = 3.0) -> ChatStandIn:
        stand_in = ChatStandIn(reply, slow_s).start()
        started.append(stand_in)
        return stand_in

    yield make
    for stand_in in started:
        stand_in.stop()


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "home").mkdir(exist_ok=True)
    return {
        "REDLINE_HOME": str(tmp_path / "redline"),
        "HOME": str(tmp_path / "home"),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    }


@pytest.fixture
def make_gate(tmp_path: Path) -> Callable[..., Gate]:
    def make(**opinion: Any) -> Gate:
        policy = opinion_policy(tmp_path / "policy.yaml", **opinion)
        return Gate(policy, home=str(tmp_path / "home"), redline_home=str(tmp_path / "redline"))

    return make
