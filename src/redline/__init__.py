"""redline: an approval gate for AI agents that act on real machines."""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from typing import Any

    from redline.command import check_command
    from redline.decision import Decision, RuleHit, Severity, Span, Verdict
    from redline.gatekeeper import Gate, check_tool_call
    from redline.sandbox.run import run
    from redline.secrets import scrubbed_env

__all__ = [
    "Decision",
    "Gate",
    "RuleHit",
    "Severity",
    "Span",
    "Verdict",
    "check_command",
    "check_tool_call",
    "run",
    "scrubbed_env",
]
__version__ = "0.1.0"

# Every public name loads on first use: `import redline.cli.main` (the
# console script) must not pay for the rule catalogue before it knows the
# subcommand, and the hook loads only what its call needs.
_LAZY = {
    "check_command": "redline.command",
    "Decision": "redline.decision",
    "RuleHit": "redline.decision",
    "Severity": "redline.decision",
    "Span": "redline.decision",
    "Verdict": "redline.decision",
    "Gate": "redline.gatekeeper",
    "check_tool_call": "redline.gatekeeper",
    "run": "redline.sandbox.run",
    "scrubbed_env": "redline.secrets",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module `redline` has no attribute `{name}`")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
