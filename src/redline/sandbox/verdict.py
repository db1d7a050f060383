"""What a `redline run` verdict becomes once the sandbox is taken into
account. Pure, and shared by the two places that judge a run: `redline run`
itself (`sandbox.run.prepare`) and the approval service answering a run's
call (`approve.judge.settle_run`), so both refuse the same runs, for the
same reasons, before the decision is logged.

- An ask nobody will be asked (`redline run` without `--service`) is a deny.
- An allow the policy's `enforce: required` cannot keep (no kernel sandbox)
  is a deny; so is an allow without network where only the namespace
  sandbox can switch the network off.
- An ask that will go to the owner is refused the same way when an approval
  would be refused anyway: the owner is not asked for a run that cannot go.
"""

from __future__ import annotations

from redline.decision import Decision, Verdict
from redline.sandbox.level import NAMESPACES, NONE, REPAIR

SANDBOX_UNAVAILABLE = "sandbox-unavailable"
NETWORK_OFF_UNAVAILABLE = "network-off-unavailable"
ASK_NEEDS_SERVICE = "ask-needs-service"


def settle(
    decision: Decision, *, enforce: str, level: str, why: str, network: bool, hold: bool
) -> Decision:
    """`decision` for a run under sandbox `level` (named, and `why` it is the
    one), with the network on or off, where an ask is held for the owner
    (`hold`) or not; a refusal when the run cannot go as judged."""
    if decision.verdict is Verdict.ASK and not hold:
        return decision._replace(
            verdict=Verdict.DENY,
            reason=f"this command needs the owner's approval ({decision.reason}), "
            "and nobody was asked",
            repair="run it with `redline run --service` while `redline serve` is running, "
            "so the owner can approve it",
            code=ASK_NEEDS_SERVICE,
        )
    if decision.verdict is Verdict.DENY:
        return decision
    if enforce == "required" and level == NONE:
        return Decision(
            Verdict.DENY,
            reason=f"the policy requires a kernel sandbox and none is available: {why}",
            repair=REPAIR,
            code=SANDBOX_UNAVAILABLE,
            context=decision.context,
        )
    if not network and level != NAMESPACES:
        return Decision(
            Verdict.DENY,
            reason=f"a run without network needs the namespace sandbox; this one is {level}",
            repair="allow user namespaces for bubblewrap (see `redline run --explain`), "
            "or run with the network on",
            code=NETWORK_OFF_UNAVAILABLE,
            context=decision.context,
        )
    return decision
