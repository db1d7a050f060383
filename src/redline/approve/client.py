"""The hook's side of the service: ask, wait, verify, fail closed.

`decide_via_service` sends one call to `redline serve` over its Unix socket
(or loopback HTTP), waits for a held call's answer by long-polling (and
reconnecting if the service restarts) until the deadline, and verifies every
answer against the pinned public key. It never decides alone: an unreachable
service is `gate-unreachable`, an answer that does not verify is
`gate-unverified (<code>)`. It imports no HTTP library (a hook starts once per
tool call): `socket` and a few lines of HTTP/1.1.
"""

from __future__ import annotations

import base64
import json
import os
import time
from collections.abc import Mapping

from redline.approve.paths import ServicePaths
from redline.approve.wire import DECIDE_TIMEOUT_S, Disconnected, Unreachable, exchange
from redline.deadline import GATE_TIMEOUT, Deadline, below
from redline.decision import Decision, RuleHit, Severity, Span, Verdict
from redline.digest import sha256

TYPE_CHECKING = False  # not `typing`'s: a run's or a hook's start never loads it (ADR 0004)
if TYPE_CHECKING:
    from typing import IO, Any

    from redline.hooks.base import HookAdapter, HookCall, HookReply, Settings

CONNECT_TIMEOUT_S = 1.0
LONG_POLL_S = 20.0
GRACE_S = 15.0
"""How long past the deadline a hook keeps asking for the timeout's answer."""

# The canonical JSON a call's hash and an answer's signature are computed over
# (one encoder, not one per call).
_canonical = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode

NO_RETRY = (
    "Do not retry it another way (another tool, another spelling, a script or a sub-agent): "
    "the owner's answer is not an obstacle."
)


class Unverified(Exception):
    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(detail or code)
        self.code = code


def call_digest(
    tool: str,
    args: Mapping[str, Any],
    cwd: str | None,
    session: str | None,
    context: str | None,
    agent: str | None,
) -> str:
    """The canonical hash of a call, which every answer is bound to."""
    body = {
        "tool": tool,
        "args": args,
        "cwd": cwd,
        "session": session,
        "context": context,
        "agent": agent,
    }
    text = _canonical(body)
    return sha256(text.encode()).hexdigest()


def pinned_key(paths: ServicePaths, key: str | None = None) -> bytes:
    """The public key the hook trusts: `key` (base64) if given, else the file."""
    text = key
    if not text:
        try:
            with open(paths.public_key, encoding="ascii") as source:
                text = source.read()
        except OSError:
            raise Unverified("no-pinned-key", f"no public key at `{paths.public_key}`") from None
    try:
        raw = base64.b64decode(text.strip(), validate=True)
    except ValueError:
        raise Unverified("bad-pinned-key") from None
    if len(raw) != 32:
        raise Unverified("bad-pinned-key")
    return raw


