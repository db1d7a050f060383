"""Every long option a rule relies on is matched by its unambiguous prefixes
(issue 13, family 6): getopt_long programs and git take `--recur` for
`--recursive`. For each rule's `must_match` example, each long option of a
program whose parser takes prefixes is shortened to its shortest unambiguous
prefix (and to a prefix halfway), and the rule must still match."""

from __future__ import annotations

import re

import pytest

from redline.rules.catalog import CATALOG, evaluate
from redline.rules.git_argv import LONG as GIT_LONG
from redline.rules.git_argv import VALUES as GIT_VALUES
from redline.rules.model import Rule
from redline.shell.analysis import analyze
from redline.shell.invocation import Invocation
from redline.shell.longopts import LONG_OPTIONS


def _known(inv: Invocation) -> frozenset[str]:
    if inv.name in LONG_OPTIONS:
        return LONG_OPTIONS[inv.name]
    if inv.name == "git":
        words = [w for w in inv.values if not w.startswith("-")]
        if words and words[0] in GIT_LONG:
            return frozenset(GIT_LONG[words[0]]).union(GIT_VALUES.get(words[0], ("", ()))[1])
    return frozenset()


def _prefixes(name: str, known: frozenset[str]) -> list[str]:
    unique = [
        name[:n]
        for n in range(1, len(name))
        if name[:n] not in known and [k for k in known if k.startswith(name[:n])] == [name]
    ]
    return sorted({unique[0], unique[len(unique) // 2]}) if unique else []


def _abbreviated() -> list[tuple[Rule, str, str]]:
    found = []
    for rule in CATALOG:
        for example in rule.must_match:
            for inv in analyze(example).invocations:
                known = _known(inv)
                for word in inv.argv[1:]:
                    key = word.value[2:].partition("=")[0]
                    if not word.value.startswith("--") or key not in known:
                        continue
                    for prefix in _prefixes(key, known):
                        spelled = re.sub(rf"--{re.escape(key)}(?=[=\s'\"]|$)", f"--{prefix}",
                                         example, count=1)  # fmt: skip
                        if spelled != example:
                            found.append((rule, example, spelled))
    return found


_CASES = _abbreviated()


def test_the_rules_rely_on_many_long_options() -> None:
    assert len(_CASES) >= 50


@pytest.mark.parametrize(("rule", "example", "spelled"), _CASES, ids=[c[2] for c in _CASES])
def test_an_unambiguous_prefix_matches_as_the_option(
    rule: Rule, example: str, spelled: str
) -> None:
    assert rule.id in {hit.rule_id for hit in evaluate(analyze(spelled), (rule,))}, example
