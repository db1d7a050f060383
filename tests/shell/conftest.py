from __future__ import annotations

from collections.abc import Callable

import pytest

from redline.shell.analysis import analyze
from redline.shell.parser import Parser


@pytest.fixture
def argvs() -> Callable[..., list[tuple[str, ...]]]:
    """Every invocation's argv values, in the order the analysis found them."""

    def run(command: str, cwd: str | None = None) -> list[tuple[str, ...]]:
        return [tuple(w.value for w in inv.argv) for inv in analyze(command, cwd).invocations]

    return run


@pytest.fixture
def command_words() -> Callable[[str], list[list[str]]]:
    """The word values of each simple command the parser found."""

    def run(command: str) -> list[list[str]]:
        return [[w.value for w in c.words] for c in Parser(command).parse().commands if c.words]

    return run
