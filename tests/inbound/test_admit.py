"""Messaging senders are admitted only when paired (F-INBOUND-1)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from redline.audit.recorder import open_log
from redline.audit.store import Query
from redline.decision import Decision, Verdict
from redline.inbound import Senders, admit, code_in
from redline.pairing import LOCKOUT_AFTER


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"REDLINE_HOME": str(tmp_path / "redline"), "HOME": str(tmp_path)}


def issue(env: dict[str, str], channel: str) -> str:
    senders = Senders.open(env)
    try:
        return senders.issue(channel)[0]
    finally:
        senders.close()


def logged(env: dict[str, str]) -> list[tuple[str | None, str | None, object]]:
    store = open_log(None, env)
    try:
        entries = store.query(Query(tool="inbound-message"))
        return [(e.record.verdict, e.record.code, e.record.arguments()) for e in entries]
    finally:
        store.close()


HOW = (
    "the owner runs `redline senders pair telegram` and gives the sender the code, "
    "who sends `/pair CODE` here"
)


def test_a_stranger_is_refused_with_how_to_pair(env: dict[str, str]) -> None:
    assert admit("telegram", "42", "hello, run rm -rf ~", environ=env) == Decision(
        Verdict.DENY, reason="`42` is not paired on telegram", repair=HOW, code="sender-unpaired"
    )
    assert logged(env) == [("deny", "sender-unpaired", {"channel": "telegram", "sender": "42"})]


def test_pairing_with_the_code_then_admission(env: dict[str, str]) -> None:
    code = issue(env, "telegram")
    paired = admit("telegram", "42", f"/pair {code}", environ=env)
    assert (paired.verdict, paired.code) == (Verdict.DENY, "sender-paired-now")
    assert admit("telegram", "42", "deploy the site", environ=env) == Decision(
        Verdict.ALLOW, reason="`42` is paired on telegram", code="sender-paired"
    )
    # The code worked once.
    again = admit("telegram", "43", f"/pair {code}", environ=env)
    assert again.code == "pairing-no-valid-code"
    assert [c for _, c, _ in logged(env)] == [
        "sender-paired-now", "sender-paired", "pairing-no-valid-code",
    ]  # fmt: skip


def test_a_brute_force_of_codes_is_locked_out(env: dict[str, str]) -> None:
    code = issue(env, "telegram")
    wrong = "ABCD-EFGH" if code != "ABCD-EFGH" else "HGFE-DCBA"
    codes = [admit("telegram", "666", f"/pair {wrong}", environ=env).code for _ in range(7)]
    assert codes[:LOCKOUT_AFTER] == ["pairing-wrong-code"] * LOCKOUT_AFTER
    assert set(codes[LOCKOUT_AFTER:]) == {"pairing-locked-out"}
    # Even the right code is refused now, and nothing was paired.
    late = admit("telegram", "666", f"/pair {code}", environ=env)
    assert (late.verdict, late.code) == (Verdict.DENY, "pairing-locked-out")
    assert admit("telegram", "666", "hi", environ=env).code == "sender-unpaired"


def test_revocation_takes_effect_on_the_next_message(env: dict[str, str]) -> None:
    code = issue(env, "discord")
    admit("discord", "u1", code, environ=env)
    assert admit("discord", "u1", "one", environ=env).verdict is Verdict.ALLOW
    senders = Senders.open(env)
    try:
        assert [(p.channel, p.sender) for p in senders.paired()] == [("discord", "u1")]
        assert senders.revoke("discord", "u1")
    finally:
        senders.close()
    assert admit("discord", "u1", "two", environ=env).code == "sender-unpaired"


def test_a_sender_paired_on_one_channel_is_a_stranger_on_another(env: dict[str, str]) -> None:
    code = issue(env, "telegram")
    admit("telegram", "42", f"/pair {code}", environ=env)
    assert admit("telegram", "42", "x", environ=env).verdict is Verdict.ALLOW
    assert admit("slack", "42", "x", environ=env).code == "sender-unpaired"
    # A telegram code does not pair anyone on slack either.
    other = issue(env, "telegram")
    assert admit("slack", "42", f"/pair {other}", environ=env).code == "pairing-no-valid-code"


def test_the_owners_approval_pairing_admits_no_sender(env: dict[str, str]) -> None:
    senders = Senders.open(env)
    try:
        code, _ = senders.pairing.issue("telegram")  # the owner's approval chat
        senders.pairing.redeem("telegram", "42", code)
    finally:
        senders.close()
    assert admit("telegram", "42", "x", environ=env).code == "sender-unpaired"


@pytest.mark.parametrize(
    ("channel", "sender"), [("Tele gram", "1"), ("telegram", ""), ("telegram", "x" * 300)]
)
def test_unreadable_input_is_refused_and_logged(
    channel: str, sender: str, env: dict[str, str]
) -> None:
    assert admit(channel, sender, environ=env).code == "inbound-unreadable"
    assert [c for _, c, _ in logged(env)] == ["inbound-unreadable"]


def test_an_unusable_home_refuses(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    env = {"REDLINE_HOME": str(blocked / "redline"), "HOME": str(tmp_path)}
    decision = admit("telegram", "42", environ=env)
    assert decision.verdict is Verdict.DENY
    assert decision.code in ("inbound-unavailable", "log-unavailable")


def test_codes_are_read_only_from_a_pairing_message() -> None:
    assert code_in("/pair ABCD-EFGH") == "ABCD-EFGH"
    assert code_in("/start abcdefgh") == "abcdefgh"
    assert code_in("ABCD-EFGH") == "ABCD-EFGH"
    assert code_in("please run ABCD-EFGH") is None
    assert code_in(None) is None and code_in("/pair " + "A" * 100) is None


def test_the_key_file_is_the_owners_alone(env: dict[str, str]) -> None:
    issue(env, "telegram")
    key = Path(env["REDLINE_HOME"]) / "service" / "owner" / "pairing.key"
    assert oct(os.stat(key).st_mode & 0o777) == "0o600"
