"""The generic hook: `{"tool", "args", "cwd", "session", "context"}` on stdin,
the Decision as JSON on stdout (`Decision.to_json()`), and the verdict as the
exit code (0 allow, 3 ask, 4 deny). A failure is a deny, never a pass.
"""

from __future__ import annotations

from collections.abc import Mapping

from redline import jsoncodec
from redline.decision import Decision, Verdict
from redline.hooks.base import (
    HOOK_FAILED,
    PRE_TOOL_USE,
    HookAdapter,
    HookCall,
    HookError,
    HookReply,
    Settings,
    object_field,
    required_tool,
    text_field,
)

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from typing import Any


EXIT = {Verdict.ALLOW: 0, Verdict.ASK: 3, Verdict.DENY: 4}


class Generic(HookAdapter):
    host = "generic"
    label = "this agent"

    def parse(self, payload: Mapping[str, Any], settings: Settings) -> HookCall:
        context = payload.get("context", settings.context)
        if context is not None and not isinstance(context, str):
            raise HookError("`context` must be a string")
        return HookCall(
            host=text_field(payload, "agent") or self.host,
            event=PRE_TOOL_USE,
            tool=required_tool(payload, "tool"),
            args=object_field(payload, "args"),
            cwd=text_field(payload, "cwd"),
            session=text_field(payload, "session"),
            context=context or settings.context,
            tool_use_id=text_field(payload, "call_id"),
        )

    def render(self, call: HookCall, decision: Decision, settings: Settings) -> HookReply:
        return HookReply(EXIT[decision.verdict], jsoncodec.dumps(decision.to_json()) + "\n")

    def failure(self, reason: str, code: str = HOOK_FAILED) -> HookReply:
        decision = Decision(Verdict.DENY, reason=reason, code=code)
        return HookReply(
            EXIT[Verdict.DENY], jsoncodec.dumps(decision.to_json()) + "\n", reason + "\n"
        )
