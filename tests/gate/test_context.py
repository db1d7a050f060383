"""Context and session travel in contextvars; nobody sees another's (F-GATE-5)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

import pytest

from redline.decision import Decision, Verdict
from redline.gate import context
from redline.gate.actions import ToolCall
from redline.gate.context import CallContext, ContextKind
from redline.gatekeeper import Gate

# `publish` is no catalogue rule's business: only this policy asks for it.
ASK_RM = (
    "version: 1\nrules:\n"
    "  - {id: ask-publish, verdict: ask, match: {program: publish}, reason: publishing files}\n"
)


def test_default_context_is_interactive() -> None:
    assert context.current() == CallContext(ContextKind.INTERACTIVE, "default")


def test_use_context_sets_and_restores() -> None:
    with context.use_context("cron", "job-7") as ctx:
        assert ctx == CallContext(ContextKind.CRON, "job-7") == context.current()
    assert context.current() == CallContext()


def test_a_call_overrides_the_current_context() -> None:
    with context.use_context("gateway", "s1"):
        assert context.resolve("cron") == CallContext(ContextKind.CRON, "s1")
        assert context.resolve(None, "s2") == CallContext(ContextKind.GATEWAY, "s2")


def test_unknown_context_says_what_it_meant() -> None:
    with pytest.raises(ValueError, match=r"unknown context `cronn`; did you mean `cron`\?"):
        context.parse_kind("cronn")


def rm_call(path: str = "/srv/tmp/x", **kwargs: str) -> ToolCall:
    return ToolCall("terminal", {"command": f"publish {path}", "workdir": "/srv"}, **kwargs)


@pytest.mark.parametrize("kind", ["cron", "single_query"])
def test_nobody_can_answer_so_ask_becomes_deny(make_gate: Callable[..., Gate], kind: str) -> None:
    gate = make_gate(ASK_RM)
    assert gate.check(rm_call(context=kind)) == Decision(
        Verdict.DENY,
        reason=f"nobody can answer in the `{kind}` context: publishing files",
        repair="do not retry; tell the owner this needs their approval",
        code="no-approver",
        context=kind,
    )
    with context.use_context(kind):
        assert gate.check(rm_call()).code == "no-approver"


def test_interactive_and_gateway_asks_stay_asks(make_gate: Callable[..., Gate]) -> None:
    gate = make_gate(ASK_RM)
    for kind in ("interactive", "gateway"):
        assert gate.check(rm_call(context=kind)).verdict is Verdict.ASK


def test_the_policy_may_keep_asking_where_nobody_answers(make_gate: Callable[..., Gate]) -> None:
    gate = make_gate(ASK_RM + "contexts:\n  cron: {ask: ask}\n  gateway: {ask: deny}\n")
    assert gate.check(rm_call(context="cron")).verdict is Verdict.ASK
    denied = gate.check(rm_call(context="gateway"))
    assert (denied.code, denied.reason) == (
        "no-approver",
        "the policy turns asks into denials in the `gateway` context: publishing files",
    )


def test_policy_rules_can_match_contexts(make_gate: Callable[..., Gate]) -> None:
    gate = make_gate(
        "version: 1\nrules:\n"
        "  - {id: no-sends-from-cron, verdict: deny, match: {tool: send_message, context: cron}}\n"
    )
    send = {"target": "telegram:1", "message": "hi"}
    assert gate.check(ToolCall("send_message", send, context="cron")).code == "policy-deny"
    assert gate.check(ToolCall("send_message", send)).verdict is Verdict.ALLOW


SESSIONS = 24


def _own_path(n: int) -> str:
    return f"/srv/tmp/{n}"


def _session_work(gate: Gate, n: int, seen: dict[int, tuple[object, ...]]) -> None:
    """In session n: approve rm of its own path for the session, then check
    its own path and its neighbour's; record what it saw."""
    kind = ("interactive", "gateway")[n % 2]
    with context.use_context(kind, f"s{n}"):
        first = gate.check(rm_call(_own_path(n)))
        gate.record_outcome(None, rm_call(_own_path(n)), "approved", "session")
        own = gate.check(rm_call(_own_path(n)))
        neighbour = gate.check(rm_call(_own_path((n + 1) % SESSIONS)))
        seen[n] = (
            first.verdict,
            own.verdict,
            neighbour.verdict,
            own.context,
            context.current().session,
        )


def _expected(n: int) -> tuple[object, ...]:
    kind = ("interactive", "gateway")[n % 2]
    return (Verdict.ASK, Verdict.ALLOW, Verdict.ASK, kind, f"s{n}")


def test_threads_never_see_each_others_context_or_approvals(
    make_gate: Callable[..., Gate],
) -> None:
    gate = make_gate(ASK_RM)
    seen: dict[int, tuple[object, ...]] = {}
    barrier = threading.Barrier(SESSIONS)

    def worker(n: int) -> None:
        barrier.wait()
        _session_work(gate, n, seen)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(SESSIONS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == {n: _expected(n) for n in range(SESSIONS)}
    assert context.current() == CallContext()


def test_asyncio_tasks_never_see_each_others_context_or_approvals(
    make_gate: Callable[..., Gate],
) -> None:
    gate = make_gate(ASK_RM)
    seen: dict[int, tuple[object, ...]] = {}

    async def task(n: int) -> None:
        kind = ("interactive", "gateway")[n % 2]
        context.set_context(kind, f"s{n}")  # each task runs in its own copy of the context
        await asyncio.sleep(0)
        first = gate.check(rm_call(_own_path(n)))
        await asyncio.sleep(0)
        gate.record_outcome(None, rm_call(_own_path(n)), "approved", "session")
        await asyncio.sleep(0)
        own = gate.check(rm_call(_own_path(n)))
        neighbour = gate.check(rm_call(_own_path((n + 1) % SESSIONS)))
        seen[n] = (
            first.verdict,
            own.verdict,
            neighbour.verdict,
            own.context,
            context.current().session,
        )

    async def main() -> None:
        await asyncio.gather(*(task(n) for n in range(SESSIONS)))

    asyncio.run(main())
    assert seen == {n: _expected(n) for n in range(SESSIONS)}
    assert context.current() == CallContext()
