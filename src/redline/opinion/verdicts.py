"""The only place a model's words can change a verdict, and they can only
tighten it (F-APPROVE-6). Pure: no I/O, no clock.

A reply is one line, `KEEP: reason`, `ASK: reason` or `DENY: reason`; any
other text (an approval, two lines, JSON, a fence, a word we did not offer)
is no reply at all, and changes nothing. `tighten` moves a verdict at most
one step: allow -> ask, ask -> deny. A deny, a hard line, or an unparsed
reply leave the decision exactly as it was.
"""

from __future__ import annotations

import re

from redline.decision import Decision, Verdict
from redline.fasttuple import NamedTuple

CODE = "second-opinion"
MAX_REASON = 200
WORDS = {"KEEP": None, "ASK": Verdict.ASK, "DENY": Verdict.DENY}
_REPLY = re.compile(r"(KEEP|ASK|DENY): ([^\x00-\x1f\x7f]{1,200})", re.IGNORECASE)


class Reply(NamedTuple):
    """A well-formed reply: its word (`KEEP`, `ASK`, `DENY`) and its reason."""

    word: str
    reason: str

    @property
    def wants(self) -> Verdict | None:
        return WORDS[self.word]


def parse_reply(text: object) -> Reply | None:
    """The reply in `text`, or `None` for anything that is not exactly one
    line of the expected form (surrounding blanks aside)."""
    if not isinstance(text, str) or len(text) > 4 * MAX_REASON:
        return None
    match = _REPLY.fullmatch(text.strip(" \t\r\n"))
    if match is None:
        return None
    reason = " ".join(match.group(2).split())
    if not reason:
        return None
    return Reply(match.group(1).upper(), reason)


def tighten(decision: Decision, reply: Reply | None, model: str) -> Decision:
    """`decision`, made stricter by one step if `reply` asks for it."""
    if reply is None or decision.hardline or decision.verdict is Verdict.DENY:
        return decision
    wanted = reply.wants
    if wanted is None or wanted <= decision.verdict:
        return decision
    # One step at most: a model alone never turns an allowed call into a deny.
    verdict = Verdict(min(int(wanted), int(decision.verdict) + 1))
    said = f"a second opinion ({model}) judged it riskier than the rules did: {reply.reason}"
    rules = decision.reason or "no rule matched"
    if verdict is Verdict.ASK:
        repair = decision.repair or "wait for the owner's answer; do not try another way"
    else:
        repair = "do not retry or work around it; tell the owner what you wanted to do and why"
    return decision._replace(
        verdict=verdict,
        reason=f"{said} (the rules said {decision.verdict}: {rules})",
        repair=repair,
        code=CODE,
    )
