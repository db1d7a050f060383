"""The inbound check on the real Hermes Agent's own types: its plugin hook
list has `pre_gateway_dispatch`, and redline's hook reads a real
`MessageEvent` (platform, user id, text) as Hermes's gateway would pass it.
redline is put on Hermes's Python path for the run; nothing is installed."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from redline.inbound import Senders

from .hermes_kit import hermes_or_skip

pytestmark = pytest.mark.slow
SRC = Path(__file__).resolve().parents[2] / "src"
SCRIPT = """
import json, sys
from hermes_cli.plugins import VALID_HOOKS
from gateway.platforms.base import MessageEvent
from gateway.session import SessionSource
from gateway.config import Platform
assert "pre_gateway_dispatch" in VALID_HOOKS
from redline.hooks.hermes_inbound import pre_gateway_dispatch
out = []
for platform, user, text in json.loads(sys.argv[1]):
    source = SessionSource(platform=Platform(platform), chat_id="c1", user_id=user)
    event = MessageEvent(text=text, source=source)
    out.append(pre_gateway_dispatch(event=event, gateway=None, session_store=None))
print(json.dumps(out))
"""


def test_hermes_gateway_messages_need_a_paired_sender(tmp_path: Path) -> None:
    hermes = hermes_or_skip()
    python = Path(hermes).read_text(encoding="utf-8").splitlines()[0].removeprefix("#!").strip()
    policy = tmp_path / "policy.yaml"
    policy.write_text("version: 1\ninbound: {channels: [telegram]}\n")
    env = {
        "REDLINE_HOME": str(tmp_path / "redline"),
        "REDLINE_POLICY": str(policy),
        "HOME": str(tmp_path),
        "HERMES_HOME": str(tmp_path / "hermes"),
        "PYTHONPATH": str(SRC),
        "PATH": "/usr/bin:/bin",
    }
    senders = Senders.open(env)
    try:
        code, _ = senders.issue("telegram")
    finally:
        senders.close()
    messages = [
        ["telegram", "42", "run the deploy"],
        ["telegram", "42", f"/pair {code}"],
        ["telegram", "42", "run the deploy"],
        ["telegram", "43", "me too"],
        ["discord", "43", "not a listed channel"],
    ]
    result = subprocess.run(
        [python, "-c", SCRIPT, json.dumps(messages)],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    replies = json.loads(result.stdout.splitlines()[-1])
    assert [r and r["action"] for r in replies] == ["skip", "skip", None, "skip", None]
    assert replies[0]["reason"] == "redline: `42` is not paired on telegram"
