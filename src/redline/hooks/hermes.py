"""Hermes agent: its shell `pre_tool_call` hook, and a Python plugin (whose
enforcement, `--enforce`, is in `hermes_enforce`).

Shell hook (`hooks: pre_tool_call:` in the profile's `config.yaml`): Hermes
runs the command without a shell and sends `hook_event_name`, `tool_name`,
`tool_input` (the arguments), `session_id`, `cwd`, `profile` and `extra` on
stdin. On stdout `{"action": "block", "message": ...}` blocks the call and the
message becomes the tool's result for the model. Hermes reads nothing else:
a non-zero exit, stderr, garbage on stdout or a timeout are logged and the
call runs. So every failure here is the block object on stdout with exit 0
(`failure`), and the installed command prints one itself when this process
cannot start or finish (see `redline.hooks.install.hermes`). A shell hook
cannot ask, so an ask is refused with a text that says the owner's approval
is needed.

Plugin (`register(ctx)`, entry point `hermes_agent.plugins: redline`, loaded
from Hermes's own Python when `plugins: enabled: [redline]`): in process,
`pre_tool_call(tool_name=..., args=..., session_id=..., ...)` returns `None`
to let the call run, `{"action": "block", "message": ...}` to refuse it, or
`{"action": "approve", "message": ..., "rule_key": ...}` to send it to
Hermes's own human-approval gate. That gate approves by itself under
`--yolo`, `hermes -z` (which sets `HERMES_YOLO_MODE`), the gateway's `/yolo`,
`approvals.mode: off` and cron's `cron_mode: approve`, so an ask becomes
`approve` only when `hermes_asks_a_person` sees a terminal or a gateway and
none of those; otherwise it is refused, unless `REDLINE_SERVICE=1` sends
every call to `redline serve`, which holds asks for the owner itself.
`post_tool_call` reads Hermes's `status`: `ok`/`error` ran (the person
approved), `blocked` did not (refused, timed out, or nobody was asked). A
Hermes plugin's exception is logged and ignored by Hermes, so these
functions never raise: a failure is a block.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from redline import jsoncodec
from redline.decision import Decision, Verdict
from redline.hooks import messages
from redline.hooks.base import (
    ASK_DENY,
    HOOK_FAILED,
    POST_TOOL_USE,
    PRE_TOOL_USE,
    HookAdapter,
    HookCall,
    HookError,
    HookReply,
    Settings,
    event_of,
    getcwd,
    object_field,
    required_tool,
    text_field,
)

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from typing import Any


HOST = "hermes"
EVENTS = {"pre_tool_call": PRE_TOOL_USE, "post_tool_call": POST_TOOL_USE}


class HermesShell(HookAdapter):
    host = HOST
    label = "this Hermes shell hook"

    def parse(self, payload: Mapping[str, Any], settings: Settings) -> HookCall:
        extra = payload.get("extra")
        extra = extra if isinstance(extra, Mapping) else {}
        return HookCall(
            host=self.host,
            event=event_of(payload, settings, EVENTS),
            tool=required_tool(payload),
            args=object_field(payload, "tool_input"),
            cwd=text_field(payload, "cwd"),
            session=text_field(payload, "session_id"),
            context=settings.context,
            tool_use_id=text_field(extra, "tool_call_id"),
        )

    def can_ask(self, call: HookCall, settings: Settings) -> bool:
        return False

    def render(self, call: HookCall, decision: Decision, settings: Settings) -> HookReply:
        if decision.verdict is Verdict.ALLOW:
            return HookReply(0)
        return HookReply(0, jsoncodec.dumps(_block(decision)) + "\n")

    def failure(self, reason: str, code: str = HOOK_FAILED) -> HookReply:
        """Hermes reads only stdout (an exit code or stderr alone lets the call
        run), so a failure is the block object, with exit 0 (Hermes reads no
        `code`; the reason names the failure)."""
        return HookReply(0, block_object(reason), reason + "\n")


def block_object(message: str) -> str:
    """Hermes's "block this call" answer, as a line of JSON."""
    return jsoncodec.dumps({"action": "block", "message": message}) + "\n"


def _block(decision: Decision, label: str = "this Hermes shell hook") -> dict[str, Any]:
    decision = messages.in_hermes_words(decision)
    if decision.code == "no-approver":
        text = messages.approval_needed(decision, label)
    else:
        text = messages.refusal(decision)
    return {"action": "block", "message": text}


def _settings() -> Settings:
    return Settings.from_environ(os.environ)


def _plugin_call(event: str, tool_name: Any, args: Any, kwargs: Mapping[str, Any]) -> HookCall:
    if not isinstance(tool_name, str) or not tool_name:
        raise HookError("the hook was called without a tool name")
    if args is not None and not isinstance(args, Mapping):
        raise HookError(f"the tool arguments must be an object, not {type(args).__name__}")
    session = kwargs.get("session_id") or kwargs.get("parent_session_id")
    use_id = kwargs.get("tool_call_id")
    return HookCall(
        host=HOST,
        event=event,
        tool=tool_name,
        args=args or {},
        cwd=getcwd(),
        session=session if isinstance(session, str) and session else None,
        context=_settings().context,
        tool_use_id=use_id if isinstance(use_id, str) and use_id else None,
    )


PLUGIN = "this Hermes plugin"
YOLO = "HERMES_YOLO_MODE"
CRON = "HERMES_CRON_SESSION"


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def service_configured(environ: Mapping[str, str]) -> bool:
    """`REDLINE_SERVICE=1` in Hermes's environment (or `~/.hermes/.env`):
    every call goes to `redline serve`, which holds asks for the owner."""
    return _truthy(environ.get("REDLINE_SERVICE"))


