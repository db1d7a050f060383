"""Aliases defined earlier in the same text run what they stand for."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Argvs = Callable[..., list[tuple[str, ...]]]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("alias x='rm -rf'; x /", [("alias", "x=rm -rf"), ("rm", "-rf", "/")]),
        ("alias x='rm -rf /'; x", [("alias", "x=rm -rf /"), ("rm", "-rf", "/")]),
        (
            "alias x='cd /tmp && rm -rf'; x a",
            [("alias", "x=cd /tmp && rm -rf"), ("cd", "/tmp"), ("rm", "-rf", "a")],
        ),
        # An alias is not expanded inside itself, nor when quoted or escaped.
        ("alias ls='ls -l'; ls", [("alias", "ls=ls -l"), ("ls", "-l")]),
        ("alias x=y; \\x", [("alias", "x=y"), ("x",)]),
        ("alias x=y; 'x'", [("alias", "x=y"), ("x",)]),
        # Only aliases defined before the use count.
        ("x; alias x='rm -rf /'", [("x",), ("alias", "x=rm -rf /")]),
    ],
)
def test_alias_expansion(argvs: Argvs, command: str, expected: list[tuple[str, ...]]) -> None:
    assert argvs(command) == expected


def test_alias_cycle_ends(argvs: Argvs) -> None:
    assert argvs("alias a=b b=a; a") == [("alias", "a=b", "b=a"), ("a",)]
