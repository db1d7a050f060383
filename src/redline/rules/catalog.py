"""The catalogue: every rule, indexed and frozen (F-RULES-5).

Rules live in families (one module each). A family whose every rule names
the programs it looks at loads only when a call runs one of them: a hook
judging `ls` never loads the cloud or database rules. Which family looks at
which program comes from the index the catalogue's self-check saved for
these exact sources (`selfcheck.verified_index`); without it every family
loads, the examples run, and the index is saved. Hits come out the same
either way: candidates keep catalogue order.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from types import MappingProxyType

from redline.decision import RuleHit, Severity, Span
from redline.rules import selfcheck
from redline.rules.model import InvocationTest, Rule
from redline.shell.analysis import Analysis

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from typing import Any

    CATALOG: tuple[Rule, ...]
    BY_ID: Mapping[str, Rule]

# The families in catalogue order: module, and the name of its rules.
FAMILIES: tuple[tuple[str, str], ...] = (
    ("hardline", "HARDLINES"), ("shell_rules", "SHELL_RULES"),
    ("destructive", "DESTRUCTIVE_RULES"), ("permissions", "PERMISSION_RULES"),
    ("ownership", "OWNERSHIP_RULES"),
    ("disk", "DISK_RULES"), ("vcs", "VCS_RULES"), ("services", "SERVICE_RULES"),
    ("gateway", "GATEWAY_RULES"), ("system", "SYSTEM_RULES"), ("data", "DATA_RULES"),
    ("cloud", "CLOUD_RULES"), ("publish", "PUBLISH_RULES"), ("network", "NETWORK_RULES"),
    ("exec", "EXEC_RULES"), ("sensitive", "SENSITIVE_RULES"),
    ("frameworks", "FRAMEWORK_RULES"), ("secret_stores", "SECRET_STORE_RULES"),
    ("object_stores", "OBJECT_STORE_RULES"), ("backups", "BACKUP_RULES"), ("queues", "QUEUE_RULES"),
    ("kv_stores", "KV_STORE_RULES"), ("process_environ", "PROCESS_ENVIRON_RULES"),
    ("carried_args", "CARRIED_ARG_RULES"),
    ("http_writes", "HTTP_RULES"), ("forges", "FORGE_RULES"),
    ("infra", "INFRA_RULES"), ("process_control", "PROCESS_CONTROL_RULES"),
    ("secret_shown", "SECRET_SHOWN_RULES"), ("passwords", "PASSWORD_RULES"),
    ("secret_copies", "SECRET_COPY_RULES"), ("home_servers", "HOME_SERVER_RULES"),
    ("secret_data", "SECRET_DATA_RULES"), ("spawn_loops", "SPAWN_LOOP_RULES"),
    ("later", "LATER_RULES"), ("placed", "PLACED_RULES"),
)  # fmt: skip
_ORDER = {module: n for n, (module, _) in enumerate(FAMILIES)}

_loaded: dict[str, tuple[Rule, ...]] = {}


def _family(module: str) -> tuple[Rule, ...]:
    rules = _loaded.get(module)
    if rules is None:
        attribute = FAMILIES[_ORDER[module]][1]
        name = f"redline.rules.{module}"
        __import__(name)  # not `importlib`: it loads `warnings` for nothing here
        rules = getattr(sys.modules[name], attribute)
        _loaded[module] = rules
    return rules


def _everything() -> tuple[Rule, ...]:
    return tuple(r for module, _ in FAMILIES for r in _family(module))


def _index_of() -> dict[str, Any]:
    """Which families must always load (a rule without programs, or a scan
    of the whole analysis), which look at which program, and the hard lines."""
    always: list[str] = []
    programs: dict[str, list[str]] = {}
    for module, _ in FAMILIES:
        rules = _family(module)
        if any((not r.programs and r.test) or r.scan for r in rules):
            always.append(module)
            continue
        for name in sorted({name for r in rules if r.test for name in r.programs}):
            programs.setdefault(name, []).append(module)
    hardlines = sorted(
        r.id for module, _ in FAMILIES for r in _family(module) if r.severity is Severity.HARDLINE
    )
    return {
        "always": always,
        "programs": programs,
        "hardlines": hardlines,
        "ids": sorted(_rules_by_id()),
        "aliases": {key: r.id for key, r in _rules_by_id().items() if key != r.id},
        "categories": sorted({r.category for r in _everything()}),
    }


def _by_id(rules: tuple[Rule, ...]) -> Mapping[str, Rule]:
    table: dict[str, Rule] = {}
    for r in rules:
        for key in (r.id, *r.aliases):
            if key in table:
                raise ValueError(f"rule id `{key}` is used twice in the catalogue")
            table[key] = r
    return MappingProxyType(table)


_table: list[Mapping[str, Rule]] = []


def _rules_by_id() -> Mapping[str, Rule]:
    if not _table:
        _table.append(_by_id(_everything()))
    return _table[0]


def __getattr__(name: str) -> Any:
    # The whole catalogue, for whoever lists or looks up rules: every family loads.
    if name == "CATALOG":
        catalog = globals()["CATALOG"] = _everything()
        return catalog
    if name == "BY_ID":
        return _rules_by_id()
    raise AttributeError(f"module `{__name__}` has no attribute `{name}`")


def resolve(rule_id: str) -> Rule | None:
    """The rule with this id or one of its old ids (aliases)."""
    return _rules_by_id().get(rule_id)


def canonical_id(rule_id: str) -> str:
    """The current id of the rule with this id or old id; any other id as it
    is. From the index: a hit's id is known without loading every family."""
    return _ALIASES.get(rule_id, rule_id)


