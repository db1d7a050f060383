"""Corpus cases pin the exact verdict and the exact rule ids of each call.
A case with `guard: true` is judged with the gate's never-run checks too (the
owner's home is `/home/me`)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from redline.command import check_command
from redline.gate.never_run import Guard
from redline.gate.protected import Places

HERE = Path(__file__).parent


def _cases() -> list[Any]:
    params = []
    for path in sorted(HERE.glob("*.yaml")):
        for number, case in enumerate(yaml.safe_load(path.read_text(encoding="utf-8")), 1):
            params.append(pytest.param(case, id=f"{path.stem}-{number}"))
    return params


@cache
def _guard() -> Guard:
    return Guard.build(Places(home="/home/me"))


@pytest.mark.parametrize("case", _cases())
def test_corpus_case(case: dict[str, Any]) -> None:
    guard = _guard() if case.get("guard") else None
    decision = check_command(case["command"], cwd=case.get("cwd"), guard=guard)
    assert (str(decision.verdict), sorted(set(decision.rule_ids))) == (
        case["verdict"],
        sorted(case["rules"]),
    ), case["command"]
