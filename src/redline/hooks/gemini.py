"""Gemini CLI: `BeforeTool` hooks (and `AfterTool`, acknowledged).

Gemini CLI sends `session_id`, `transcript_path`, `cwd`, `hook_event_name`,
`timestamp`, `tool_name`, `tool_input` and, for MCP tools, `mcp_context`. It
parses stdout as JSON when the hook exits 0: `{"decision": "deny", "reason":
...}` blocks the tool and sends the reason to the model; `{"decision":
"ask"}` makes Gemini CLI ask the person (its `systemMessage` is shown); an
`allow` has no effect of its own, so the answer for an allow is `{}` (or
`{"decision": "allow"}` with `--allow-explicit`). Exit 2 blocks with stderr as
the reason; other non-zero codes are warnings and the call runs.

Gemini CLI releases older than the hook `ask` decision ignore it and run the
call: there, set `REDLINE_HOOK_ASK=deny` (or `--ask deny`).

A headless run (`gemini -p`, or input that is not a terminal) shows no
prompt, and an asked call waits for ever. Gemini CLI tells its hooks nothing
about the run, so the hook reads the Gemini CLI process it runs under (its
arguments and its standard input, from `/proc`): when that run is headless,
an ask is refused with the text for the model.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from redline import jsoncodec
from redline.decision import Decision, Verdict
from redline.hooks import messages
from redline.hooks.base import (
    POST_TOOL_USE,
    PRE_TOOL_USE,
    HookAdapter,
    HookCall,
    HookReply,
    Settings,
    event_of,
    object_field,
    required_tool,
    text_field,
)

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from typing import Any


EVENTS = {"BeforeTool": PRE_TOOL_USE, "AfterTool": POST_TOOL_USE}


class Gemini(HookAdapter):
    host = "gemini"
    label = "Gemini CLI"

    def headless(self, environ: Mapping[str, str]) -> bool:
        return run_is_headless("/proc", os.getppid())

    def parse(self, payload: Mapping[str, Any], settings: Settings) -> HookCall:
        return HookCall(
            host=self.host,
            event=event_of(payload, settings, EVENTS),
            tool=required_tool(payload),
            args=object_field(payload, "tool_input"),
            cwd=text_field(payload, "cwd"),
            session=text_field(payload, "session_id"),
            context=settings.context,
            tool_use_id=text_field(payload, "tool_use_id", "tool_call_id"),
        )

    def render(self, call: HookCall, decision: Decision, settings: Settings) -> HookReply:
        body: dict[str, Any]
        if decision.verdict is Verdict.ALLOW:
            body = {"decision": "allow"} if settings.allow_explicit else {}
        elif decision.verdict is Verdict.ASK:
            text = messages.question(decision)
            body = {"decision": "ask", "reason": text, "systemMessage": text}
        elif decision.code == "no-approver":
            body = {"decision": "deny", "reason": messages.approval_needed(decision, self.label)}
        else:
            body = {"decision": "deny", "reason": messages.refusal(decision)}
        return HookReply(0, jsoncodec.dumps(body) + "\n")

    def acknowledge(self, call: HookCall) -> HookReply:
        return HookReply(0, "{}\n")


_PROMPT = ("-p", "--prompt")
_INTERACTIVE = ("-i", "--prompt-interactive", "--acp", "--experimental-acp")
_ANCESTORS = 8


def run_is_headless(proc: str, pid: int) -> bool:
    """Whether the Gemini CLI run above process `pid` is headless: it was
    given a prompt to run (`-p`) or its standard input is not a terminal,
    and nothing says that someone answers (`-i`, an ACP client). False when
    no Gemini CLI process is found (the hook run by hand, or no `/proc`)."""
    for _ in range(_ANCESTORS):
        argv = _argv(proc, pid)
        if argv is None:
            return False
        at = next((i for i, a in enumerate(argv[:3]) if _is_gemini(a)), -1)
        if at >= 0:
            flags = [a.split("=", 1)[0] for a in argv[at + 1 :] if a.startswith("-")]
            if any(f in _INTERACTIVE for f in flags):
                return False
            return any(f in _PROMPT for f in flags) or not _on_terminal(proc, pid)
        parent = _parent(proc, pid)
        if parent is None or parent <= 1:
            return False
        pid = parent
    return False


def _is_gemini(arg: str) -> bool:
    """The program's path: `.../bin/gemini`, `.../bundle/gemini.js` (not a
    shell's command text that names the hook)."""
    return not any(c.isspace() for c in arg) and os.path.basename(arg).startswith("gemini")


def _argv(proc: str, pid: int) -> list[str] | None:
    try:
        with open(f"{proc}/{pid}/cmdline", "rb") as source:
            raw = source.read()
    except OSError:
        return None
    return [a.decode("utf-8", "replace") for a in raw.split(b"\0") if a]


def _parent(proc: str, pid: int) -> int | None:
    try:
        with open(f"{proc}/{pid}/stat", "rb") as source:
            fields = source.read().rsplit(b")", 1)[1].split()
        return int(fields[1])
    except (OSError, IndexError, ValueError):
        return None


def _on_terminal(proc: str, pid: int) -> bool:
    try:
        target = os.readlink(f"{proc}/{pid}/fd/0")
    except OSError:
        return False
    return target.startswith(("/dev/pts/", "/dev/tty"))
