"""Codex: `PreToolUse` and `PermissionRequest` hooks.

Codex sends `session_id`, `turn_id`, `cwd`, `hook_event_name`, `model`,
`permission_mode`, `tool_name` (`Bash` for shell commands, `apply_patch`,
`mcp__server__tool`), `tool_input` (`{"command": ...}` for the shell and for
a patch) and `tool_use_id`. On `PreToolUse` it honours only a deny
(`permissionDecision: "deny"` with a non-empty reason, or exit 2 with the
reason on stderr); an `allow` without rewritten input and an `ask` are
rejected as invalid and the call runs. So an ask is refused here with a text
saying approval is needed, unless `--defer-ask` says that Codex's own approval
prompt will be shown and its `PermissionRequest` hook is this one: then the
ask passes through, and on `PermissionRequest` a deny is answered
`{"behavior": "deny"}` while an ask is left to the person at Codex's prompt.
"""

from __future__ import annotations

from collections.abc import Mapping

from redline import jsoncodec
from redline.decision import Decision, Verdict
from redline.hooks import messages
from redline.hooks.base import (
    PERMISSION_REQUEST,
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


EVENTS = {
    "PreToolUse": PRE_TOOL_USE,
    "PermissionRequest": PERMISSION_REQUEST,
    "PostToolUse": POST_TOOL_USE,
}


class Codex(HookAdapter):
    host = "codex"
    label = "Codex"

    def parse(self, payload: Mapping[str, Any], settings: Settings) -> HookCall:
        return HookCall(
            host=self.host,
            event=event_of(payload, settings, EVENTS),
            tool=required_tool(payload),
            args=object_field(payload, "tool_input"),
            cwd=text_field(payload, "cwd"),
            session=text_field(payload, "session_id"),
            context=settings.context,
            tool_use_id=text_field(payload, "tool_use_id"),
        )

    def can_ask(self, call: HookCall, settings: Settings) -> bool:
        if not super().can_ask(call, settings):
            return False
        return call.event == PERMISSION_REQUEST or settings.defer_ask

    def render(self, call: HookCall, decision: Decision, settings: Settings) -> HookReply:
        if call.event == PERMISSION_REQUEST:
            return _permission(decision, settings)
        if decision.verdict is not Verdict.DENY:
            return HookReply(0)  # no opinion: Codex's own approval settings apply
        text = (
            messages.approval_needed(decision, self.label)
            if decision.code == "no-approver"
            else messages.refusal(decision)
        )
        body = {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": text,
            }
        }
        return HookReply(0, jsoncodec.dumps(body) + "\n")


def _permission(decision: Decision, settings: Settings) -> HookReply:
    if decision.verdict is Verdict.ASK:
        return HookReply(0)  # the person answers at Codex's approval prompt
    if decision.verdict is Verdict.ALLOW:
        if not settings.allow_explicit:
            return HookReply(0)
        verdict: dict[str, Any] = {"behavior": "allow"}
    else:
        verdict = {"behavior": "deny", "message": messages.refusal(decision)}
    body = {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": verdict}}
    return HookReply(0, jsoncodec.dumps(body) + "\n")
