"""What every hook shares: the values a hook works with, reading the host's
JSON, and running an adapter so that nothing escapes as a "go ahead".

An adapter knows one host: how its payload names the tool, the arguments, the
working directory and the session (`parse`), how a verdict is written back
(`render`), and how the host is told "blocked" when the hook itself fails
(`failure`). `run` holds the one catch-all: whatever goes wrong becomes the
adapter's failure reply, never an exit code the host reads as success.

The hot path imports only `json`, `os` and `sys` here; the gate, the log and
the session state load in `redline.hooks.judge` when a call is judged.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from redline.deadline import (
    DEADLINE_ENV,
    GATE_TIMEOUT,
    HOST_TIMEOUT_S,
    Deadline,
    DeadlinePassed,
    below,
    parse_seconds,
)
from redline.fasttuple import NamedTuple

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from typing import IO, Any

    from redline.decision import Decision

MAX_INPUT_BYTES = 16 * 1024 * 1024

PRE_TOOL_USE = "pre-tool-use"
POST_TOOL_USE = "post-tool-use"
PERMISSION_REQUEST = "permission-request"

ASK_NATIVE = "native"
ASK_DENY = "deny"

HOOK_FAILED = "hook-failed"

BLOCK = 2
"""The exit code that Claude Code, Codex and Gemini CLI read as "block this
call" (with stderr as the reason). Never exit 1: any other non-zero code is a
non-blocking error and the call runs. Hermes reads no exit code at all: its
adapter blocks on stdout (`redline.hooks.hermes`)."""


class HookError(Exception):
    """The host's input cannot be read as a call; the hook fails closed."""


class Settings(NamedTuple):
    """How a hook answers, from its flags and environment.

    `allow_explicit`: answer `allow` instead of passing no opinion (the host's
    own permission rules then no longer apply). `ask`: `native` asks where the
    host can ask a person; `deny` refuses every ask (unattended use).
    `context`: the gate context (`interactive`, `gateway`, `cron`,
    `single_query`). `event`: the event to handle when the payload does not
    say. `defer_ask`: Codex only, leave asks to Codex's own approval prompt
    (its `PermissionRequest` hook is redline too). `deadline_s`: the seconds
    the hook has to answer (`--deadline`, `$REDLINE_HOOK_DEADLINE`), below
    the host's timeout; `None` for the default (see `deadline_for`).
    `enforce`: allowed shell calls come back rewritten to run in the sandbox
    (`--enforce`, `$REDLINE_HOOK_ENFORCE`; see `redline.hooks.enforce`).
    """

    allow_explicit: bool = False
    ask: str = ASK_NATIVE
    context: str | None = None
    event: str | None = None
    defer_ask: bool = False
    deadline_s: float | None = None
    enforce: bool = False

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Settings:
        """`ValueError` for a `$REDLINE_HOOK_DEADLINE` that is not a number of seconds."""
        allow = environ.get("REDLINE_HOOK_ALLOW", "").strip().lower()
        ask = environ.get("REDLINE_HOOK_ASK", "").strip().lower() or ASK_NATIVE
        context = environ.get("REDLINE_CONTEXT", "").strip() or None
        defer = environ.get("REDLINE_CODEX_DEFER_ASK", "").strip().lower()
        deadline = environ.get(DEADLINE_ENV, "").strip()
        enforce = environ.get("REDLINE_HOOK_ENFORCE", "").strip().lower()
        return cls(
            allow_explicit=allow in ("explicit", "1", "true", "yes"),
            ask=ask,
            context=context,
            defer_ask=defer in ("1", "true", "yes"),
            deadline_s=parse_seconds(deadline) if deadline else None,
            enforce=enforce in ("1", "true", "yes"),
        )

    def deadline_for(self, start: float | None = None) -> Deadline:
        """The hook's deadline: `deadline_s` from `start` (default now), else
        `MARGIN_S` below the timeout `redline install` writes for the host."""
        seconds = self.deadline_s if self.deadline_s is not None else below(HOST_TIMEOUT_S)
        return Deadline(seconds, start)


class HookCall(NamedTuple):
    """One host event, read: which tool, with what, where, in which session."""

    host: str
    event: str
    tool: str
    args: Mapping[str, Any]
    cwd: str | None = None
    session: str | None = None
    context: str | None = None
    tool_use_id: str | None = None
    logged: Mapping[str, Any] | None = None
    """Added to `args` in the log entry only (the enforcement level)."""


class HookReply(NamedTuple):
    """What the hook process writes and exits with."""

    code: int
    stdout: str = ""
    stderr: str = ""


class HookAdapter:
    """One host's protocol. Subclasses set `host` and override `parse`,
    `render` and `failure`; `acknowledge` answers a post-tool-use event."""

    host = "generic"
    label = "this agent"

    def can_ask(self, call: HookCall, settings: Settings) -> bool:
        """Whether an ask can reach a person; if not, it is refused."""
        return settings.ask != ASK_DENY

    def headless(self, environ: Mapping[str, str]) -> bool:
        """Whether this session runs with nobody at the host's prompt (a
        one-shot, scripted run): an ask there is refused, not left waiting.
        Asked only for a call the gate would ask about."""
        return False

    def parse(self, payload: Mapping[str, Any], settings: Settings) -> HookCall:
        raise NotImplementedError

    def render(self, call: HookCall, decision: Decision, settings: Settings) -> HookReply:
        raise NotImplementedError

    def failure(self, reason: str, code: str = HOOK_FAILED) -> HookReply:
        """The hook could not judge the call: block it, saying why (`code`
        for hosts that read one)."""
        return HookReply(BLOCK, stderr=reason + "\n")

    def acknowledge(self, call: HookCall) -> HookReply:
        return HookReply(0)


