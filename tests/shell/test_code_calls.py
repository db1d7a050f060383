"""The scan for calls that hand a string to the shell (`shell_in_code`) is
the simple one it replaced, made linear: the reversed scan from each `(`
finds the calls `\\bNAME\\s*\\(` finds, and the hop from `)` to `)` ends
where counting every paren does. Checked on the inline-code corpora and on
random texts."""

from __future__ import annotations

import random
import re
from pathlib import Path

import yaml

from redline.shell.carriers import _SYSTEM_CALLS, _call_ends, _closing, quote

CORPUS = Path(__file__).parent.parent / "corpus"
_FORWARD = re.compile(
    r"\b(?:" + "|".join(re.escape(n) for n in _SYSTEM_CALLS if "." not in n) + r")\s*\("
    r"|\bos\.execute\s*\("
)


def _closing_by_counting(code: str, start: int) -> int:
    depth, end = 1, start
    while end < len(code) and depth:
        depth += {"(": 1, ")": -1}.get(code[end], 0)
        end += 1
    return end


def _quote_by_letters(text: str) -> str:
    if text and all(c.isalnum() or c in "-_./=:,+%@" for c in text):
        return text
    return "'" + text.replace("'", "'\\''") + "'"


def _texts() -> list[str]:
    texts = []
    for name in ("inline_code.yaml", "text_to_code.yaml"):
        texts += [str(c["command"]) for c in yaml.safe_load((CORPUS / name).read_text())]
    rng = random.Random(7)
    pieces = ["system", "os.execute", "run", "Popen", "check_call", "x_call", "(", ")", " ",
              "\n", '"ls"', "'a b'", "[", "]", ",", "é", "spawnSync", "2", "."]  # fmt: skip
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 40))) for _ in range(400)]
    return texts


def test_the_same_calls_and_the_same_ends() -> None:
    for code in _texts():
        ends = _call_ends(code)
        assert ends == [m.end() for m in _FORWARD.finditer(code)], code
        for start in {*ends, *range(0, len(code) + 1, 5)}:
            assert _closing(code, start) == _closing_by_counting(code, start), (code, start)


def test_quote_as_before() -> None:
    for text in ["", "a", "a b", "é-1", "x_y", "a'b", "²", "a\tb", "/usr/bin:x,y+z%@=1", "ﬁ"]:
        assert quote(text) == _quote_by_letters(text)
