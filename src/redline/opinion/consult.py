"""The second-opinion step: after the gate's verdict, before anyone is told.

`consult` takes the deterministic decision and returns it, tightened by at
most one step, with the `Opinion` to log (or `None` when the model was not
asked at all). It never asks about a deny or a hard line, nor about a call
the owner already approved (a session or always grant: an answer of theirs
that no model may overturn); it runs before a call is held, so it never
meets an owner's answer either. A model that is slow, failing, over budget,
without its key or unparsable changes nothing, and its `Opinion` says why.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from redline.audit.entry import Kind, Record, canonical_json, format_epoch
from redline.audit.redact import KnownSecrets, redact_text, redact_value
from redline.decision import Decision, Verdict
from redline.fasttuple import NamedTuple
from redline.gate.actions import ToolCall
from redline.opinion import verdicts

TYPE_CHECKING = False  # not `typing`'s: kept off a hook's start (ADR 0004)
if TYPE_CHECKING:
    from typing import Any

    from redline.gate.engine import Evaluation
    from redline.gatekeeper import Gate
    from redline.policy.model import OpinionSettings

MAX_LOGGED_REPLY = 400
RESERVE_S = 1.0
"""What a caller's deadline keeps for recording the decision after the model."""
MIN_TIMEOUT_S = 0.05


class Opinion(NamedTuple):
    """What the model said of one call, and what it did to the verdict.

    `status`: `tightened`, `kept` (a well-formed reply that changed nothing),
    `unparsable`, `timeout`, `http-error`, `unreachable`, `bad-response`,
    `over-budget` or `no-key` (the last six: the model gave no usable reply).
    """

    model: str
    status: str
    before: Verdict
    after: Verdict
    summary: str = ""
    reply: str = ""
    latency_ms: int = 0
    signals: tuple[str, ...] = ()
    detail: str = ""

    @property
    def changed(self) -> bool:
        return self.after is not self.before

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "status": self.status,
            "before": str(self.before),
            "after": str(self.after),
            "changed": self.changed,
            "summary": self.summary,
            "reply": self.reply,
            "latency_ms": self.latency_ms,
            "signals": list(self.signals),
            "detail": self.detail,
        }


def selected(
    gate: Gate,
    call: ToolCall,
    decision: Decision,
    environ: Mapping[str, str],
    evaluation: Evaluation | None = None,
) -> tuple[str, ...] | None:
    """The risk signals if the policy sends this call to the model, else `None`.
    `evaluation`: the gate's evaluation that gave `decision`, if the caller has it."""
    settings = gate.policy.opinion
    if settings is None or decision.hardline or decision.verdict is Verdict.DENY:
        return None
    if evaluation is None:
        evaluation = gate.evaluate(call)
    if decision.verdict is Verdict.ALLOW and evaluation.asks:
        return None  # allowed only because the owner approved it before
    from redline.opinion.signals import risk_signals

    signals = risk_signals(evaluation.facts, call, environ)
    if decision.verdict is Verdict.ASK:
        return signals if "asked" in settings.on else None
    if "allowed" in settings.on or set(signals) & settings.signals:
        return signals
    return None


def consult(
    gate: Gate,
    call: ToolCall,
    decision: Decision,
    environ: Mapping[str, str],
    *,
    known: KnownSecrets | None = None,
    time_left: float | None = None,
    evaluation: Evaluation | None = None,
) -> tuple[Decision, Opinion | None]:
    """`decision`, perhaps one step stricter, and the opinion to log.
    `time_left`: what the caller's own deadline leaves (the model gets less);
    `evaluation`: the gate's, if the caller has it (saves judging twice)."""
    settings = gate.policy.opinion
    if settings is None:
        return decision, None
    signals = selected(gate, call, decision, environ, evaluation)
    if signals is None:
        return decision, None
    timeout_s = settings.timeout_ms / 1000
    if time_left is not None:
        timeout_s = min(timeout_s, time_left - RESERVE_S)
    opinion, text = _ask(settings, call, decision, signals, environ, known, timeout_s)
    reply = verdicts.parse_reply(text) if opinion.status == "ok" else None
    if opinion.status == "ok" and reply is None:
        return decision, opinion._replace(status="unparsable")
    if reply is None:
        return decision, opinion
    after = verdicts.tighten(decision, reply, settings.model)
    status = "tightened" if after.verdict is not decision.verdict else "kept"
    return after, opinion._replace(status=status, after=after.verdict, summary=reply.reason)


def _ask(
    settings: OpinionSettings,
    call: ToolCall,
    decision: Decision,
    signals: tuple[str, ...],
    environ: Mapping[str, str],
    known: KnownSecrets | None,
    timeout_s: float,
) -> tuple[Opinion, str | None]:
    from redline.audit.redact import is_secret_name, secret_values
    from redline.home import home_dir
    from redline.opinion.budget import Budget

    opinion = Opinion(settings.model, "ok", decision.verdict, decision.verdict, signals=signals)
    if timeout_s < MIN_TIMEOUT_S:
        return opinion._replace(status="timeout", detail="no time left to ask"), None
    key = None
    if settings.api_key_env:
        key = environ.get(settings.api_key_env) or None
        if key is None:
            detail = f"`${settings.api_key_env}` is not set"
            return opinion._replace(status="no-key", detail=detail), None
    if not Budget.in_home(home_dir(environ), settings.max_calls_per_hour).take():
        detail = f"more than {settings.max_calls_per_hour} calls in the last hour"
        return opinion._replace(status="over-budget", detail=detail), None
    from redline.opinion.chat import complete
    from redline.opinion.prompt import messages

    if known is None:
        known = secret_values({k: v for k, v in environ.items() if is_secret_name(k)})
    args = redact_value(dict(call.args), known)
    chat = messages(call.tool, args, call.cwd, decision, signals)
    result = complete(
        settings.base_url,
        settings.model,
        chat,
        api_key=key,
        timeout_s=timeout_s,
    )
    # The reply is redacted before it is even read: a model that echoes a
    # secret (or the key) puts it neither in a reason nor in the log.
    text = None if result.text is None else redact_text(_storable(result.text), known)
    if text is not None and key:
        text = text.replace(key, "[REDACTED]")
    logged = opinion._replace(
        status=result.status,
        reply=(text or "")[:MAX_LOGGED_REPLY],
        latency_ms=result.latency_ms,
        detail=result.detail,
    )
    return logged, text


def _storable(text: str) -> str:
    """Text every log backend stores: no NUL, no lone surrogate (PostgreSQL's
    JSON refuses both, and a refused entry would refuse the call)."""
    text = text.replace("\x00", "\ufffd")
    return text.encode("utf-8", "replace").decode("utf-8")


def opinion_record(
    opinion: Opinion, *, ref: int | None, call: ToolCall, agent: str | None
) -> Record:
    """The `opinion` entry for decision `ref`."""
    return Record(
        kind=Kind.OPINION,
        time=format_epoch(time.time()),
        session=call.session,
        context=call.context,
        agent=agent,
        tool=call.tool,
        args=canonical_json(opinion.to_json()),
        verdict=str(opinion.after),
        reason=opinion.summary or opinion.detail,
        code=f"opinion-{opinion.status}",
        ref=ref,
        channel=opinion.model,
    )
