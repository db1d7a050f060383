from __future__ import annotations

from pathlib import Path

from redline.rules.catalog import CATALOG
from redline.rules.docs import render

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def test_rules_doc_is_current() -> None:
    assert DOC.read_text(encoding="utf-8") == render(), (
        "docs/rules.md is stale: run `python -m redline.rules.docs > docs/rules.md`"
    )


def test_every_rule_has_an_anchor() -> None:
    text = render()
    for rule in CATALOG:
        assert f'<a id="{rule.anchor}"></a>' in text