def read_payload(stream: IO[bytes]) -> dict[str, Any]:
    """The host's JSON object; anything else is a `HookError`."""
    data = stream.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        raise HookError(f"the hook input is larger than {MAX_INPUT_BYTES // (1024 * 1024)} MiB")
    if not data.strip():
        raise HookError("the hook input is empty; expected a JSON object on stdin")
    from redline.jsoninput import TooDeep, loads

    try:
        value = loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise HookError("the hook input is not utf-8 text") from None
    except TooDeep as error:
        raise HookError(f"the hook input cannot be judged: {error}") from None
    except ValueError as error:
        raise HookError(f"the hook input is not valid JSON ({error})") from None
    if not isinstance(value, dict):
        raise HookError(f"the hook input must be a JSON object, not {type(value).__name__}")
    return value


def text_field(payload: Mapping[str, Any], *keys: str) -> str | None:
    """The first of `keys` that holds a non-empty string."""
    for key in keys:
        value = payload.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def object_field(payload: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = payload.get(key, {})
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise HookError(f"`{key}` must be a JSON object, not {type(value).__name__}")
    return value


def required_tool(payload: Mapping[str, Any], key: str = "tool_name") -> str:
    tool = payload.get(key)
    if not isinstance(tool, str) or not tool:
        raise HookError(f"the hook input has no `{key}`")
    return tool


def event_of(payload: Mapping[str, Any], settings: Settings, events: Mapping[str, str]) -> str:
    """The hook event the payload names (its host's `events` spelling), else
    the `--event` setting, else pre-tool-use; an unknown event is an error."""
    name = payload.get("hook_event_name")
    if name is None:
        return settings.event or PRE_TOOL_USE
    if isinstance(name, str) and name in events:
        return events[name]
    known = ", ".join(f"`{e}`" for e in events)
    raise HookError(f"unknown hook event `{name}`; this hook handles {known}")


def handle(
    adapter: HookAdapter,
    stdin: IO[bytes],
    settings: Settings,
    environ: Mapping[str, str],
    deadline: Deadline | None = None,
) -> HookReply:
    """Judge one event by `deadline` (default `settings.deadline_for()`).
    Never raises: every failure is the adapter's block."""
    import gc

    # A process's first call imports the gate, which allocates enough objects
    # to set off several cyclic collections (~3 ms of a hook's start) that find
    # nothing to free: the modules live until the process ends. Collect
    # nothing during that call; afterwards what it loaded is frozen (kept out
    # of later collections), so a process that goes on judging collects as
    # before.
    cold = gc.isenabled() and "redline.hooks.judge" not in sys.modules
    if cold:
        gc.disable()
    if deadline is None:
        deadline = settings.deadline_for()
    try:
        call = adapter.parse(read_payload(stdin), settings)
        from redline.hooks import judge

        if call.event == POST_TOOL_USE:
            judge.after(call, environ, deadline=deadline)
            return adapter.acknowledge(call)
        if adapter.can_ask(call, settings):
            shape = judge.cannot_ask_if(lambda: adapter.headless(environ), adapter.label)
        else:
            shape = judge.cannot_ask(adapter.label)
        decision = judge.decide(call, environ, shape, deadline)
        return adapter.render(call, decision, settings)
    except Exception as error:  # noqa: BLE001 - fail closed on anything
        return failed(adapter, error)
    finally:
        if cold:
            gc.freeze()
            gc.enable()


def failed(adapter: HookAdapter, error: Exception) -> HookReply:
    """The adapter's block for a call the hook could not judge."""
    if isinstance(error, HookError):
        return adapter.failure(f"redline blocked this call: {error}")
    if isinstance(error, DeadlinePassed):
        return adapter.failure(timed_out(str(error)), GATE_TIMEOUT)
    if isinstance(error, RecursionError):
        return adapter.failure(
            "redline blocked this call: it is nested too deeply to judge (arguments, "
            "wrappers or scripts inside each other). Nothing ran. Write it plainly"
        )
    return adapter.failure(internal_error(error))


def timed_out(problem: str) -> str:
    """The reason for a call denied at the hook's deadline (`gate-timeout`)."""
    return (
        f"redline blocked this call: {problem} (code `{GATE_TIMEOUT}`). Nothing ran. "
        "Try again in a moment; if it keeps happening, tell the owner the approval gate "
        "is too slow"
    )


def internal_error(error: BaseException) -> str:
    import traceback

    detail = "".join(traceback.format_exception(error)).rstrip()
    sys.stderr.write(detail + "\n")
    return (
        f"redline blocked this call: the gate hit an internal error "
        f"({type(error).__name__}: {error}). Nothing ran. Do not retry it another way; "
        "tell the owner the approval gate failed"
    )


def emit(reply: HookReply, stdout: IO[str], stderr: IO[str]) -> int:
    """Write the reply; a write that fails turns the exit code into a block."""
    try:
        if reply.stdout:
            stdout.write(reply.stdout)
            stdout.flush()
        if reply.stderr:
            stderr.write(reply.stderr)
            stderr.flush()
    except (OSError, ValueError):
        return BLOCK
    return reply.code


def home_of(environ: Mapping[str, str]) -> str:
    from redline.home import home_dir

    return home_dir(environ)


def env_flag(environ: Mapping[str, str], name: str) -> bool:
    return environ.get(name, "").strip().lower() in ("1", "true", "yes")


def getcwd() -> str | None:
    try:
        return os.getcwd()
    except OSError:
        return None
