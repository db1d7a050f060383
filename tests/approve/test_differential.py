"""Differential: the service (through its socket, answers verified) and the gate
in this process give equal Decisions on the whole corpus. Calls are judged in
the `cron` context, where nobody can answer, so every ask is a deny at once
and nothing is held; a few asks are also held in the interactive context and
must show the gate's own rule hits."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from servicekit import POLICY, PROJECT, HookProcess, ServiceProcess, hook_payload, make_env

from redline.approve.client import decide_via_service
from redline.gate.actions import ToolCall
from redline.gatekeeper import Gate

CORPUS = Path(__file__).parent.parent / "corpus"


def _cases() -> list[Any]:
    params = []
    for path in sorted(CORPUS.glob("*.yaml")):
        for number, case in enumerate(yaml.safe_load(path.read_text(encoding="utf-8")), 1):
            params.append(pytest.param(case, id=f"{path.stem}-{number}"))
    return params


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceProcess]:
    env = make_env(tmp_path_factory.mktemp("differential"))
    service = ServiceProcess(env).start()
    yield service
    service.stop()


@pytest.fixture(scope="module")
def gate() -> Gate:
    return Gate(POLICY)


@pytest.mark.parametrize("case", _cases())
def test_service_and_gate_agree(served: ServiceProcess, gate: Gate, case: dict[str, Any]) -> None:
    cwd = case.get("cwd") or PROJECT
    args = {"command": case["command"]}
    expected = gate.check(ToolCall("Bash", args, cwd, "cron", "differential"))
    got = decide_via_service(
        "Bash",
        args,
        cwd=cwd,
        session="differential",
        context="cron",
        home=served.env["REDLINE_HOME"],
    )
    assert got == expected


def test_held_calls_carry_the_gates_hits(served: ServiceProcess, gate: Gate) -> None:
    commands = ["git push --force origin main", "git reset --hard HEAD~3", "chmod -R 777 /srv"]
    hooks = [HookProcess(served.env, hook_payload(c, session="held")) for c in commands]
    rows = {row["shown"]: row for row in served.wait_pending(len(commands))}
    for command in commands:
        expected = gate.check(ToolCall("Bash", {"command": command}, PROJECT, None, "held"))
        assert rows[command]["hits"] == [hit.to_json() for hit in expected.hits]
        served.owner("POST", f"/v1/held/{rows[command]['id']}/reject", {"reason": "test"})
    assert [hook.result()[1]["code"] for hook in hooks] == ["rejected"] * len(commands)
