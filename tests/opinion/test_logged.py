"""Every opinion is in the log, after the decision it is about; the risk
summary reaches the owner's views of a held call."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from chatstandin import ChatStandIn, Fault, opinion_policy

from redline.approve.pending import Held, Kind
from redline.approve.risk_summary import risk_line
from redline.approve.telegram import render
from redline.approve.terminal import describe
from redline.audit.recorder import open_log
from redline.audit.store import Query
from redline.decision import Verdict
from redline.gatekeeper import Gate
from redline.hooks.base import HookCall
from redline.hooks.judge import decide


def entries(env: dict[str, str]) -> list[dict[str, object]]:
    store = open_log(None, env)
    try:
        return [entry.record.to_json() for entry in store.query(Query())]
    finally:
        store.close()


def test_the_hook_logs_the_decision_then_its_opinion(
    chat: Callable[..., ChatStandIn], env: dict[str, str], tmp_path: Path
) -> None:
    model = chat(lambda body: "ASK: runs an unknown script")
    policy = opinion_policy(tmp_path / "policy.yaml", base_url=model.url)
    environ = {**env, "REDLINE_POLICY": str(policy)}
    call = HookCall("generic", "pre", "terminal", {"command": "./x.sh", "workdir": "/srv"}, "/srv")
    decision = decide(call, environ)
    decided, opinion = entries(environ)
    assert decision.verdict is Verdict.ASK and decision.code == "second-opinion"
    assert (decided["kind"], decided["verdict"], decided["code"]) == (
        "decision", "ask", "second-opinion",
    )  # fmt: skip
    assert (opinion["kind"], opinion["ref"], opinion["code"], opinion["channel"]) == (
        "opinion", 1, "opinion-tightened", "stand-in",
    )  # fmt: skip
    details = opinion["args"]
    assert isinstance(details, dict)
    assert (details["before"], details["after"], details["reply"]) == (
        "allow", "ask", "ASK: runs an unknown script",
    )  # fmt: skip


def test_a_failed_opinion_is_logged_and_changes_nothing(
    chat: Callable[..., ChatStandIn], env: dict[str, str], tmp_path: Path
) -> None:
    model = chat(lambda body: Fault.ERROR)
    policy = opinion_policy(tmp_path / "policy.yaml", base_url=model.url)
    environ = {**env, "REDLINE_POLICY": str(policy)}
    call = HookCall("generic", "pre", "terminal", {"command": "./x.sh", "workdir": "/srv"}, "/srv")
    assert decide(call, environ).verdict is Verdict.ALLOW
    decided, opinion = entries(environ)
    assert (decided["verdict"], opinion["code"], opinion["reason"]) == (
        "allow", "opinion-http-error", "HTTP 500",
    )  # fmt: skip


def test_without_a_second_opinion_block_nothing_is_asked_or_logged(env: dict[str, str]) -> None:
    call = HookCall("generic", "pre", "terminal", {"command": "./x.sh", "workdir": "/srv"}, "/srv")
    assert decide(call, env).verdict is Verdict.ALLOW
    assert [e["kind"] for e in entries(env)] == ["decision"]


OPINION = {
    "model": "m1", "status": "kept", "before": "ask", "after": "ask", "changed": False,
    "summary": "force-pushes over the team's history", "reply": "", "latency_ms": 5,
    "signals": [], "detail": "",
}  # fmt: skip


def held_with(opinion: dict[str, object] | None) -> Held:
    decision = {"verdict": "ask", "rules": ["vcs.push-force"], "hits": [], "reason": "force push"}
    if opinion is not None:
        decision["opinion"] = opinion
    return Held(
        "abc", Kind.CALL, 0.0, 60.0, "n" * 32, "h", 1, "s", "a", "terminal", None,
        json.dumps({"tool": "terminal", "args": {}, "cwd": "/srv"}), "git push -f",
        json.dumps(decision),
    )  # fmt: skip


def test_the_owner_sees_the_risk_summary_everywhere() -> None:
    line = "second opinion (m1): force-pushes over the team's history"
    held = held_with(OPINION)
    assert risk_line(held.to_json()["opinion"]) == line
    assert f"<i>{line.replace(chr(39), '&#x27;')}</i>" in render(held, now=0.0)
    assert f"  risk:  {line}" in describe({**held.to_json(), "undelivered": []}, now=0.0).split(
        "\n"
    )
    assert risk_line(None) is None and "risk" not in describe(held_with(None).to_json(), now=0.0)


def test_a_raised_or_missing_opinion_is_told_as_such() -> None:
    raised = {**OPINION, "status": "tightened", "before": "allow", "after": "ask"}
    assert risk_line(raised) == (
        "second opinion (m1, raised allow to ask): force-pushes over the team's history"
    )
    failed = {**OPINION, "status": "timeout", "summary": "", "detail": "no reply within 4 s"}
    assert risk_line(failed) == "second opinion (m1): none, timeout (no reply within 4 s)"


def test_the_service_holds_the_call_with_its_risk_summary(
    chat: Callable[..., ChatStandIn], env: dict[str, str], tmp_path: Path
) -> None:
    import asyncio

    from redline.approve.paths import ServicePaths
    from redline.approve.service import Service
    from redline.approve.signing import Signer
    from redline.gatekeeper import Gate

    model = chat(lambda body: "KEEP: rewrites the shared branch")
    policy = opinion_policy(tmp_path / "policy.yaml", base_url=model.url)
    url = f"sqlite://{tmp_path / 'redline' / 'log.sqlite'}"

    async def run() -> tuple[list[dict[str, object]], list[str]]:
        paths = ServicePaths(str(tmp_path / "redline"))
        service = Service(
            gate=Gate(policy), signer=Signer.load_or_create(paths), store_url=url, environ=env
        )
        call = {"tool": "Bash", "args": {"command": "git push -f origin main"}, "cwd": "/srv"}
        await service.decide({**call, "nonce": "n" * 32})
        rows = [service.pending.view(h) for h in service.pending.waiting()]
        kinds = [e.record.kind.value for e in service.store.query(Query())]
        await service.stop()
        return rows, kinds

    rows, kinds = asyncio.run(run())
    risk = "second opinion (stand-in): rewrites the shared branch"
    assert [row["risk"] for row in rows] == [risk]
    assert kinds == ["decision", "opinion"]


@pytest.mark.postgres
def test_on_postgres_an_odd_reply_is_logged_and_the_call_judged(
    chat: Callable[..., ChatStandIn], env: dict[str, str], tmp_path: Path, pg_url: str
) -> None:
    model = chat(lambda body: "ASK: odd\u0000bytes \ud800 here")
    policy = opinion_policy(tmp_path / "policy.yaml", base_url=model.url)
    environ = {**env, "REDLINE_POLICY": str(policy), "REDLINE_STORE": pg_url}
    call = HookCall("generic", "pre", "terminal", {"command": "./x.sh", "workdir": "/s"}, "/s")
    assert decide(call, environ).verdict is Verdict.ASK
    assert [e["kind"] for e in entries(environ)] == ["decision", "opinion"]


def test_a_judging_worker_leaves_calls_for_the_model_to_the_service(
    make_gate: Callable[..., Gate], env: dict[str, str]
) -> None:
    """Workers answer allowed calls themselves; one the policy sends to the
    model goes to the service (which asks it, and may hold the call)."""
    from types import SimpleNamespace

    from redline.approve.worker import Worker
    from redline.gate.actions import ToolCall

    gate = make_gate(base_url="http://127.0.0.1:9/v1")
    worker = SimpleNamespace(gate=gate)
    risky = ToolCall("terminal", {"command": "./x.sh", "workdir": "/srv"}, "/srv")
    calm = ToolCall("terminal", {"command": "ls", "workdir": "/srv"}, "/srv")
    wants = Worker._wants_opinion
    assert wants(worker, risky, gate.check(risky)) is True
    assert wants(worker, calm, gate.check(calm)) is False
    off = SimpleNamespace(gate=Gate())
    assert wants(off, risky, off.gate.check(risky)) is False
