"""The Hermes plugin's `pre_gateway_dispatch`: on the channels the policy
lists, a message from an unpaired sender is skipped (no run); elsewhere,
and for paired senders, it goes on. Any failure skips."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from redline.hooks import hermes_inbound
from redline.inbound import Senders


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    # The plugin runs inside Hermes and reads Hermes's environment.
    policy = tmp_path / "policy.yaml"
    policy.write_text("version: 1\ninbound: {channels: [telegram]}\n")
    env = {"REDLINE_HOME": str(tmp_path / "redline"), "REDLINE_POLICY": str(policy)}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return env


def event(platform: str, user: Any, text: str = "hello") -> SimpleNamespace:
    source = SimpleNamespace(platform=SimpleNamespace(value=platform), user_id=user)
    return SimpleNamespace(text=text, source=source)


def test_unpaired_sender_is_skipped_then_admitted_once_paired(home: dict[str, str]) -> None:
    skipped = hermes_inbound.pre_gateway_dispatch(event=event("telegram", 42), gateway=None)
    assert skipped == {"action": "skip", "reason": "redline: `42` is not paired on telegram"}
    senders = Senders.open(home)
    try:
        code, _ = senders.issue("telegram")
    finally:
        senders.close()
    pairing = hermes_inbound.pre_gateway_dispatch(event=event("telegram", 42, f"/pair {code}"))
    assert pairing is not None and pairing["action"] == "skip"
    assert hermes_inbound.pre_gateway_dispatch(event=event("telegram", 42)) is None


def test_channels_the_policy_does_not_list_pass(home: dict[str, str]) -> None:
    assert hermes_inbound.pre_gateway_dispatch(event=event("discord", 42)) is None


def test_no_user_id_is_skipped(home: dict[str, str]) -> None:
    reply = hermes_inbound.pre_gateway_dispatch(event=event("telegram", None))
    assert reply == {"action": "skip", "reason": "redline: the sender has no usable id"}


def test_a_broken_policy_skips(home: dict[str, str]) -> None:
    Path(home["REDLINE_POLICY"]).write_text("version: 1\ninbound: {channel: [telegram]}\n")
    reply = hermes_inbound.pre_gateway_dispatch(event=event("telegram", 42))
    assert reply is not None and reply["action"] == "skip"
    assert reply["reason"].startswith("redline: the sender could not be checked")
