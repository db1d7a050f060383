"""`needles.samples_named` (one scan for hidden directories, each part
tested once) names the samples the plain test of every part names, in the
same order: checked on the corpora and on random texts that hide a
protected path's parts among ordinary code."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import yaml

from redline.gate import needles
from redline.gatekeeper import Gate

TESTS = Path(__file__).parent.parent


def _plain(lowered: str, segments: tuple[tuple[str, tuple[str, ...]], ...]) -> Iterator[str]:
    for sample, parts in segments:
        if parts and parts[-1] in lowered and all(needles.has_segment(lowered, p) for p in parts):
            yield sample


def _strings(node: object) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


def test_the_same_samples_as_testing_every_part(tmp_path: Path) -> None:
    segments = Gate(home="/home/me", redline_home=tmp_path / "r").guard.segments
    texts = [
        text
        for name in (
            "corpus/inline_code.yaml",
            "corpus/text_to_code.yaml",
            "gate/self_protection.yaml",
        )
        for text in _strings(yaml.safe_load((TESTS / name).read_text(encoding="utf-8")))
    ]
    parts = sorted({p for _, ps in segments for p in ps})
    glue = [" ", "/", '"', "'", ".", "-", "_", "x", "é", "\n", "(", ", ", "..", "Path.home() / "]
    rng = random.Random(11)
    for _ in range(600):
        texts.append(
            "".join(rng.choice(parts if i % 2 else glue) for i in range(rng.randint(1, 12)))
        )
    named = 0
    for text in texts:
        lowered = text.lower()
        expected = list(_plain(lowered, segments))
        assert list(needles.samples_named(lowered, segments)) == expected, text[:200]
        named += bool(expected)
    assert named > 50