def hermes_asks_a_person(environ: Mapping[str, str]) -> bool:
    """Whether Hermes's approval gate would put an `approve` directive to a
    person: a terminal (`HERMES_INTERACTIVE`) or a gateway session, and no
    bypass (`--yolo` and `-z` set `HERMES_YOLO_MODE`; the gateway's `/yolo`;
    `approvals.mode: off`) and no cron job (`cron_mode: approve` approves).
    Read from Hermes's own `tools.approval` in this process; where that
    cannot be read, the answer is no."""
    if _truthy(environ.get(YOLO)) or _truthy(environ.get(CRON)):
        return False
    import sys

    approval = sys.modules.get("tools.approval")
    if approval is None:
        return False
    try:
        if getattr(approval, "_YOLO_MODE_FROZEN", True) or approval.is_approval_bypass_active():
            return False
        return bool(approval._is_interactive_cli() or approval._is_gateway_approval_context())
    except Exception:  # noqa: BLE001 - a Hermes that changed: nobody is known to be asked
        return False


def pre_tool_call(tool_name: Any = None, args: Any = None, **kwargs: Any) -> dict[str, Any] | None:
    """Hermes plugin hook: judge a tool call before it runs."""
    try:
        call = _plugin_call(PRE_TOOL_USE, tool_name, args, kwargs)
        if service_configured(os.environ):
            return _via_service(call)
        from redline.hooks import judge

        person = _settings().ask != ASK_DENY and hermes_asks_a_person(os.environ)
        shape = judge.same if person else judge.cannot_ask("Hermes")
        from redline.hooks.hermes_enforce import logged

        decision = judge.decide(call._replace(logged=logged(call, os.environ)), os.environ, shape)
        refused = _enforce(call, decision)
        if refused is not None:
            return refused
        if decision.verdict is Verdict.ALLOW:
            return None
        if decision.verdict is Verdict.ASK:
            rule = decision.rule_ids[0] if decision.rule_ids else "policy"
            return {
                "action": "approve",
                "message": messages.question(decision),
                "rule_key": f"redline:{rule}",
            }
        return _block(decision, PLUGIN)
    except HookError as error:
        return {"action": "block", "message": f"redline blocked this call: {error}"}
    except Exception as error:  # noqa: BLE001 - Hermes ignores a raising hook: fail closed
        from redline.hooks.base import internal_error

        return {"action": "block", "message": internal_error(error)}


def _via_service(call: HookCall) -> dict[str, Any] | None:
    """The service's verified answer; it holds an ask until the owner answers."""
    from redline.approve.client import decide_hook_call

    decision = decide_hook_call(call, os.environ)
    if decision.verdict is not Verdict.ALLOW:
        return _block(decision, PLUGIN)
    return _enforce(call, decision)


def _enforce(call: HookCall, decision: Decision) -> dict[str, Any] | None:
    """With enforcement on, a terminal call that goes ahead is remembered
    for the middleware that runs it under `redline run`; a block when that
    cannot be done (see `hermes_enforce`)."""
    from redline.hooks import hermes_enforce

    if decision.verdict is Verdict.DENY:
        return None
    problem = hermes_enforce.problem(call, os.environ)
    if problem is not None:
        return {"action": "block", "message": problem}
    hermes_enforce.remember(call, decision, os.environ)
    return None


DENIED = ("BLOCKED: Action denied by user", "BLOCKED: User denied")
TIMED_OUT = "BLOCKED: Action timed out without user response"


def hermes_outcome(status: Any, message: Any) -> tuple[str, str] | None:
    """What became of an asked call, from `post_tool_call`'s `status` and
    `error_message`; `None` when Hermes did not say."""
    text = message if isinstance(message, str) else ""
    if status in ("ok", "error"):
        return "approved", "the call ran after Hermes asked the person"
    if status != "blocked":
        return None
    if text.startswith(TIMED_OUT):
        return "timeout", f"Hermes's approval timed out; the call did not run: {text}"
    if text.startswith(DENIED):
        return "rejected", f"the person refused it in Hermes; the call did not run: {text}"
    return "gate-unreachable", f"Hermes blocked the call and asked nobody: {text}"


def post_tool_call(tool_name: Any = None, args: Any = None, **kwargs: Any) -> None:
    """Hermes plugin hook: what became of a call that redline asked about."""
    try:
        if service_configured(os.environ):
            return  # the service logged the owner's answer itself
        found = hermes_outcome(kwargs.get("status"), kwargs.get("error_message"))
        if found is None:
            return
        from redline.hooks import judge

        outcome, reason = found
        call = _plugin_call(POST_TOOL_USE, tool_name, args, kwargs)
        judge.after(call, os.environ, outcome, reason)
    except Exception as error:  # noqa: BLE001 - recording an outcome never breaks the agent
        import sys

        sys.stderr.write(f"redline: could not record the outcome: {error}\n")


def register(ctx: Any) -> None:
    """Hermes plugin entry point."""
    ctx.register_hook("pre_tool_call", pre_tool_call)
    ctx.register_hook("post_tool_call", post_tool_call)
    from redline.hooks.hermes_inbound import pre_gateway_dispatch

    # Messages from unpaired senders on `inbound.channels` start no run.
    ctx.register_hook("pre_gateway_dispatch", pre_gateway_dispatch)
    from redline.hooks import hermes_enforce

    middleware = getattr(ctx, "register_middleware", None)
    if middleware is not None:
        middleware(hermes_enforce.MIDDLEWARE, hermes_enforce.execute)
    hermes_enforce.configure(hermes_enforce.from_hermes_config(), wired=middleware is not None)
