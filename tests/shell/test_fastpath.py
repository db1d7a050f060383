"""The fast path and the general parser agree wherever the fast path answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from redline.shell import fastpath
from redline.shell.parser import Parser

TLDR = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "tldr.jsonl"
SAMPLES = [
    "ls -la",
    "git status",
    "a | b | c",
    "a && b || c; d & e",
    "cat f > out 2>&1",
    "echo 'x y' \"z w\"",
    "grep -r 'rm -rf' .",
    "ls *.py",
    "cmd 2>/dev/null",
    "a\nb",
    "tar --extract --file=x.tar",
    "echo a'b'\"c\"",
    "sort < in > out",
    "a |& b",
    "x &> log",
    "rm -rf /",
    "",
    "  ",
    "a;\n\nb",
    "f >> g",
    'echo ""',
]
DECLINED = [
    "echo $HOME",
    "a=b c",
    "if x; then y; fi",
    "(a)",
    "a <<EOF\nx\nEOF",
    "{ a; }",
    "echo ~/x",
    "a # c",
    "a |",
    "a &&",
    "> f",
    "echo \\x",
    "x=1",
    "!a",
    "a;;b",
]


def _commands() -> list[str]:
    lines = (
        [json.loads(line)["command"] for line in TLDR.read_text().splitlines()]
        if TLDR.exists()
        else []
    )
    return SAMPLES + lines


def test_fast_path_matches_the_general_parser() -> None:
    accepted = 0
    for command in _commands():
        quick = fastpath.parse(command)
        if quick is None:
            continue
        accepted += 1
        assert quick == Parser(command).parse_full(), command
    assert accepted >= len(SAMPLES) - 1


@pytest.mark.parametrize("command", DECLINED)
def test_fast_path_declines_what_it_cannot_read(command: str) -> None:
    assert fastpath.parse(command) is None
