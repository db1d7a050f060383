"""redline: an approval gate for AI agents that act on real machines."""

from redline.command import check_command
from redline.decision import Decision, RuleHit, Severity, Span, Verdict

__all__ = ["Decision", "RuleHit", "Severity", "Span", "Verdict", "check_command"]
__version__ = "0.1.0"
