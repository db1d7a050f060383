"""redline: an approval gate for AI agents that act on real machines."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from redline.command import check_command
from redline.decision import Decision, RuleHit, Severity, Span, Verdict

if TYPE_CHECKING:
    from redline.gatekeeper import Gate, check_tool_call

__all__ = [
    "Decision",
    "Gate",
    "RuleHit",
    "Severity",
    "Span",
    "Verdict",
    "check_command",
    "check_tool_call",
]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # The tool-call gate loads on first use, so `check_command` stays light.
    if name in ("Gate", "check_tool_call"):
        from redline import gatekeeper

        return getattr(gatekeeper, name)
    raise AttributeError(f"module `redline` has no attribute `{name}`")
