"""Command substitutions the judge evaluates (issue 18 family 5): their
values where they are known, the run-time mark where they are not."""

from __future__ import annotations

import pytest

from redline.shell.analysis import analyze
from redline.shell.model import DYNAMIC
from redline.shell.pure_commands import evaluate


@pytest.mark.parametrize(
    ("text", "cwd", "value"),
    [
        ("pwd", "~/proj", "~/proj\n"),
        ("cd ..; pwd", "~/proj", "~\n"),
        ("cd .. && pwd", "/srv/app", "/srv\n"),
        ("dirname ~/proj/x", None, "~/proj\n"),
        ('dirname "$PWD"', "/srv/app", "/srv\n"),
        ("basename /a/b.tar .tar", None, "b\n"),
        ("realpath ../..", "~/a/b", "~\n"),
        ("readlink -f ..", "/srv/app", "/srv\n"),
        ("getent passwd $USER | cut -d: -f6", None, "~\n"),
        ("getent passwd $(whoami) | awk -F: '{print $6}'", None, "~\n"),
        ("echo /home/me/proj | cut -d/ -f1-3", None, "/home/me\n"),
        ("echo /x/etc | sed s,/x,,", None, "/etc\n"),
        ("git rev-parse --show-toplevel", "/srv/app", "/srv/app\n"),
        # A fresh name where its directory is spelled (not under `$TMPDIR`).
        ("mktemp -d -p /tmp", None, "/tmp/tmp.XXXXXXXXXX\n"),
        ("mktemp -d --tmpdir=/var/tmp b.XXXX", None, "/var/tmp/b.XXXX\n"),
        ("mktemp -d /tmp/build.XXXXXX", None, "/tmp/build.XXXXXX\n"),
    ],
)
def test_pure_commands_give_their_output(text: str, cwd: str | None, value: str) -> None:
    assert evaluate(text, cwd) == value


@pytest.mark.parametrize(
    ("text", "cwd"),
    [
        ("pwd", None),
        ("mktemp -d", "/tmp"),
        ("mktemp -d -t x.XXXX", None),
        ("mktemp -d x.XXXX", None),
        ("cat /etc/passwd | cut -d: -f6", None),
        ("dirname $0", "/srv"),
        ("getent passwd root | cut -d: -f6", None),
        ("git rev-parse HEAD", "/srv"),
        ("echo a > b", None),
    ],
)
def test_anything_else_is_unknown(text: str, cwd: str | None) -> None:
    assert evaluate(text, cwd) is None


def test_a_target_is_its_value_and_a_program_stays_computed() -> None:
    analysis = analyze('cd ~/proj && rm -rf "$(cd ..; pwd)" && $(get_tool) x')
    rm, *_ = (i for i in analysis.invocations if i.name == "rm")
    assert rm.values == ("-rf", "~")
    assert any(i.name == "" and i.argv[0].value == DYNAMIC for i in analysis.invocations)


def test_a_cd_inside_a_substitution_stays_in_its_subshell() -> None:
    analysis = analyze("x=$(cd /etc; pwd); rm -rf build", "/srv/app")
    rm = next(i for i in analysis.invocations if i.name == "rm")
    assert rm.cwd == "/srv/app"
