"""`redline senders list|pair|revoke CHANNEL`, as the owner runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from redline.decision import Verdict
from redline.inbound import admit


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"REDLINE_HOME": str(tmp_path / "redline"), "HOME": str(tmp_path), "PATH": "/usr/bin"}


def senders(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "redline", "senders", *args],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


def test_pair_list_revoke(env: dict[str, str]) -> None:
    issued = senders(env, "pair", "telegram")
    code, how = issued.stdout.splitlines()
    assert issued.returncode == 0
    assert how == (
        f"the sender sends `/pair {code}` to the agent on telegram; the code works once, for 10 min"
    )
    admit("telegram", "4242", f"/pair {code}", environ=env)
    listed = senders(env, "list", "--json")
    assert [(r["channel"], r["sender"]) for r in json.loads(listed.stdout)["senders"]] == [
        ("telegram", "4242")
    ]
    assert senders(env, "list", "discord").stdout == "no paired senders\n"
    revoked = senders(env, "revoke", "telegram", "4242")
    assert revoked.stdout == "revoked telegram 4242; their next message is refused\n"
    assert admit("telegram", "4242", "hi", environ=env).verdict is Verdict.DENY
    again = senders(env, "revoke", "telegram", "4242")
    assert (again.returncode, again.stderr) == (
        1, "redline senders: `4242` is not paired on telegram\n",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (("pair",), "redline senders: name the channel: `redline senders pair telegram`\n"),
        (("revoke", "telegram"), "redline senders: name the sender: "
         "`redline senders revoke telegram SENDER`\n"),
        (("pair", "Tele Gram"), "redline senders: `Tele Gram` is not a channel name; "
         "use e.g. `telegram` or `discord`\n"),
    ],
)  # fmt: skip
def test_usage_errors(env: dict[str, str], args: tuple[str, ...], error: str) -> None:
    result = senders(env, *args)
    assert (result.returncode, result.stderr) == (2, error)
