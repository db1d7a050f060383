"""Judging one shell command with the catalogue's built-in verdicts."""

from __future__ import annotations

from redline.decision import Decision, RuleHit, Severity, Verdict
from redline.rules.catalog import evaluate
from redline.shell.analysis import analyze

TYPE_CHECKING = False  # not `typing`'s: kept off the start of `redline check`
if TYPE_CHECKING:
    from redline.gate.never_run import Guard

_VERDICT_FOR = {
    Severity.HARDLINE: Verdict.DENY,
    Severity.DANGEROUS: Verdict.ASK,
    Severity.SENSITIVE: Verdict.ASK,
}


def check_command(command: str, *, cwd: str | None = None, guard: Guard | None = None) -> Decision:
    """Allow, ask or deny one shell command line, with the rules that decided.
    With a `guard`, the never-run kinds are judged first (as the gate does)."""
    if not isinstance(command, str):
        raise TypeError(f"command must be a string, not {type(command).__name__}")
    analysis = analyze(command, cwd)
    if guard is not None:
        never = tuple({h.rule_id: h for h in reversed(tuple(guard.shell_hits(analysis)))}.values())
        if never:
            first = never[-1]
            return Decision(
                Verdict.DENY, never[::-1], first.description, first.repair, True, "never-run"
            )
    return decide(evaluate(analysis))


_NO_HITS = Decision(Verdict.ALLOW, reason="no rule matched")


def decide(hits: tuple[RuleHit, ...]) -> Decision:
    if not hits:
        return _NO_HITS
    verdict = max(_VERDICT_FOR[hit.severity] for hit in hits)
    strictest = hits[0]
    reason = "; ".join(dict.fromkeys(hit.description for hit in hits))
    return Decision(
        verdict=verdict,
        hits=hits,
        reason=reason,
        repair=strictest.repair,
        hardline=strictest.severity is Severity.HARDLINE,
    )
