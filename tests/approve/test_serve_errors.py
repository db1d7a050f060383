"""What a new user is told, in one line with the repair: `redline pair
telegram` with no bot configured, `redline serve --http` on a busy port."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Callable

from servicekit import POLICY, Env, ServiceProcess

from redline.approve.app import NO_TELEGRAM


def redline(env: Env, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "redline", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_pairing_telegram_without_a_bot_says_how_to_configure_one(
    env: Env, make_service: Callable[..., ServiceProcess]
) -> None:
    service = make_service("--workers", "0")
    assert service.owner("POST", "/v1/pair/telegram") == (409, {"error": NO_TELEGRAM})
    done = redline(env, "pair", "telegram")
    assert (done.returncode, done.stdout, done.stderr) == (1, "", f"redline pair: {NO_TELEGRAM}\n")
    assert NO_TELEGRAM == (
        "no Telegram bot is configured: set `REDLINE_TELEGRAM_TOKEN` (or pass "
        "`--telegram-token-file`) and restart `redline serve`"
    )
    web = redline(env, "pair", "web")  # the web page needs no bot
    assert web.returncode == 0, web.stderr


def test_pairing_telegram_with_a_bot_gives_a_code(
    telegram: Callable[..., ServiceProcess],
) -> None:
    status, reply = telegram("--workers", "0").owner("POST", "/v1/pair/telegram")
    assert (status, sorted(reply)) == (200, ["channel", "code", "expires"])


def test_a_busy_port_is_named_with_the_repair(env: Env) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = redline(env, "serve", "--policy", str(POLICY), "--workers", "0", "--http", str(port))
    assert (done.returncode, done.stdout, done.stderr) == (
        1,
        "",
        f"redline serve: port {port} on 127.0.0.1 is already in use; stop what listens there "
        f"(`ss -ltnp 'sport = :{port}'` names it) or choose another with `--http PORT`\n",
    )
