"""Codes in the words each host's agent is taught: Hermes agents learn the
`hook-` codes and the service's failures from their approval skill."""

from __future__ import annotations

import pytest

from redline.approve.client import outcome_timeout, unreachable, unverified
from redline.decision import Decision, Verdict
from redline.hooks import messages
from redline.hooks.hermes import _block


@pytest.mark.parametrize(
    ("code", "spelled"),
    [
        ("unsupported-execution-context", "hook-unsupported-execution-context"),
        ("execute-code-unbound", "hook-hermes-execute-code-unbound"),
        ("timeout", "hook-timeout"),
        ("gate-unreachable", "approval facade unreachable"),
        ("gate-unverified (bad-signature)", "av-approval: gate unverified (bad-signature)"),
        ("never-run", "never-run"),
        ("no-approver", "no-approver"),
    ],
)
def test_hermes_codes(code: str, spelled: str) -> None:
    assert messages.hermes_code(code) == spelled


def test_unreachable_reads_as_the_seed_says() -> None:
    text = _block(unreachable("connection refused"))["message"]
    assert text.startswith("redline refused this call (`approval facade unreachable`): ")
    assert "with the code `approval facade unreachable`" in text
    assert "gate-unreachable" not in text


def test_unverified_reads_as_the_seed_says() -> None:
    text = _block(unverified("replayed"))["message"]
    assert "(`av-approval: gate unverified (replayed)`)" in text
    assert "with the code `av-approval: gate unverified (replayed)`" in text


def test_timeout_reads_as_the_seed_says() -> None:
    text = _block(outcome_timeout("req-1"))["message"]
    assert text.startswith("redline refused this call (`hook-timeout`): nobody answered in time")
    assert "expired" in text


def test_other_hosts_keep_the_plain_codes() -> None:
    decision = unreachable("connection refused")
    assert "(`gate-unreachable`)" in messages.refusal(decision)


def test_a_decision_without_a_code_is_left_alone() -> None:
    decision = Decision(Verdict.DENY, reason="no", code=None)
    assert messages.in_hermes_words(decision) is decision
