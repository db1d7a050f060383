"""Embedded mode: judge a hook's call in this process, with the local policy,
the session's saved state and the approval log.

`decide` returns the Decision the host will be given, after the adapter's
`shape` (a host that cannot ask turns an ask into a deny), and records that
Decision in the log. A policy that cannot be loaded and a log that cannot be
written are denials with their own codes, never a pass. `after` handles a
post-tool-use event: a call that was asked and then ran was approved by the
person, once; that outcome goes to the log and to the session's state.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from redline.deadline import Deadline
from redline.decision import Decision, Verdict
from redline.hooks.base import HookCall, HookError, home_of

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from redline.gate.actions import ToolCall
    from redline.gatekeeper import Gate
    from redline.opinion.consult import Opinion

POLICY_UNAVAILABLE = "policy-unavailable"

Shape = Callable[[Decision], Decision]


def same(decision: Decision) -> Decision:
    return decision


def _gate(environ: Mapping[str, str], deadline: Deadline | None = None) -> Gate | Decision:
    from redline.gatekeeper import Gate
    from redline.policy.load import PolicyError

    try:
        gate = Gate.from_environ(environ)
        if deadline is not None:
            deadline.check("loading the policy")
        return gate
    except PolicyError as error:
        first = str(error).splitlines()[0] if str(error) else "the policy cannot be loaded"
        return Decision(
            Verdict.DENY,
            reason=f"the approval policy cannot be loaded: {first}",
            repair="the owner must fix the policy (`redline policy lint`); until then nothing runs",
            code=POLICY_UNAVAILABLE,
        )


def _tool_call(call: HookCall) -> ToolCall:
    from redline.gate.actions import ToolCall

    return ToolCall(call.tool, call.args, call.cwd, call.context, call.session)


def decide(
    call: HookCall,
    environ: Mapping[str, str],
    shape: Shape = same,
    deadline: Deadline | None = None,
) -> Decision:
    """Judge, shape and record one call; every wait ends by `deadline`
    (`DeadlinePassed` past it, `log-busy` for the log's lock)."""
    gate = _gate(environ, deadline)
    if isinstance(gate, Decision):
        return _record(call, gate, environ, deadline)[0]
    file = None
    notes: list[str] = []
    if call.session:
        from redline.hooks.state import SessionFile, apply

        file = SessionFile.of(home_of(environ), call.host, call.session, deadline)
        try:
            apply(file.read(), gate, call.session)
        except (KeyError, TypeError, ValueError) as error:
            file.warnings.append(f"session state `{file.path}` ignored: {error}")
        notes.extend(file.warnings)
    tool_call = _tool_call(call)
    try:
        evaluation = gate.evaluate(tool_call)
    except ValueError as error:  # an unknown context name
        raise HookError(str(error)) from None
    decision = evaluation.decision
    opinion = None
    if gate.policy.opinion is not None and shape(decision).verdict is not Verdict.DENY:
        from redline.opinion.consult import consult

        left = None if deadline is None else deadline.left()
        decision, opinion = consult(
            gate, tool_call, decision, environ, time_left=left, evaluation=evaluation
        )
    decision = shape(decision)
    if notes:
        decision = decision._replace(notes=(*decision.notes, *notes))
    decision, seq = _record(call, decision, environ, deadline)
    if opinion is not None and seq is not None:
        decision = _record_opinion(call, tool_call, opinion, seq, decision, environ, deadline)
    if decision.verdict is Verdict.ASK and file is not None and call.tool_use_id:
        from redline.hooks.state import note_ask

        use_id = call.tool_use_id
        file.update(lambda data: note_ask(data, use_id, seq, tool_call))
    return decision


def _record(
    call: HookCall, decision: Decision, environ: Mapping[str, str], deadline: Deadline | None
) -> tuple[Decision, int | None]:
    from redline.audit.recorder import LogUnavailable, deny_log_unavailable
    from redline.audit.recorder import record_decision as append
    from redline.audit.shared import drop_shared_log, shared_log

    try:
        seq = append(
            shared_log(environ, deadline),
            session=call.session,
            context=call.context,
            agent=call.host,
            tool=call.tool,
            args={**call.args, **call.logged} if call.logged else call.args,
            decision=decision,
            environ=environ,
            deadline=deadline,
        )
    except LogUnavailable as error:
        drop_shared_log()
        denied = deny_log_unavailable(error)
        return denied._replace(context=decision.context, hits=decision.hits), None
    return decision, seq


def _record_opinion(
    call: HookCall,
    tool_call: ToolCall,
    opinion: Opinion,
    seq: int,
    decision: Decision,
    environ: Mapping[str, str],
    deadline: Deadline | None,
) -> Decision:
    """Log the second opinion after its decision; a log that cannot take it
    refuses the call, as for the decision itself (nothing goes unrecorded)."""
    from redline.audit.recorder import LogUnavailable, deny_log_unavailable
    from redline.audit.shared import drop_shared_log, shared_log
    from redline.opinion.consult import opinion_record

    entry = opinion_record(opinion, ref=seq, call=tool_call, agent=call.host)
    try:
        shared_log(environ, deadline).append(entry, deadline=deadline)
    except LogUnavailable as error:
        drop_shared_log()
        return deny_log_unavailable(error)._replace(context=decision.context, hits=decision.hits)
    return decision


def after(
    call: HookCall,
    environ: Mapping[str, str],
    outcome: str = "approved",
    reason: str = "",
    deadline: Deadline | None = None,
) -> None:
    """A tool ran: if redline had asked, the person approved it (once). A host
    that reports what became of the call gives its `outcome` (`rejected`,
    `timeout`, `gate-unreachable`: it did not run) and `reason`."""
    if not call.session or not call.tool_use_id:
        return
    from redline.hooks.state import SessionFile

    file = SessionFile.of(home_of(environ), call.host, call.session, deadline)
    use_id = call.tool_use_id
    asked = file.read()["asks"].get(use_id)
    if not isinstance(asked, dict):
        return
    from redline.audit.recorder import LogUnavailable, Outcome, outcome_record
    from redline.audit.shared import drop_shared_log, shared_log
    from redline.gate.actions import ToolCall
    from redline.hooks.state import record_outcome as remember

    gate = _gate(environ, deadline)
    if not isinstance(gate, Decision):
        ran = ToolCall(
            str(asked["tool"]), asked["args"], asked.get("cwd"), asked.get("context"), call.session
        )
        if outcome != Outcome.UNREACHABLE:  # nobody answered: nothing to remember
            remember(gate, file, call.session, ran, outcome, "once")
    file.update(lambda data: data["asks"].pop(use_id, None))
    seq = asked.get("seq")
    if isinstance(seq, int):
        try:
            ran_after_asking = outcome_record(
                ref=seq,
                outcome=Outcome(outcome),
                channel=call.host,
                session=call.session,
                agent=call.host,
                tool=call.tool,
                reason=reason or f"the call ran after {call.host} asked the person",
            )
            shared_log(environ, deadline).append(ran_after_asking, deadline=deadline)
        except LogUnavailable:
            drop_shared_log()
            raise


def cannot_ask(host: str) -> Shape:
    """For a host (or a setting) where nobody can be asked: ask becomes deny.
    The reason stays the gate's; the code says nobody could be asked, and the
    host's text says it once (`messages.approval_needed`)."""

    def shape(decision: Decision) -> Decision:
        if decision.verdict is not Verdict.ASK:
            return decision
        return decision._replace(
            verdict=Verdict.DENY,
            code="no-approver",
            notes=(*decision.notes, f"{host} cannot ask the owner here"),
        )

    return shape


def cannot_ask_if(nobody_there: Callable[[], bool], host: str) -> Shape:
    """An ask stays an ask unless `nobody_there()` says the session is
    headless; it is only checked for an ask."""
    refuse = cannot_ask(host)

    def shape(decision: Decision) -> Decision:
        if decision.verdict is not Verdict.ASK or not nobody_there():
            return decision
        return refuse(decision)

    return shape
