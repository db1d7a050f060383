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
"""

from __future__ import annotations

import json
from collections.abc import Mapping

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
        return HookReply(0, json.dumps(body) + "\n")

    def acknowledge(self, call: HookCall) -> HookReply:
        return HookReply(0, "{}\n")
