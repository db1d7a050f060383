"""Claude Code: `PreToolUse` (and, to record approvals, `PostToolUse`) hooks.

Claude Code sends `session_id`, `transcript_path`, `cwd`, `permission_mode`,
`hook_event_name`, `tool_name`, `tool_input` and `tool_use_id` on stdin. It
reads a decision from stdout only when the hook exits 0:
`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision":
"allow|deny|ask", "permissionDecisionReason": ...}}`; a deny's reason goes to
the model, an ask's to the person. Exit 2 blocks with stderr as the reason;
any other non-zero exit is a non-blocking error and the call runs, so this
hook never exits with anything but 0 or 2.

redline's allow passes no opinion by default (no output), so Claude Code's own
permission rules still apply; `--allow-explicit` answers `allow`.

In a headless run (`claude -p`, the SDK) nobody answers Claude Code's prompt:
it refuses the call with a text of its own, written for a person. Claude Code
tells its hooks so in their environment (`CLAUDE_CODE_SESSION_ATTENDED=0`;
releases without it: `CLAUDE_CODE_ENTRYPOINT=sdk-cli`), and there an ask is
refused with redline's text for the model.
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


EVENTS = {"PreToolUse": PRE_TOOL_USE, "PostToolUse": POST_TOOL_USE}


class ClaudeCode(HookAdapter):
    host = "claude-code"
    label = "Claude Code"

    def headless(self, environ: Mapping[str, str]) -> bool:
        attended = environ.get("CLAUDE_CODE_SESSION_ATTENDED")
        if attended is not None:
            return attended.strip() != "1"
        return environ.get("CLAUDE_CODE_ENTRYPOINT", "").startswith("sdk")

    def parse(self, payload: Mapping[str, Any], settings: Settings) -> HookCall:
        tool = required_tool(payload)
        enforced = None
        if settings.enforce or os.environ.get("REDLINE_HOOK_ENFORCE"):
            from redline.hooks.enforce import logged

            enforced = logged(tool, settings.enforce, os.environ)
        return HookCall(
            host=self.host,
            event=event_of(payload, settings, EVENTS),
            tool=tool,
            args=object_field(payload, "tool_input"),
            cwd=text_field(payload, "cwd"),
            session=text_field(payload, "session_id"),
            context=settings.context,
            tool_use_id=text_field(payload, "tool_use_id"),
            logged=enforced,
        )

    def render(self, call: HookCall, decision: Decision, settings: Settings) -> HookReply:
        if decision.verdict is Verdict.ALLOW:
            from redline.hooks.enforce import wrapped_input

            wrapped = wrapped_input(call, decision, settings.enforce, os.environ)
            if wrapped is not None:  # run it under `redline run` (docs/enforce.md)
                return _answer("allow", messages.note(decision), wrapped)
            if not settings.allow_explicit:
                return HookReply(0)
            return _answer("allow", messages.note(decision))
        if decision.verdict is Verdict.ASK:
            return _answer("ask", messages.question(decision))
        if decision.code == "no-approver":
            return _answer("deny", messages.approval_needed(decision, self.label))
        return _answer("deny", messages.refusal(decision))


def _answer(verdict: str, reason: str, updated: Mapping[str, Any] | None = None) -> HookReply:
    output: dict[str, Any] = {
        "hookEventName": "PreToolUse",
        "permissionDecision": verdict,
        "permissionDecisionReason": reason,
    }
    if updated is not None:
        output["updatedInput"] = dict(updated)
    return HookReply(0, jsoncodec.dumps({"hookSpecificOutput": output}) + "\n")