def verify(
    envelope: Any,
    pinned: bytes,
    *,
    request: str | None,
    nonce: str,
    call: str,
    now: float | None = None,
    run: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The answer's body, if it is signed by the pinned key and bound to this
    request, nonce and call and still in date (and for a `redline run` call,
    carries back the `run` object it was sent); else `Unverified(code)`."""
    if not isinstance(envelope, dict) or not isinstance(envelope.get("answer"), dict):
        raise Unverified("malformed")
    body: dict[str, Any] = envelope["answer"]
    if body.get("key") != sha256(pinned).hexdigest()[:16]:
        raise Unverified("unknown-key")
    try:
        signature = base64.b64decode(str(envelope.get("sig", "")), validate=True)
    except ValueError:
        raise Unverified("bad-signature") from None
    if not signed_by(pinned, signature, _canonical(body).encode()):
        raise Unverified("bad-signature")
    if body.get("nonce") != nonce:
        raise Unverified("replayed")
    if request is not None and body.get("request") != request:
        raise Unverified("request-mismatch")
    if body.get("call") != call:
        raise Unverified("call-mismatch")
    moment = time.time() if now is None else now
    expires = body.get("expires")
    if not isinstance(expires, int | float) or moment > expires:
        raise Unverified("expired")
    if run is not None:
        judged = body.get("decision")
        if not isinstance(judged, dict) or judged.get("run") != dict(run):
            raise Unverified("run-mismatch")
    return body


def signed_by(pinned: bytes, signature: bytes, text: bytes) -> bool:
    """Whether `signature` is the pinned Ed25519 key's over `text`. Any
    failure (a bad key, a bad signature, a broken library) is a no."""
    try:
        try:  # the public class's own backend, without its `typing` and helpers (ADR 0004)
            from cryptography.hazmat.bindings._rust import openssl as backend

            key: Any = backend.ed25519.from_public_bytes(pinned)
        except (ImportError, AttributeError):
            from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

            key = Ed25519PublicKey.from_public_bytes(pinned)
        key.verify(signature, text)
    except Exception:  # noqa: BLE001 - fail closed on anything
        return False
    return True


def decide_hook_call(
    call: HookCall,
    environ: Mapping[str, str],
    key: str | None = None,
    deadline: Deadline | None = None,
) -> Decision:
    """A hook's call, as its adapter read it, sent to the service (the key
    pinned on the hook's command line, else `$REDLINE_SERVICE_KEY`)."""
    from redline.hooks.base import home_of

    return decide_via_service(
        call.tool,
        call.args,
        cwd=call.cwd,
        session=call.session,
        context=call.context,
        agent=call.host,
        home=home_of(environ),
        key=key or environ.get("REDLINE_SERVICE_KEY") or None,
        deadline=deadline,
    )


def decide_via_service(
    tool: str,
    args: Mapping[str, Any],
    *,
    cwd: str | None = None,
    session: str | None = None,
    context: str | None = None,
    agent: str | None = None,
    home: str,
    key: str | None = None,
    address: str | None = None,
    connect_timeout: float = CONNECT_TIMEOUT_S,
    deadline: Deadline | None = None,
) -> Decision:
    """The service's verified answer for one call, waiting while it is held,
    until `deadline` at most (then `gate-timeout`). Never raises for a service
    problem: every failure is a deny."""
    request = {"tool": tool, "args": dict(args), "cwd": cwd, "session": session}
    request.update({"context": context, "agent": agent})
    digest = call_digest(tool, args, cwd, session, context, agent)
    paths = ServicePaths(home)
    where = address or paths.remote() or paths.hook_socket
    return _ask(where, "/v1/decide", request, digest, home, key, connect_timeout, deadline)


def propose_via_service(
    kind: str,
    args: Mapping[str, Any],
    *,
    session: str | None = None,
    agent: str | None = None,
    home: str,
    key: str | None = None,
    address: str | None = None,
    connect_timeout: float = CONNECT_TIMEOUT_S,
    deadline: Deadline | None = None,
) -> Decision:
    """Propose an action (F-APPROVE-5) and wait for the owner: allow means the
    service carried it out."""
    request = {"kind": kind, "args": dict(args), "session": session, "agent": agent}
    digest = call_digest(kind, args, None, session, None, agent)
    where = address or ServicePaths(home).hook_socket
    return _ask(where, "/v1/proposals", request, digest, home, key, connect_timeout, deadline)


def _token_header(where: str, home: str) -> dict[str, str] | None:
    """On loopback HTTP, the install's hook token (the service refuses a hook
    route without it); over HTTPS, this agent's token; the Unix socket needs none."""
    if where.startswith("/"):
        return None
    if where.startswith("https://"):
        try:
            with open(ServicePaths(home).agent_token_file, encoding="utf-8") as file:
                agent_token = file.read().strip()
        except OSError:
            return None  # the service refuses the call: the hook fails closed
        return {"Authorization": f"Bearer {agent_token}"}
    from redline.approve.install_secrets import HOOK_TOKEN_HEADER, read_hook_token

    token = read_hook_token(ServicePaths(home))
    return {HOOK_TOKEN_HEADER: token} if token else None


def _remote_ca(where: str, home: str) -> str | None:
    if "https://" not in where:
        return None
    ca = ServicePaths(home).remote_ca_file
    return ca if os.path.exists(ca) else None


def _ask(
    where: str,
    path: str,
    request: dict[str, Any],
    digest: str,
    home: str,
    key: str | None,
    connect_timeout: float,
    deadline: Deadline | None,
) -> Decision:
    try:
        pinned = pinned_key(ServicePaths(home), key)
    except Unverified as err:
        return unverified(err.code, str(err))
    nonce = request["nonce"] = os.urandom(16).hex()
    bound = deadline or Deadline(float("inf"))
    headers = _token_header(where, home)
    ca = _remote_ca(where, home)
    try:
        status, reply = exchange(
            where,
            "POST",
            path,
            request,
            timeout=bound.wait_s(DECIDE_TIMEOUT_S),
            connect_timeout=bound.wait_s(connect_timeout),
            headers=headers,
            ca=ca,
        )
    except (Unreachable, Disconnected) as err:
        if bound.wait_s() <= 0:
            return service_timeout(bound)
        return unreachable(str(err))
    if status != 200 or not isinstance(reply, dict):
        return refused(status, reply)
    try:
        if reply.get("status") == "answered":
            return from_answer(verify(reply, pinned, request=None, nonce=nonce, call=digest))
        held, expires = str(reply["request"]), float(reply["deadline"])
        return wait_held(
            where, held, expires, pinned, nonce, digest, connect_timeout, bound, headers, ca
        )
    except Unverified as err:
        return unverified(err.code, str(err))
    except (KeyError, TypeError, ValueError):
        return unverified("malformed", "the service's reply cannot be read")


def wait_held(
    where: str,
    held: str,
    expires: float,
    pinned: bytes,
    nonce: str,
    digest: str,
    connect_timeout: float,
    bound: Deadline,
    headers: dict[str, str] | None = None,
    ca: str | None = None,
    run: Mapping[str, Any] | None = None,
) -> Decision:
    """Long-poll for held call `held` until it `expires` (wall clock) and
    `GRACE_S` more, or the hook's deadline `bound` comes first; `Unverified`
    for an answer that does not verify."""
    problem: str | None = None
    while (left := expires + GRACE_S - time.time()) > 0:
        if (mine := bound.wait_s()) <= 0:
            return service_timeout(bound, held)
        wait = max(0.5, min(LONG_POLL_S, left))
        if mine < wait + 1:  # the service answers a poll up to `wait` later
            wait = max(0.1, mine - 1)
        path = f"/v1/held/{held}?nonce={nonce}&wait={wait:.1f}"
        try:
            status, reply = exchange(
                where,
                "GET",
                path,
                timeout=min(wait + 10, mine),
                connect_timeout=min(connect_timeout, mine),
                headers=headers,
                ca=ca,
            )
        except (Unreachable, Disconnected) as err:
            problem = str(err)
            time.sleep(min(0.5, max(0.0, left), bound.wait_s()))
            continue
        problem = None
        if status == 404:
            raise Unverified("unknown-request", f"the service does not know request `{held}`")
        if isinstance(reply, dict) and reply.get("status") == "answered":
            body = verify(reply, pinned, request=held, nonce=nonce, call=digest, run=run)
            return from_answer(body)
    if problem is not None:
        return unreachable(problem)
    return outcome_timeout(held)


def _hits(decision: Mapping[str, Any]) -> tuple[RuleHit, ...]:
    hits = []
    for hit in decision.get("hits", ()):
        span = hit.get("span")
        hits.append(
            RuleHit(
                str(hit["id"]),
                str(hit.get("description", "")),
                Severity[str(hit.get("severity", "dangerous")).upper()],
                str(hit.get("category", "")),
                None if span is None else Span(int(span[0]), int(span[1])),
                str(hit.get("repair", "")),
            )
        )
    return tuple(hits)


def from_answer(body: Mapping[str, Any]) -> Decision:
    """The Decision a verified answer stands for."""
    decision = body.get("decision") or {}
    hits = _hits(decision)
    context = decision.get("context")
    outcome = body.get("outcome")
    answer = body.get("answer") or {}
    if outcome == "auto":
        verdict = Verdict.parse(str(body.get("verdict")))
        return Decision(
            Verdict.DENY if verdict is Verdict.ASK else verdict,
            hits,
            str(decision.get("reason", "")),
            str(decision.get("repair", "")),
            bool(decision.get("hardline", False)),
            decision.get("code"),
            context,
            tuple(str(n) for n in decision.get("notes", ())),
        )
    who = f"{answer.get('by') or 'the owner'} via {answer.get('channel') or 'the service'}"
    proposal = decision.get("code") == "proposal"
    what = "proposal" if proposal else "call"
    if outcome == "approved" and body.get("verdict") == "allow":
        scope = answer.get("scope") or "once"
        done = "the service carried it out" if proposal else "it runs"
        reason = f"the owner approved this {what} ({who}, {scope}); {done}"
        return Decision(Verdict.ALLOW, hits, reason, code="approved", context=context)
    if outcome == "rejected":
        said = str(answer.get("reason") or "").strip()
        reason = f"the owner rejected this {what} ({who})" + (f": {said}" if said else "")
        repair = (
            "tell the owner plainly that it was not done because they declined it; do not try "
            f"again. {NO_RETRY}"
        )
        return Decision(Verdict.DENY, hits, reason, repair, code="rejected", context=context)
    if outcome == "timeout":
        return outcome_timeout(str(body.get("request")), hits, context)
    raise Unverified("malformed", f"unknown outcome `{outcome}`")


def outcome_timeout(
    held: str, hits: tuple[RuleHit, ...] = (), context: str | None = None
) -> Decision:
    return Decision(
        Verdict.DENY,
        hits,
        f"nobody answered in time: approval request `{held}` expired and the call did not run",
        "tell the owner what you were about to do and that it needs their approval in their "
        "approval bot; do it only if they ask again and approve",
        code="timeout",
        context=context,
    )


def service_timeout(bound: Deadline, held: str | None = None) -> Decision:
    """The hook's deadline came before the service's answer (`gate-timeout`)."""
    what = (
        "the approval service did not answer"
        if held is None
        else (f"approval request `{held}` was not answered")
    )
    return Decision(
        Verdict.DENY,
        reason=f"{what} within the hook's deadline of {bound.total:g} s; the call did not run",
        repair=f"tell the owner, with the code `{GATE_TIMEOUT}`. {NO_RETRY}",
        code=GATE_TIMEOUT,
    )


def service_deadline(settings: Settings, start: float | None = None) -> Deadline:
    """A `--service` hook's deadline: `settings.deadline_s`, else `MARGIN_S`
    below the host timeout `redline install --service` writes for the
    default hold."""
    if settings.deadline_s is not None:
        return settings.deadline_for(start)
    from redline.hooks.install.service import host_timeout_s

    return Deadline(below(host_timeout_s()), start)


def unreachable(problem: str) -> Decision:
    return Decision(
        Verdict.DENY,
        reason=f"the approval service cannot be reached ({problem}); nothing that needs the "
        "gate can run right now",
        repair=f"tell the owner, with the code `gate-unreachable`. {NO_RETRY}",
        code="gate-unreachable",
    )


def unverified(code: str, detail: str = "") -> Decision:
    full = f"gate-unverified ({code})"
    extra = f": {detail}" if detail and detail != code else ""
    return Decision(
        Verdict.DENY,
        reason=f"the approval service's answer cannot be verified{extra}; the call is blocked",
        repair=f"tell the owner, with the code `{full}`. {NO_RETRY}",
        code=full,
    )


def handle_service(
    adapter: HookAdapter,
    stdin: IO[bytes],
    settings: Settings,
    environ: Mapping[str, str],
    key: str | None = None,
    deadline: Deadline | None = None,
) -> HookReply:
    """`redline hook AGENT --service`: like `hooks.base.handle`, but the
    service decides, by `deadline` (default `service_deadline`). Never
    raises; every failure is the adapter's block."""
    from redline.hooks.base import POST_TOOL_USE, failed, read_payload

    if deadline is None:
        deadline = service_deadline(settings)
    try:
        call = adapter.parse(read_payload(stdin), settings)
        if call.event == POST_TOOL_USE:
            return adapter.acknowledge(call)  # the service logged the outcome itself
        decision = decide_hook_call(call, environ, key, deadline)
        if decision.code == "approved":
            settings = settings._replace(allow_explicit=True)
        return adapter.render(call, decision, settings)
    except Exception as error:  # noqa: BLE001 - fail closed on anything
        return failed(adapter, error)


def refused(status: int, reply: Any) -> Decision:
    """The deny for a call the service did not take (its status and error)."""
    problem = reply.get("error") if isinstance(reply, dict) else None
    return Decision(
        Verdict.DENY,
        reason=f"the approval service refused the call: {problem or f'status {status}'}",
        repair="fix the call as the reason says",
        code="gate-refused",
    )
