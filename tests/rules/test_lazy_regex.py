import re

import pytest

from redline.rules import selfcheck
from redline.rules.lazy_regex import LazyPattern, compile_all, lazy_regex


def test_a_pattern_compiles_on_first_use_and_once() -> None:
    pattern = lazy_regex(r"\bDROP\s+TABLE\b", re.IGNORECASE)
    assert pattern._compiled is None
    match = pattern.search("x; drop table t")
    assert match is not None and match.group() == "drop table"
    compiled = pattern.compiled
    assert pattern.compiled is compiled
    assert compiled == re.compile(r"\bDROP\s+TABLE\b", re.IGNORECASE)


def test_it_answers_as_the_compiled_pattern_does() -> None:
    pattern, plain = lazy_regex(r"(a)(b)?"), re.compile(r"(a)(b)?")
    text = "xab a ab"
    assert pattern.match(text) == plain.match(text)
    assert pattern.fullmatch("ab") is not None and plain.fullmatch("ab") is not None
    assert pattern.findall(text) == plain.findall(text)
    assert [m.span() for m in pattern.finditer(text)] == [m.span() for m in plain.finditer(text)]
    assert pattern.sub("-", text) == plain.sub("-", text)
    assert pattern.subn(lambda m: m.group(1), text) == plain.subn(lambda m: m.group(1), text)
    assert pattern.split(text) == plain.split(text)


def test_compile_all_compiles_every_pattern_made() -> None:
    import redline.gatekeeper  # noqa: F401 - the gate's patterns too

    pattern = LazyPattern(r"\d+")
    assert compile_all() >= 50
    assert pattern._compiled is not None


def test_a_broken_pattern_fails_the_self_check() -> None:
    broken = lazy_regex(r"(unclosed")
    try:
        failures = selfcheck.pattern_failures()
    finally:
        # Leave no broken pattern behind for the other tests.
        from redline.rules import lazy_regex as module

        module._ALL.remove(broken)
    assert len(failures) == 1
    assert failures[0].startswith("a rule pattern does not compile: missing ), unterminated")
    with pytest.raises(re.error):
        broken.compiled  # noqa: B018
