"""The Telegram approval bot: the real python-telegram-bot inside a real
`redline serve`, talking to a local Bot API stand-in; a real hook waits."""

from __future__ import annotations

from collections.abc import Callable

from botapi import OWNER, STRANGER, BotApi, edited, pair_owner, request_message
from servicekit import Env, HookProcess, ServiceProcess, eventually, hook_payload, outcomes

ASKED = "git push --force origin main"


def test_the_owner_approves_with_a_tap_and_strangers_are_ignored(
    env: Env, bot: BotApi, telegram: Callable[..., ServiceProcess]
) -> None:
    service = telegram()
    pair_owner(service, bot)
    hook = HookProcess(env, hook_payload(ASKED, session="s7"))
    message = request_message(bot)
    assert "<pre>git push --force origin main</pre>" in message["text"]
    assert "vcs.push-force" in message["text"]
    assert "session <code>s7</code>" in message["text"]
    assert "in <code>/work/project</code>" in message["text"]
    [row, reject] = message["reply_markup"]["inline_keyboard"]
    held_id = service.pending()[0]["id"]
    assert [b["callback_data"] for b in row + reject] == [
        f"ok:{held_id}:once",
        f"ok:{held_id}:session",
        f"ok:{held_id}:always",
        f"no:{held_id}",
    ]
    # A stranger's tap and commands change nothing and get no answer.
    bot.tap(STRANGER, message["message_id"], f"ok:{held_id}:always", username="mallory")
    bot.say(STRANGER, "/pending", username="mallory")
    bot.say(STRANGER, f"/reject {held_id} no", username="mallory")
    bot.tap(OWNER, message["message_id"], f"ok:{held_id}:session")
    code, decision, _ = hook.result()
    assert (code, decision["code"]) == (0, "approved")
    assert "ana via telegram, session" in decision["reason"]
    assert "Approved</b> (session) by ana via telegram" in edited(
        bot, message["message_id"], "Approved"
    )
    assert bot.sent_to(STRANGER) == []
    assert [a["text"] for a in bot.answers] == ["approved (session)"]
    [outcome] = outcomes(env)
    assert (outcome.outcome, outcome.approved_by, outcome.channel) == (
        "approved",
        "ana",
        "telegram",
    )
    eventually(
        lambda: service.log.read_text().count("unpaired Telegram user 6666") >= 3,
        what="the stranger's three updates logged as ignored",
    )


def test_a_rejection_with_a_reason_reaches_the_agent(
    env: Env, bot: BotApi, telegram: Callable[..., ServiceProcess]
) -> None:
    service = telegram()
    pair_owner(service, bot)
    hook = HookProcess(env, hook_payload(ASKED))
    message = request_message(bot)
    held_id = service.pending()[0]["id"]
    bot.say(OWNER, "yes")  # typed in chat: approves nothing
    eventually(lambda: any("approves nothing" in m["text"] for m in bot.sent_to(OWNER)))
    assert service.pending()[0]["state"] == "pending"
    bot.say(OWNER, f"/reject {held_id} not on main, open a PR")
    code, decision, _ = hook.result()
    assert (code, decision["code"]) == (4, "rejected")
    assert "not on main, open a PR" in decision["reason"]
    assert "Rejected" in edited(bot, message["message_id"], "Rejected")
    bot.say(OWNER, "/history")
    eventually(lambda: any("Rejected</b> by ana" in m["text"] for m in bot.sent_to(OWNER)))


def test_an_unanswered_request_is_marked_expired(
    env: Env, bot: BotApi, telegram: Callable[..., ServiceProcess]
) -> None:
    service = telegram("--timeout", "3")
    pair_owner(service, bot)
    hook = HookProcess(env, hook_payload(ASKED))
    message = request_message(bot)
    assert hook.result()[1]["code"] == "timeout"
    assert "Expired" in edited(bot, message["message_id"], "Expired")


def test_pending_lists_held_calls_with_their_buttons(
    env: Env, bot: BotApi, telegram: Callable[..., ServiceProcess]
) -> None:
    service = telegram()
    pair_owner(service, bot)
    hook = HookProcess(env, hook_payload(ASKED))
    first = request_message(bot)
    bot.say(OWNER, "/pending")
    again = eventually(
        lambda: [m for m in bot.sent_to(OWNER) if "reply_markup" in m][1:],
        what="the request shown again",
    )
    assert "<pre>git push --force origin main</pre>" in again[0]["text"]
    bot.tap(OWNER, again[0]["message_id"], f"no:{service.pending()[0]['id']}")
    assert hook.result()[1]["code"] == "rejected"
    for message in (first, again[0]):
        edited(bot, message["message_id"], "Rejected")


def test_a_locked_out_stranger_cannot_pair(
    env: Env, bot: BotApi, telegram: Callable[..., ServiceProcess]
) -> None:
    service = telegram()
    status, reply = service.owner("POST", "/v1/pair/telegram")
    assert status == 200
    for _ in range(5):
        bot.say(STRANGER, "/pair AAAA-AAAA", username="mallory")
    bot.say(STRANGER, f"/pair {reply['code']}", username="mallory")
    eventually(lambda: service.log.read_text().count("user 6666: ") >= 6, what="six attempts")
    assert "user 6666: locked-out" in service.log.read_text()
    assert service.owner("GET", "/v1/paired") == (200, {"paired": []})
    assert bot.sent_to(STRANGER) == []
