"""Every rule in the catalogue proves itself with its own examples."""

from __future__ import annotations

import re

import pytest

from redline.decision import Severity
from redline.rules.catalog import BY_ID, CATALOG, HARDLINE_IDS, evaluate, resolve
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


def test_hardline_set_is_frozen() -> None:
    assert isinstance(HARDLINE_IDS, frozenset)
    assert "fs.delete-root" in HARDLINE_IDS
    with pytest.raises(TypeError):
        BY_ID["fs.delete-root"] = BY_ID["proc.fork-bomb"]  # type: ignore[index]


def test_rule_needs_exactly_one_matcher() -> None:
    from redline.rules.model import rule

    with pytest.raises(ValueError, match="exactly one of"):
        rule("x.y", "c", Severity.DANGEROUS, "d", "r", must_match=(), must_not_match=())
