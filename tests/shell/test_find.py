"""`fd -x`/`-X` run their command on what they find, like `find -exec`."""

from __future__ import annotations

import pytest

from redline.shell.analysis import analyze
from redline.shell.model import DYNAMIC


@pytest.mark.parametrize(
    ("command", "inner", "via"),
    [
        ("fd -x rm -rf", ("rm", "-rf"), "fd -x"),
        ("fd . / -x rm -rf {}", ("rm", "-rf", "/"), "fd -x"),
        ("fd -e log . /var -X rm {}", ("rm", "/var/" + DYNAMIC), "fd -X"),
        ("fd --exec-batch rm {//} \\; -t f", ("rm", "./" + DYNAMIC), "fd --exec-batch"),
        ("fdfind x src --exec rm {/.}", ("rm", "src/" + DYNAMIC), "fd --exec"),
    ],
)
def test_fd_runs_its_command_on_each_match(command: str, inner: tuple[str, ...], via: str) -> None:
    run = analyze(command).invocations[1]
    assert (tuple(w.value for w in run.argv), run.via, run.appended_args) == (inner, (via,), True)


def test_fd_without_exec_runs_nothing() -> None:
    assert len(analyze("fd -e py -E tests src").invocations) == 1
