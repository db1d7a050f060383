"""Judging one call for the service: read it, log the decision, sign an
answer given at once. The service and its judging workers (`worker`) share
these steps, so an auto-decided call is answered the same way by either.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from redline.approve import run_settings
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
    signer: Signer,
    nonce: str,
    digest: str,
    seq: int | None,
    decision: Decision,
    run: Mapping[str, Any] | None = None,
) -> tuple[dict[str, Any], bytes]:
    """A signed answer given at once (allow, or deny), and its JSON text; a
    run's call gets its `run` object back, signed with the decision."""
    judged = decision.to_json()
    if run is not None:
        judged["run"] = dict(run)
    signed = signer.sign(
        request=f"auto-{seq}",
        nonce=nonce,
        call=digest,
        outcome="auto",
        verdict=str(decision.verdict),
        decision=judged,
    )
    # The signed text is reused: encoding the answer again cost as much.
    text = b'{"status":"answered","answer":%s,"sig":"%s"}' % (signed.text, signed.sig.encode())
    return {"status": "answered", **signed.envelope}, text


# -- `redline run`'s calls (`sandbox.served`)

RUN_FIELDS = {"settings": str, "network": bool, "hold": bool, "why": str}
"""A run's `run` object: the digest of the policy settings it used, whether
it runs with the network, whether an ask is held for the owner (`--service`),
and why its sandbox level is the one named in the call's `enforcement`."""


class StaleSettings(ValueError):
    """A run's call made with settings that are not the policy's: refused
    before it is judged or logged (409); the run judges it itself."""

    status = run_settings.STALE


def run_of(
    body: Mapping[str, Any], gate: Gate, call: ToolCall, service_dir: str | None
) -> dict[str, Any] | None:
    """The `run` object of a `redline run` call, checked (`check_run`);
    `None` for a hook's call."""
    run = body.get("run")
    if run is None:
        return None
    if not isinstance(run, dict) or set(run) != set(RUN_FIELDS):
        raise ValueError(f"`run` must be an object with {', '.join(sorted(RUN_FIELDS))}")
    for key, kind in RUN_FIELDS.items():
        if type(run[key]) is not kind:
            raise ValueError(f"`run.{key}` must be a {kind.__name__}")
    check_run(gate, call, run, service_dir)
    return dict(run)


def settings_json(gate: Gate) -> dict[str, Any]:
    return gate.policy.run.to_json()


def check_run(gate: Gate, call: ToolCall, run: Mapping[str, Any], service_dir: str | None) -> None:
    """`StaleSettings` unless `run` was made with the policy's own settings
    (the published file is written again for the next run); `ValueError` for
    a call that names no sandbox level."""
    settings = settings_json(gate)
    if run_settings.digest(settings) != run["settings"]:
        if service_dir is not None:
            publish_run_settings(service_dir, gate)
        raise StaleSettings("the run's sandbox settings are not the policy's; judge it again")
    if not isinstance(call.args.get("enforcement"), str):
        raise ValueError("a run's call names its sandbox level in `args.enforcement`")


def settle_run(
    gate: Gate, call: ToolCall, decision: Decision, run: Mapping[str, Any] | None
) -> Decision:
    """A run's decision as `redline run` would settle it itself
    (`sandbox.verdict`); a hook's call's as it is."""
    if run is None:
        return decision
    from redline.sandbox.verdict import settle

    return settle(
        decision, enforce=gate.policy.run.enforce, level=str(call.args["enforcement"]),
        why=run["why"], network=run["network"], hold=run["hold"],
    )  # fmt: skip


def logged_call(call: ToolCall, run: Mapping[str, Any] | None) -> ToolCall:
    """What the log names: a run's call with its working directory in the
    arguments, as `redline run` logs a call it judged itself."""
    if run is None:
        return call
    return call._replace(args={**call.args, "cwd": call.cwd})


def publish_run_settings(service_dir: str, gate: Gate) -> None:
    """Write the policy's run settings where `redline run` reads them; a
    failure only costs runs their local judgment."""
    from redline.approve.paths import ServicePaths

    try:
        run_settings.write(service_dir, settings_json(gate))
        home = os.path.dirname(service_dir)
        ServicePaths(home, _agent_group(service_dir)).secure_public(run_settings.path(service_dir))
    except (OSError, ValueError):
        return


def _agent_group(service_dir: str) -> str | None:
    from redline.approve.paths import AGENT_GROUP_FILE

    try:
        with open(os.path.join(service_dir, AGENT_GROUP_FILE), encoding="ascii") as file:
            return file.read().strip() or None
    except OSError:
        return None
