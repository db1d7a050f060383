"""A rule is data: an id, what it means, how to repair the call, how it
matches, and the examples that prove it (F-RULES-4)."""

from collections.abc import Callable, Iterable

from redline.decision import Severity, Span
from redline.fasttuple import NamedTuple
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation

# Matches one invocation; returns True or the span that matched.
InvocationTest = Callable[[Invocation, Analysis], "bool | Span"]
# Matches the whole analysis; yields the spans that matched.
ScriptScan = Callable[[Analysis], Iterable[Span]]


class Rule(NamedTuple):
    id: str
    category: str
    severity: Severity
    description: str
    repair: str
    must_match: tuple[str, ...]
    must_not_match: tuple[str, ...]
    # Invocation names this rule looks at; empty means every invocation.
    programs: frozenset[str] = frozenset()
    test: InvocationTest | None = None
    scan: ScriptScan | None = None
    aliases: tuple[str, ...] = ()

    @property
    def anchor(self) -> str:
        """The rule's anchor in docs/rules.md."""
        return self.id.replace(".", "-")


def rule(
    id: str,
    category: str,
    severity: Severity,
    description: str,
    repair: str,
    *,
    must_match: Iterable[str],
    must_not_match: Iterable[str],
    programs: Iterable[str] = (),
    test: InvocationTest | None = None,
    scan: ScriptScan | None = None,
    aliases: Iterable[str] = (),
) -> Rule:
    """Build a Rule; each must have exactly one of `test` and `scan`."""
    if (test is None) == (scan is None):
        raise ValueError(f"rule `{id}` needs exactly one of `test` and `scan`")
    return Rule(
        id=id,
        category=category,
        severity=severity,
        description=description,
        repair=repair,
        must_match=tuple(must_match),
        must_not_match=tuple(must_not_match),
        programs=frozenset(programs),
        test=test,
        scan=scan,
        aliases=tuple(aliases),
    )
