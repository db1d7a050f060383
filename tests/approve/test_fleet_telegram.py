"""The Telegram bot runs in exactly one replica; when that one is killed, the
other takes the bot over and the owner's taps keep reaching every hook."""

from __future__ import annotations

from pathlib import Path

from botapi import OWNER, BotApi, pair_owner
from servicekit import HookProcess, ServiceProcess, eventually, hook_payload
from test_fleet_replicas import make_env_dirs, share_keys


def _requests(bot: BotApi) -> list[dict[str, object]]:
    return [m for m in bot.sent_to(OWNER) if "reply_markup" in m]


def test_one_bot_at_a_time_and_a_takeover_when_its_replica_dies(
    tmp_path: Path, pg_url: str, bot: BotApi
) -> None:
    token = {"REDLINE_TELEGRAM_TOKEN": "123456:TEST-token"}
    env_a = {**make_env_dirs(tmp_path / "a"), **token}
    env_b = {**make_env_dirs(tmp_path / "b"), **token}
    args = ("--store", pg_url, "--timeout", "600", "--telegram-api", bot.url)
    a = ServiceProcess(env_a, *args).start()
    try:
        eventually(lambda: "now runs telegram" in a.log.read_text(), what="A to lead")
        share_keys(env_a, env_b)
        b = ServiceProcess(env_b, *args).start()
        try:
            pair_owner(b, bot)  # a code issued on B is honoured by A's bot
            first = HookProcess(env_b, hook_payload("git push --force origin one", session="f1"))
            [message] = eventually(lambda: _requests(bot), what="the first request")
            held = b.wait_pending(1)[0]["id"]
            bot.tap(OWNER, message["message_id"], f"ok:{held}:once")
            assert first.result(timeout=120)[1]["code"] == "approved"
            assert "now runs telegram" not in b.log.read_text()

            a.kill9()
            eventually(lambda: "now runs telegram" in b.log.read_text(), what="B to take over")
            second = HookProcess(env_b, hook_payload("git push --force origin two", session="f2"))
            later = eventually(
                lambda: [m for m in _requests(bot) if "origin two" in str(m["text"])],
                what="the request after the takeover",
            )
            held = b.wait_pending(1)[0]["id"]
            bot.tap(OWNER, later[0]["message_id"], f"no:{held}")
            assert second.result(timeout=120)[1]["code"] == "rejected"
            # Each call was announced once: never by two bots.
            assert len(_requests(bot)) == 2
        finally:
            b.stop()
    finally:
        a.stop()
