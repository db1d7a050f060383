"""The log's head leaves the machine: the service sends it to the owner's
Telegram chat on `/head`, on a timer and when it stops, and `redline log
verify --head` checks the log against it."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable

from botapi import OWNER, BotApi, pair_owner
from servicekit import Env, ServiceProcess, eventually, hook_payload, run_hook

from redline.audit.recorder import open_log

HEAD = re.compile(r"<code>(\d+):([0-9a-f]{64})</code>")


def heads(bot: BotApi, why: str) -> list[str]:
    found = []
    for message in bot.sent_to(OWNER):
        match = HEAD.search(message["text"])
        if f"({why})" in message["text"] and match:
            found.append(f"{match[1]}:{match[2]}")
    return found


def log_head(env: Env) -> str:
    store = open_log(None, environ=env)
    try:
        head = store.head()
    finally:
        store.close()
    assert head is not None
    return str(head)


def verify(env: Env, head: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "redline", "log", "verify", "--head", head],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_head_is_sent_on_request_on_the_timer_and_at_stop(
    env: Env, bot: BotApi, telegram: Callable[..., ServiceProcess]
) -> None:
    service = telegram("--head-every", "2")
    pair_owner(service, bot)
    assert run_hook(env, hook_payload("ls /srv"))[0] == 0
    bot.say(OWNER, "/head")
    [asked] = eventually(lambda: heads(bot, "as you asked"), what="the head on /head")
    assert asked == log_head(env)
    ticks = eventually(lambda: heads(bot, "the daily checkpoint"), what="the timer's head")
    assert ticks[-1] == log_head(env)
    assert run_hook(env, hook_payload("ls /tmp"))[0] == 0
    service.stop()
    [last] = heads(bot, "the service is stopping")
    assert last == log_head(env) != asked
    checked = verify(env, last)
    assert (checked.returncode, checked.stdout.startswith("ok: ")) == (0, True)
    assert verify(env, asked).returncode == 0  # an older head is still in the chain
