"""The Telegram channel keeps its promise under faults: flood control, server
errors and slow replies from the Bot API stand-in, with the real
python-telegram-bot inside a real `redline serve`."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import httpx
from botapi import OWNER, BotApi, Fault, edited, pair_owner, request_message
from servicekit import Env, HookProcess, ServiceProcess, eventually, hook_payload

from redline.audit.recorder import open_log
from redline.audit.store import Query

ASKED = "git push --force origin main"


def notices(env: Env) -> list[Any]:
    store = open_log(None, environ=env)
    try:
        return [e.record for e in store.query(Query(kind="notice"))]
    finally:
        store.close()


def sends_after(bot: BotApi, before: int) -> list[float]:
    return bot.calls_of("sendMessage")[before:]


def test_flood_control_and_server_errors_are_retried(
    env: Env, bot: BotApi, telegram: Callable[..., ServiceProcess]
) -> None:
    service = telegram()
    pair_owner(service, bot)
    before = len(bot.calls_of("sendMessage"))
    bot.fail("sendMessage", Fault(status=429, retry_after=2))
    bot.fail("editMessageText", Fault(status=500), Fault(status=502))
    hook = HookProcess(env, hook_payload(ASKED))
    message = request_message(bot)
    first, second = sends_after(bot, before)
    assert second - first >= 2.0  # Telegram's `retry_after` is honoured
    [held] = service.pending()
    assert held["undelivered"] == []
    service.owner("POST", f"/v1/held/{held['id']}/approve", {"by": "ana"})
    assert hook.result()[1]["code"] == "approved"
    assert "Approved" in edited(bot, message["message_id"], "Approved")
    assert len(bot.calls_of("editMessageText")) == 3
    assert bot.live_buttons() == []


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_a_notice_that_fails_for_good_is_shown_and_logged(
    env: Env, bot: BotApi, telegram: Callable[..., ServiceProcess]
) -> None:
    port = free_port()
    service = telegram("--http", f"127.0.0.1:{port}")
    pair_owner(service, bot)
    before = len(bot.calls_of("sendMessage"))
    bot.fail("sendMessage", *[Fault(status=500)] * 6)
    hook = HookProcess(env, hook_payload(ASKED))
    [held] = eventually(
        lambda: [row for row in service.pending() if row["undelivered"]],
        what="the failed notice",
    )
    assert len(sends_after(bot, before)) == 5  # bounded attempts
    [failed] = held["undelivered"]
    assert (failed["channel"], failed["chat"]) == ("telegram", str(OWNER))
    listing = subprocess.run(
        [sys.executable, "-m", "redline", "pending"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    assert f"  not delivered to telegram {OWNER}: {failed['error']}" in listing.splitlines()
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as web:
        code = service.owner("POST", "/v1/pair/web")[1]["code"]
        assert web.post("/login", data={"code": code}).status_code == 303
        [row] = web.get("/api/pending").json()["pending"]
        assert row["undelivered"] == [failed]
    [notice] = notices(env)
    assert (notice.ref, notice.channel, notice.code, notice.tool) == (
        held["log_ref"],
        "telegram",
        "notice-failed",
        "Bash",
    )
    assert notice.reason == f"not delivered to {OWNER}: {failed['error']}"
    service.owner("POST", f"/v1/held/{held['id']}/reject", {})
    assert hook.result()[1]["code"] == "rejected"


def test_an_edit_that_fails_for_good_is_logged(
    env: Env, bot: BotApi, telegram: Callable[..., ServiceProcess]
) -> None:
    service = telegram()
    pair_owner(service, bot)
    bot.fail("editMessageText", *[Fault(status=503)] * 5)
    hook = HookProcess(env, hook_payload(ASKED))
    message = request_message(bot)
    [held] = service.pending()
    service.owner("POST", f"/v1/held/{held['id']}/reject", {})
    assert hook.result()[1]["code"] == "rejected"
    [notice] = eventually(lambda: notices(env), what="the failed edit logged")
    assert (notice.ref, notice.code) == (held["log_ref"], "notice-failed")
    assert notice.reason.startswith(
        f"not delivered to {OWNER}: its message {message['message_id']} still shows buttons"
    )
    assert len(bot.calls_of("editMessageText")) == 5
    # A tap on it later still edits it.
    bot.tap(OWNER, message["message_id"], f"ok:{held['id']}:once")
    assert "Rejected" in edited(bot, message["message_id"], "Rejected")
    assert bot.live_buttons() == []


def test_a_send_that_returns_after_the_answer_loses_its_buttons(
    env: Env, bot: BotApi, telegram: Callable[..., ServiceProcess]
) -> None:
    service = telegram()
    pair_owner(service, bot)
    before = len(bot.calls_of("sendMessage"))
    bot.fail("sendMessage", Fault(delay=4.0))
    hook = HookProcess(env, hook_payload(ASKED))
    eventually(lambda: sends_after(bot, before), what="the send to start")
    [held] = service.pending()
    service.owner("POST", f"/v1/held/{held['id']}/reject", {"reason": "not now"})
    assert hook.result()[1]["code"] == "rejected"
    assert bot.sent_to(OWNER)[-1]["text"].startswith("Paired")  # still in flight
    message = request_message(bot)
    assert "Rejected" in edited(bot, message["message_id"], "Rejected")
    assert eventually(lambda: bot.live_buttons() == [], what="no buttons left")


def test_a_send_that_times_out_is_tried_again_and_stale_buttons_are_cleared(
    env: Env, bot: BotApi, telegram: Callable[..., ServiceProcess]
) -> None:
    service = telegram("--telegram-timeout", "1.5")
    pair_owner(service, bot)
    bot.fail("sendMessage", Fault(delay=4.0))
    hook = HookProcess(env, hook_payload(ASKED))
    # The retry arrives first; the timed-out send is carried out late, as Telegram does.
    shown = eventually(lambda: bot.live_buttons() if len(bot.live_buttons()) == 2 else None)
    [held] = service.pending()
    assert held["undelivered"] == []
    service.owner("POST", f"/v1/held/{held['id']}/approve", {"by": "ana"})
    assert hook.result()[1]["code"] == "approved"
    [stale] = eventually(lambda: len(bot.edits) == 1 and bot.live_buttons())
    assert stale in shown
    # The service never learnt the stale message's id; a tap on it edits it.
    bot.tap(OWNER, stale, f"ok:{held['id']}:once")
    assert "Approved" in edited(bot, stale, "Approved")
    assert bot.live_buttons() == []
