from __future__ import annotations

from collections.abc import Callable

import pytest

from redline.command import check_command

Judge = Callable[..., tuple[str, tuple[str, ...]]]


@pytest.fixture
def judge() -> Judge:
    """A command's verdict and the ids of every rule that matched it."""

    def run(command: str, cwd: str | None = None) -> tuple[str, tuple[str, ...]]:
        decision = check_command(command, cwd=cwd)
        return str(decision.verdict), decision.rule_ids

    return run
