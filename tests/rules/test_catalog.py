"""Every rule in the catalogue proves itself with its own examples."""

from __future__ import annotations

import re

import pytest

from redline.decision import Severity
from redline.rules.catalog import BY_ID, CATALOG, HARDLINE_IDS, canonical_id, evaluate, resolve
from redline.rules.model import Rule
from redline.rules.selfcheck import example_failures
from redline.shell.analysis import analyze

ID_SHAPE = re.compile(r"\A[a-z]+(?:\.[a-z0-9]+(?:-[a-z0-9]+)*)+\Z")


def _ids(rule: Rule, example: str) -> set[str]:
    return {hit.rule_id for hit in evaluate(analyze(example))}


@pytest.mark.parametrize(
    ("rule", "example"),
    [(r, e) for r in CATALOG for e in r.must_match],
    ids=lambda v: v.id if isinstance(v, Rule) else repr(v)[:40],
)
def test_rule_matches_its_examples(rule: Rule, example: str) -> None:
    assert rule.id in _ids(rule, example)


@pytest.mark.parametrize(
    ("rule", "example"),
    [(r, e) for r in CATALOG for e in r.must_not_match],
    ids=lambda v: v.id if isinstance(v, Rule) else repr(v)[:40],
)
def test_rule_does_not_match_its_counter_examples(rule: Rule, example: str) -> None:
    assert rule.id not in _ids(rule, example)


@pytest.mark.parametrize("rule", CATALOG, ids=lambda r: r.id)
def test_rule_record_is_complete(rule: Rule) -> None:
    assert ID_SHAPE.match(rule.id), rule.id
    assert rule.category and rule.description and rule.repair
    assert rule.description == rule.description.strip() and not rule.description.endswith(".")
    assert len(rule.must_match) >= 3, "at least three must-match examples"
    assert len(rule.must_not_match) >= 3, "at least three must-not-match examples"


def test_selfcheck_reports_a_broken_rule() -> None:
    good = BY_ID["fs.delete-root"]
    broken = Rule(
        id="test.broken",
        category="test",
        severity=Severity.DANGEROUS,
        description="x",
        repair="y",
        must_match=("ls",),
        must_not_match=("rm -rf /",),
        test=good.test,
        programs=good.programs,
    )
    assert example_failures((broken,)) == [
        "rule `test.broken` does not match its example `ls`",
        "rule `test.broken` matches its counter-example `rm -rf /`",
    ]


def test_ids_are_unique_and_aliases_resolve() -> None:
    ids = [r.id for r in CATALOG]
    assert len(ids) == len(set(ids))
    for r in CATALOG:
        for alias in r.aliases:
            assert resolve(alias) is r
    assert resolve("no.such-rule") is None
    # The index's old ids give what `resolve` gives, without loading every family.
    assert all(canonical_id(key) == r.id for key, r in BY_ID.items())
    assert canonical_id("no.such-rule") == "no.such-rule"


def test_hardline_set_is_frozen() -> None:
    assert isinstance(HARDLINE_IDS, frozenset)
    assert "fs.delete-root" in HARDLINE_IDS
    with pytest.raises(TypeError):
        BY_ID["fs.delete-root"] = BY_ID["proc.fork-bomb"]  # type: ignore[index]


def test_rule_needs_exactly_one_matcher() -> None:
    from redline.rules.model import rule

    with pytest.raises(ValueError, match="exactly one of"):
        rule("x.y", "c", Severity.DANGEROUS, "d", "r", must_match=(), must_not_match=())


def test_families_are_every_rules_tuple_of_the_package() -> None:
    """A family module left out of `FAMILIES` would never load."""
    import importlib
    import pkgutil

    import redline.rules
    from redline.rules import catalog

    found = set()
    for info in pkgutil.iter_modules(redline.rules.__path__):
        module = importlib.import_module(f"redline.rules.{info.name}")
        for attribute, value in vars(module).items():
            if (
                (attribute == "HARDLINES" or attribute.endswith("_RULES"))
                and isinstance(value, tuple)
                and value
                and all(isinstance(r, Rule) for r in value)
            ):
                found.add((info.name, attribute))
    assert found == set(catalog.FAMILIES)


def test_the_index_names_every_family_a_program_needs() -> None:
    """What a call loads on demand is what the whole catalogue would try."""
    from redline.rules import catalog

    index = catalog._index_of()
    assert {key: catalog._INDEX[key] for key in index} == index  # the saved one is current
    names = {name for r in CATALOG for name in r.programs} | {"ls", "no-such-program"}
    for name in sorted(names):
        expected = (
            *((r, r.test) for r in CATALOG if r.test is not None and name in r.programs),
            *((r, r.test) for r in CATALOG if not r.programs and r.test is not None),
        )
        assert catalog._candidates(name) == expected, name
    assert tuple(r for r in CATALOG if r.scan) == catalog._SCANS
    assert {r.id for r in CATALOG if r.severity is Severity.HARDLINE} == HARDLINE_IDS
    assert tuple(sorted(BY_ID)) == catalog.RULE_IDS
    assert tuple(sorted({r.category for r in CATALOG})) == catalog.CATEGORIES


def test_a_call_loads_only_the_families_its_programs_need() -> None:
    """In a fresh process with the index saved: `ls` loads no cloud or
    database rules, `aws` loads the cloud family, and the hits are the same
    as with every family loaded."""
    import json
    import subprocess
    import sys

    code = (
        "import sys, json\n"
        "from redline.rules import catalog\n"
        "from redline.shell.analysis import analyze\n"
        "out = {}\n"
        "for command in sys.argv[1:]:\n"
        "    hits = [h.rule_id for h in catalog.evaluate(analyze(command))]\n"
        "    loaded = sorted(m for m in sys.modules if m.startswith('redline.rules.'))\n"
        "    out[command] = [hits, loaded]\n"
        "print(json.dumps(out))\n"
    )
    commands = ["ls -la", "aws s3 rb s3://bucket --force", "git push --force origin main"]
    subprocess.run([sys.executable, "-c", "import redline.rules.catalog"], check=True)
    done = subprocess.run(
        [sys.executable, "-c", code, *commands], capture_output=True, text=True, check=True
    )
    result = json.loads(done.stdout)
    assert "redline.rules.cloud" not in result["ls -la"][1]
    assert "redline.rules.data" not in result["ls -la"][1]
    assert "redline.rules.cloud" in result["aws s3 rb s3://bucket --force"][1]
    for command in commands:
        assert result[command][0] == [h.rule_id for h in evaluate(analyze(command))]