def evaluate(analysis: Analysis, rules: tuple[Rule, ...] | None = None) -> tuple[RuleHit, ...]:
    """Every rule hit in the analysis, strictest first, each rule once per span."""
    hits: dict[tuple[str, Span], RuleHit] = {}
    if rules is None and _loading:
        rules = _everything()  # a rule judging carried commands, while its examples run

    def add(r: Rule, span: Span) -> None:
        key = (r.id, span)
        if key not in hits:
            hits[key] = RuleHit(r.id, r.description, r.severity, r.category, span, r.repair)

    for inv in analysis.invocations:
        if rules is None:
            for r, test in _candidates(inv.name):
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


# Loading fails if any rule's examples fail (F-RULES-4); a passing run saves the index.
_loading = True
_saved = selfcheck.verified_index()
if _saved is None:
    _rules_by_id()  # an id used twice fails here, before any call is judged
    _saved = _index_of()
    selfcheck.verify(_everything(), _saved)
_INDEX: dict[str, Any] = _saved
HARDLINE_IDS: frozenset[str] = frozenset(_INDEX["hardlines"])
# Every rule id and old id, and every category: what a policy is checked
# against (its cache key), known without loading every family.
RULE_IDS: tuple[str, ...] = tuple(_INDEX["ids"])
CATEGORIES: tuple[str, ...] = tuple(_INDEX["categories"])
_ALIASES: Mapping[str, str] = _INDEX["aliases"]
_PROGRAM_FAMILIES: Mapping[str, list[str]] = _INDEX["programs"]
_ALWAYS: tuple[Rule, ...] = tuple(r for module in _INDEX["always"] for r in _family(module))
_SCANS: tuple[Rule, ...] = tuple(r for r in _ALWAYS if r.scan)
# Per program name, the rules to try on one of its invocations, each with its
# test, in catalogue order: joined on a program's first call, not per
# invocation (the hot loop of every check).
_Candidates = tuple[tuple[Rule, InvocationTest], ...]
_FOR_ANY: _Candidates = tuple((r, r.test) for r in _ALWAYS if not r.programs and r.test is not None)
_for_program: dict[str, _Candidates] = {}


def _candidates(name: str) -> _Candidates:
    found = _for_program.get(name)
    if found is None:
        modules = sorted(
            {*_INDEX["always"], *_PROGRAM_FAMILIES.get(name, ())}, key=_ORDER.__getitem__
        )
        named = tuple(
            (r, r.test)
            for module in modules
            for r in _family(module)
            if r.test is not None and name in r.programs
        )
        found = _for_program[name] = (*named, *_FOR_ANY)
    return found


_loading = False
