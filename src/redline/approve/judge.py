"""Judging one call for the service: read it, log the decision, sign an
answer given at once. The service and its judging workers (`worker`) share
these steps, so an auto-decided call is answered the same way by either.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from redline.approve.client import call_digest
from redline.approve.signing import Signer
from redline.audit.entry import Record
from redline.audit.recorder import LogUnavailable, decision_record, deny_log_unavailable
from redline.audit.redact import KnownSecrets, is_secret_name, secret_values
from redline.audit.store import Payload
from redline.decision import Decision, Verdict
from redline.gate.actions import ToolCall

if TYPE_CHECKING:
    from redline.gatekeeper import Gate

Append = Callable[[Record, Payload | None], Awaitable[int]]
"""Logs a record and returns its seq once committed (`LogUnavailable` if not)."""


class Call(NamedTuple):
    """A hook's request to judge a call, checked."""

    call: ToolCall
    nonce: str
    agent: str | None

    @property
    def digest(self) -> str:
        call = self.call
        return call_digest(call.tool, call.args, call.cwd, call.session, call.context, self.agent)


def known_secrets(environ: Mapping[str, str]) -> KnownSecrets:
    """The values of the secret-named variables: the log redacts them."""
    return secret_values({k: v for k, v in environ.items() if is_secret_name(k)})


def nonce_of(body: Mapping[str, Any]) -> str:
    nonce = body.get("nonce")
    if not isinstance(nonce, str) or not 16 <= len(nonce) <= 128:
        raise ValueError("a request needs a `nonce` of 16 to 128 characters")
    return nonce


def strings(body: Mapping[str, Any], keys: tuple[str, ...]) -> list[str | None]:
    values = [body.get(key) for key in keys]
    if not all(v is None or isinstance(v, str) for v in values):
        raise ValueError(", ".join(f"`{k}`" for k in keys) + " must be strings")
    return values


def read_call(body: Mapping[str, Any]) -> Call:
    """The call in a `/v1/decide` body; `ValueError` naming what is wrong."""
    tool, args = body.get("tool"), body.get("args") or {}
    if not isinstance(tool, str) or not tool or not isinstance(args, dict):
        raise ValueError("a call needs `tool` (a string) and `args` (an object)")
    nonce = nonce_of(body)
    cwd, context, session, agent = strings(body, ("cwd", "context", "session", "agent"))
    return Call(ToolCall(tool, args, cwd, context, session), nonce, agent)


UNREADABLE = ToolCall("(unreadable)", {}, None, None, None)
"""What the log names for a request whose call could not even be read."""


def check(gate: Gate, call: ToolCall) -> Decision:
    """The gate's decision for `call`. A call that breaks the gate (nested too
    deeply for it, or any fault) is a deny, logged like any other, never an
    HTTP 500 that the hook would report as `gate-unreachable`. `ValueError`
    (an unknown context) is the caller's 400."""
    try:
        return gate.check(call)
    except ValueError:
        raise
    except RecursionError:
        problem = "the call is nested too deeply to judge"
    except Exception as err:  # noqa: BLE001 - fail closed, with the reason
        problem = f"the gate failed on this call ({type(err).__name__}: {err})"
    return Decision(
        Verdict.DENY,
        reason=problem,
        repair="write the call plainly; if it keeps failing, tell the owner",
        code="unjudgeable",
    )


async def record_unreadable(append: Append, problem: str, known: KnownSecrets) -> None:
    """Log a request refused before its call could be read (`unjudgeable`)."""
    decision = Decision(
        Verdict.DENY,
        reason=f"the request cannot be judged: {problem}",
        repair="send the call as a plain JSON object",
        code="unjudgeable",
    )
    await record(append, UNREADABLE, None, decision, known)


async def record(
    append: Append, call: ToolCall, agent: str | None, decision: Decision, known: KnownSecrets
) -> tuple[Decision, int | None]:
    """Log the decision (committed before this returns); a log that cannot
    be written turns it into a deny."""
    try:
        entry, kept = decision_record(
            session=call.session,
            context=call.context,
            agent=agent,
            tool=call.tool,
            args=call.args,
            decision=decision,
            known=known,
        )
        seq = await append(entry, kept)
    except LogUnavailable as err:
        return deny_log_unavailable(err)._replace(hits=decision.hits), None
    return decision, seq


def answer_now(
    signer: Signer, nonce: str, digest: str, seq: int | None, decision: Decision
) -> tuple[dict[str, Any], bytes]:
    """A signed answer given at once (allow, or deny), and its JSON text."""
    signed = signer.sign(
        request=f"auto-{seq}",
        nonce=nonce,
        call=digest,
        outcome="auto",
        verdict=str(decision.verdict),
        decision=decision.to_json(),
    )
    # The signed text is reused: encoding the answer again cost as much.
    text = b'{"status":"answered","answer":%s,"sig":"%s"}' % (signed.text, signed.sig.encode())
    return {"status": "answered", **signed.envelope}, text
