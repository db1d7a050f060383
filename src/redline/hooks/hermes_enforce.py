"""Enforcement in the Hermes plugin: the terminal tool's command, once
redline allowed it (or handed it to Hermes's own approval), runs under
`redline run`, as Claude Code's rewritten Bash calls do (`hooks.enforce`).

Hermes 0.19's `pre_tool_call` hook can only block or ask; what changes a
call's arguments is its `tool_execution` middleware, which wraps the real
tool and runs after `pre_tool_call` and before Hermes's own approval check
and the tool. So `pre_tool_call` remembers, for the call it judged, the
wrapped command (with its one-time ticket), and the middleware hands the
terminal tool that command instead of the original.

Fail closed: a terminal call the middleware finds no remembered rewrite for
(a path that skipped the hook, a rewrite that could not be made) is still
wrapped, without a ticket, so `redline run` judges it again; and the
middleware never raises before handing the call on (Hermes would then run
the original), it answers with the tool's error instead. A terminal backend
other than `local` (docker, ssh, modal...) runs commands where this redline
is not: the call is refused there, with the reason.

Turned on by `plugins.entries.redline.enforce: true` in the profile's
`config.yaml` (`redline install hermes --plugin --enforce` writes it), or
`REDLINE_HOOK_ENFORCE=1` in Hermes's environment.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping

from redline.decision import Decision, Verdict
from redline.hooks.base import HookCall

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from typing import Any

TOOL = "terminal"
PLUGIN = "redline"
MIDDLEWARE = "tool_execution"
_REMEMBERED_MOST = 256
_remembered: dict[tuple[str, str], str] = {}
_configured = False
_wired = False


def configure(enforce: bool, wired: bool) -> None:
    """What the profile's config says (read once, when Hermes loads the
    plugin), and whether this Hermes took the middleware."""
    global _configured, _wired
    _configured, _wired = enforce, wired


def problem(call: HookCall, environ: Mapping[str, str]) -> str | None:
    """Why a terminal call must be refused although it may be allowed: the
    enforcement is on and this Hermes has no middleware to rewrite it with."""
    if call.tool != TOOL or _wired or not enforcing(environ):
        return None
    return (
        "redline blocked this call: enforcement is on, and this Hermes has no "
        "`tool_execution` middleware to run the command under `redline run` (Hermes 0.19+)"
    )


def from_hermes_config() -> bool:
    """`plugins.entries.redline.enforce` in the profile's `config.yaml`, read
    through Hermes's own loader; `False` where it cannot be read."""
    try:
        from hermes_cli.config import load_config  # type: ignore[import-not-found]

        config = load_config() or {}
        entry = ((config.get("plugins") or {}).get("entries") or {}).get(PLUGIN) or {}
        return entry.get("enforce") is True
    except Exception:  # noqa: BLE001 - no Hermes config here: the environment decides
        return False


def enforcing(environ: Mapping[str, str]) -> bool:
    from redline.hooks.enforce import enforcing as by_environment

    return _configured or by_environment(environ)


def logged(call: HookCall, environ: Mapping[str, str]) -> dict[str, str] | None:
    """The sandbox level for the log entry of an enforced terminal call."""
    if call.tool != TOOL or not enforcing(environ):
        return None
    from redline.hooks.enforce import logged as level

    return level(call.tool, True, environ)


def remember(call: HookCall, decision: Decision, environ: Mapping[str, str]) -> None:
    """For a terminal call redline lets go ahead (allowed, or handed to Hermes's
    approval): the wrapped command the middleware will run instead."""
    if call.tool != TOOL or not enforcing(environ):
        return
    if decision.verdict is Verdict.DENY:
        return
    command = call.args.get("command")
    if not isinstance(command, str) or not command.strip():
        return
    from redline.hooks.enforce import wrapped_command

    workdir = call.args.get("workdir")
    cwd = workdir if isinstance(workdir, str) and os.path.isabs(workdir) else call.cwd
    wrapped = wrapped_command(
        command, environ, session=call.session, context=call.context, cwd=cwd or os.getcwd()
    )
    while len(_remembered) >= _REMEMBERED_MOST:  # forget the oldest: bounded
        _remembered.pop(next(iter(_remembered)))
    _remembered[(call.tool_use_id or "", command)] = wrapped


def _refusal(message: str) -> str:
    """The terminal tool's own error shape, for the model."""
    return json.dumps({"output": "", "exit_code": 126, "error": message})


def execute(
    tool_name: Any = None,
    args: Any = None,
    next_call: Callable[..., Any] | None = None,
    **kwargs: Any,
) -> Any:
    """Hermes `tool_execution` middleware: the terminal tool runs the command
    under `redline run`."""
    if next_call is None:
        return _refusal("redline blocked this call: the middleware was called without the tool")
    if tool_name != TOOL:
        return next_call()
    try:
        rewritten = _rewrite(args, kwargs)
    except Exception as error:  # noqa: BLE001 - Hermes would run the original: refuse
        return _refusal(f"redline blocked this call: the command could not be wrapped: {error}")
    if isinstance(rewritten, str):
        return _refusal(rewritten)
    return next_call(rewritten)


def _rewrite(args: Any, kwargs: Mapping[str, Any]) -> dict[str, Any] | str | None:
    """The terminal tool's arguments with the wrapped command; `None` to run
    the call as it is (not enforcing, no command); a text to refuse it."""
    if not enforcing(os.environ):
        return None
    if not isinstance(args, Mapping):
        return "redline blocked this call: the terminal tool's arguments are not an object"
    backend = os.environ.get("TERMINAL_ENV", "local").strip().lower() or "local"
    if backend != "local":
        return (
            "redline blocked this call: enforcement runs commands under `redline run` on this "
            f"machine, and Hermes's terminal backend is `{backend}`; use the local backend, or "
            "install the plugin without --enforce"
        )
    command = args.get("command")
    if not isinstance(command, str) or not command.strip():
        return None
    use_id = kwargs.get("tool_call_id")
    wrapped = _remembered.pop((use_id if isinstance(use_id, str) else "", command), None)
    if wrapped is None:  # no ticket: `redline run` judges it again
        from redline.hooks.enforce import wrapped_command

        session = kwargs.get("session_id")
        session = session if isinstance(session, str) and session else None
        wrapped = wrapped_command(command, os.environ, session=session, ticket=False)
    return {**args, "command": wrapped}
