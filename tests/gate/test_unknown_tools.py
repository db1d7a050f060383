"""Unknown and MCP tools (issue 13, family 11): every case of
`unknown_tools.yaml` gets its verdict from the gate with the shipped policy;
a shell command found in the arguments is judged as the terminal would judge
it, and text under other keys is never read as a command."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from redline.decision import Decision
from redline.gate import foreign_commands

HERE = Path(__file__).parent
CASES = yaml.safe_load((HERE / "unknown_tools.yaml").read_text(encoding="utf-8"))


def _params(group: str) -> list[Any]:
    return [
        pytest.param(case, id=f"{group}-{number}-{case['tool']}")
        for number, case in enumerate(CASES[group], 1)
    ]


@pytest.mark.parametrize("case", _params("adversarial") + _params("look_alikes"))
def test_an_unknown_tool_is_judged_by_the_command_it_holds(
    check: Callable[..., Decision], case: dict[str, Any]
) -> None:
    decision = check(case["tool"], case["args"], cwd="/srv/app")
    assert str(decision.verdict) == case["verdict"], (case, decision.reason)


def test_the_corpus_is_large_enough() -> None:
    assert len(CASES["adversarial"]) >= 40
    assert len(CASES["look_alikes"]) >= 20


@pytest.mark.parametrize(
    ("tool", "args", "command"),
    [
        ("mcp__x__run", {"command": "rm", "args": ["-rf", "/"]}, "rm -rf /"),
        ("mcp__x__run", {"args": ["echo", "a b"]}, "echo 'a b'"),
        ("mcp__x__fetch", {"args": ["echo", "a"]}, None),
        ("mcp__python__run", {"code": "print(1)"}, "python3 -c 'print(1)'"),
        ("mcp__python__run", {"script": "print(1)"}, "python3 -c 'print(1)'"),
        ("mcp__pg__query", {"sql": "select 1"}, "psql -c 'select 1'"),
        ("mcp__x__search", {"query": "rm -rf /"}, None),
        ("mcp__x__ci", {"steps": [{"run": "make"}, {"run": "make test"}]}, "make\nmake test"),
    ],
)
def test_where_the_command_is_found(tool: str, args: dict[str, Any], command: str | None) -> None:
    assert foreign_commands.command_text(tool, args) == command
