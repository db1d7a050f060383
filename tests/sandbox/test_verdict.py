"""`sandbox.verdict.settle`: what the local run and the service both apply."""

from __future__ import annotations

from redline.decision import Decision, Verdict
from redline.sandbox.level import LANDLOCK, NAMESPACES, NONE
from redline.sandbox.verdict import settle

ASKED = Decision(Verdict.ASK, reason="force push", code=None)
ALLOWED = Decision(Verdict.ALLOW, reason="no rule matched")


def test_an_ask_nobody_is_asked_is_a_deny_and_a_held_one_stays() -> None:
    refused = settle(
        ASKED, enforce="best-effort", level=NAMESPACES, why="", network=True, hold=False
    )
    assert (refused.verdict, refused.code) == (Verdict.DENY, "ask-needs-service")
    held = settle(ASKED, enforce="best-effort", level=NAMESPACES, why="", network=True, hold=True)
    assert held == ASKED


def test_a_run_that_could_not_go_is_refused_before_the_owner_is_asked() -> None:
    for decision in (ALLOWED, ASKED):
        unboxed = settle(decision, enforce="required", level=NONE, why="no bwrap", network=True,
                         hold=True)  # fmt: skip
        assert (unboxed.verdict, unboxed.code) == (Verdict.DENY, "sandbox-unavailable")
        assert unboxed.reason.endswith("no bwrap")
        online = settle(decision, enforce="best-effort", level=LANDLOCK, why="", network=False,
                        hold=True)  # fmt: skip
        assert (online.verdict, online.code) == (Verdict.DENY, "network-off-unavailable")


def test_a_deny_and_a_run_that_can_go_are_unchanged() -> None:
    denied = Decision(Verdict.DENY, reason="hard line", hardline=True)
    assert (
        settle(denied, enforce="required", level=NONE, why="", network=False, hold=False) == denied
    )
    assert settle(ALLOWED, enforce="required", level=NAMESPACES, why="", network=False,
                  hold=False) == ALLOWED  # fmt: skip
