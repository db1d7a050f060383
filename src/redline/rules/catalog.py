"""The catalogue: every rule, indexed once at import and frozen (F-RULES-5)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from redline.decision import RuleHit, Severity, Span
from redline.rules import selfcheck
from redline.rules.cloud import CLOUD_RULES
from redline.rules.data import DATA_RULES
from redline.rules.destructive import DESTRUCTIVE_RULES
from redline.rules.disk import DISK_RULES
from redline.rules.exec import EXEC_RULES
from redline.rules.gateway import GATEWAY_RULES
from redline.rules.hardline import HARDLINES
from redline.rules.model import InvocationTest, Rule
from redline.rules.network import NETWORK_RULES
from redline.rules.permissions import PERMISSION_RULES
from redline.rules.publish import PUBLISH_RULES
from redline.rules.sensitive import SENSITIVE_RULES
from redline.rules.services import SERVICE_RULES
from redline.rules.shell_rules import SHELL_RULES
from redline.rules.system import SYSTEM_RULES
from redline.rules.vcs import VCS_RULES
from redline.shell.analysis import Analysis

CATALOG: tuple[Rule, ...] = (
    *HARDLINES, *SHELL_RULES, *DESTRUCTIVE_RULES, *PERMISSION_RULES, *DISK_RULES, *VCS_RULES,
    *SERVICE_RULES, *GATEWAY_RULES, *SYSTEM_RULES, *DATA_RULES, *CLOUD_RULES, *PUBLISH_RULES,
    *NETWORK_RULES, *EXEC_RULES, *SENSITIVE_RULES,
)  # fmt: skip


def _by_id(rules: tuple[Rule, ...]) -> Mapping[str, Rule]:
    table: dict[str, Rule] = {}
    for r in rules:
        for key in (r.id, *r.aliases):
            if key in table:
                raise ValueError(f"rule id `{key}` is used twice in the catalogue")
            table[key] = r
    return MappingProxyType(table)


BY_ID: Mapping[str, Rule] = _by_id(CATALOG)
HARDLINE_IDS: frozenset[str] = frozenset(r.id for r in CATALOG if r.severity is Severity.HARDLINE)


def _by_program(rules: tuple[Rule, ...]) -> Mapping[str, tuple[Rule, ...]]:
    """Program name -> the rules that look at it, in catalogue order (one pass)."""
    table: dict[str, list[Rule]] = {}
    for r in rules:
        for name in r.programs:
            table.setdefault(name, []).append(r)
    return MappingProxyType({name: tuple(table[name]) for name in sorted(table)})


_BY_PROGRAM: Mapping[str, tuple[Rule, ...]] = _by_program(CATALOG)
_ANY_PROGRAM: tuple[Rule, ...] = tuple(r for r in CATALOG if not r.programs and r.test)
_SCANS: tuple[Rule, ...] = tuple(r for r in CATALOG if r.scan)
# Per program name, the rules to try on one of its invocations, each with its
# test: joined once here, not per invocation (the hot loop of every check).
_Candidates = tuple[tuple[Rule, InvocationTest], ...]
_FOR_ANY: _Candidates = tuple((r, r.test) for r in _ANY_PROGRAM if r.test is not None)
_FOR_PROGRAM: Mapping[str, _Candidates] = MappingProxyType(
    {
        name: (*((r, r.test) for r in rules if r.test is not None), *_FOR_ANY)
        for name, rules in _BY_PROGRAM.items()
    }
)


def resolve(rule_id: str) -> Rule | None:
    """The rule with this id or one of its old ids (aliases)."""
    return BY_ID.get(rule_id)


def evaluate(analysis: Analysis, rules: tuple[Rule, ...] | None = None) -> tuple[RuleHit, ...]:
    """Every rule hit in the analysis, strictest first, each rule once per span."""
    hits: dict[tuple[str, Span], RuleHit] = {}

    def add(r: Rule, span: Span) -> None:
        key = (r.id, span)
        if key not in hits:
            hits[key] = RuleHit(r.id, r.description, r.severity, r.category, span, r.repair)

    for inv in analysis.invocations:
        if rules is None:
            for r, test in _FOR_PROGRAM.get(inv.name, _FOR_ANY):
                result = test(inv, analysis)
                if result:
                    add(r, result if isinstance(result, Span) else inv.span)
            continue
        for r in rules:
            if r.test is None or (r.programs and inv.name not in r.programs):
                continue
            result = r.test(inv, analysis)
            if result:
                add(r, result if isinstance(result, Span) else inv.span)
    for r in _SCANS if rules is None else rules:
        if r.scan is not None:
            for span in r.scan(analysis):
                add(r, span)
    ordered = sorted(hits.values(), key=lambda h: (-h.severity, h.span.start if h.span else 0))
    return tuple(ordered)


# Loading fails if any rule's examples fail (F-RULES-4).
selfcheck.verify(CATALOG)
