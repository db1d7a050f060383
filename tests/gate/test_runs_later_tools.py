"""Files that run later, written by file tools (issue 18 family 3): each case of
`runs_later_tools.yaml` pins the gate's verdict and rule ids; `files` are on
disk in the case's world (an edit is judged as the file after it)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from redline.gate.actions import ToolCall
from redline.gate.world import World
from redline.gatekeeper import Gate

HERE = Path(__file__).parent
# The attack round's tool calls are judged the same way.
CASES = [
    case
    for name in (
        "runs_later_tools.yaml",
        "attack_round_tools.yaml",
        "attack_open_fixed_tools.yaml",
        "attack_round_3_tools.yaml",
        "runs_later_3_tools.yaml",
        "detect_gaps_tools.yaml",
        "attack_round_4_tools.yaml",
        "attack_round_3_fixed_tools.yaml",
    )
    for case in yaml.safe_load((HERE / name).read_text(encoding="utf-8"))
]


class Disk(World):
    """Only the case's files exist."""

    def __init__(self, files: Mapping[str, str]) -> None:
        self.files = files

    def read_script(self, path: str) -> str | None:
        return self.files.get(path)


def _label(case: dict[str, Any]) -> str:
    args = case["args"]
    where = args.get("file_path") or args.get("path") or "patch"
    return f"{case['tool']}:{where}:{case['verdict']}"


@pytest.mark.parametrize("case", CASES, ids=[_label(c) for c in CASES])
def test_runs_later_tool_case(case: dict[str, Any], tmp_path: Path) -> None:
    gate = Gate(
        None, home="/home/me", redline_home=tmp_path / "redline", world=Disk(case.get("files", {}))
    )
    call = ToolCall(case["tool"], case["args"], cwd=case.get("cwd", "/srv/app"))
    decision = gate.check(call)
    assert (str(decision.verdict), sorted(set(decision.rule_ids))) == (
        case["verdict"],
        sorted(case["rules"]),
    ), decision.reason
