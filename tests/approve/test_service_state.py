"""The running service tells the gate where it is (`service/serve.json`): the
port it really listens on and its PID are then never-run targets, whatever
the policy's `approval.port` says."""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Callable
from pathlib import Path

from servicekit import Env, ServiceProcess

from redline.decision import Verdict
from redline.gate.actions import ToolCall
from redline.gatekeeper import Gate


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def judged(gate: Gate, command: str) -> tuple[Verdict, str | None, str | None]:
    decision = gate.check(ToolCall("Bash", {"command": command}, cwd="/srv"))
    rule = decision.hits[0].rule_id if decision.hits else None
    return decision.verdict, decision.code, rule


def test_the_served_port_and_pid_are_the_gates(
    env: Env, make_service: Callable[..., ServiceProcess]
) -> None:
    port = free_port()
    service = make_service("--http", f"127.0.0.1:{port}")
    state = Path(env["REDLINE_HOME"]) / "service" / "serve.json"
    assert service.proc is not None
    pid = service.proc.pid
    assert json.loads(state.read_text(encoding="utf-8")) == {"pid": pid, "ports": [port]}
    assert oct(os.stat(state).st_mode & 0o777) == "0o600"
    gate = Gate(home=env["HOME"], redline_home=env["REDLINE_HOME"])
    approve = f"curl -X POST http://localhost:{port}/api/held/1/approve"
    assert judged(gate, approve) == (Verdict.DENY, "never-run", "never-run.self-approval")
    assert judged(gate, f"kill -9 {pid}") == (Verdict.DENY, "never-run", "never-run.gate-process")
    assert judged(gate, f"kill -- -{pid}")[2] == "never-run.gate-process"
    assert judged(gate, f"curl http://localhost:{port + 1}/")[1] != "never-run"
    service.stop()
    # Gone, or left behind by a service killed outright: either way its
    # port is no longer the gate's.
    assert judged(gate, approve)[1] != "never-run"
