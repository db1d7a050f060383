"""What the Telegram channel retries, how long it waits, and when it gives up."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Awaitable, Callable

import pytest
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TimedOut
from telegram.warnings import PTBDeprecationWarning

from redline.approve.telegram_retry import Retry


def flood(seconds: int) -> RetryAfter:
    """What the library raises on HTTP 429 (it warns of its own attribute's type)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        return RetryAfter(seconds)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0
        self.waits: list[float] = []

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds

    def __call__(self) -> float:
        return self.now


def failing(*errors: Exception) -> tuple[Callable[[], Awaitable[str]], list[int]]:
    tries = [0]

    async def send() -> str:
        tries[0] += 1
        if tries[0] <= len(errors):
            raise errors[tries[0] - 1]
        return "sent"

    return send, tries


def run(retry: Retry, send: Callable[[], Awaitable[str]]) -> str:
    return asyncio.run(retry.run(send, "a test send"))


def test_flood_control_waits_as_long_as_telegram_says() -> None:
    clock = Clock()
    send, tries = failing(flood(7), NetworkError("Internal Server Error (500)"), TimedOut())
    assert run(Retry(sleep=clock.sleep, clock=clock), send) == "sent"
    assert (tries[0], clock.waits) == (4, [7.0, 1.0, 2.0])


def test_attempts_are_bounded() -> None:
    clock = Clock()
    send, tries = failing(*[NetworkError("Bad Gateway")] * 10)
    with pytest.raises(NetworkError, match="Bad Gateway"):
        run(Retry(attempts=5, sleep=clock.sleep, clock=clock), send)
    assert (tries[0], clock.waits) == (5, [0.5, 1.0, 2.0, 4.0])


def test_total_time_is_bounded() -> None:
    clock = Clock()
    send, tries = failing(flood(30), flood(40), flood(5))
    with pytest.raises(RetryAfter):
        run(Retry(budget_s=60.0, sleep=clock.sleep, clock=clock), send)
    assert (tries[0], clock.waits) == (2, [30.0])


@pytest.mark.parametrize("error", [BadRequest("chat not found"), Forbidden("bot was blocked")])
def test_a_refusal_that_will_not_pass_is_not_retried(error: Exception) -> None:
    clock = Clock()
    send, tries = failing(error)
    with pytest.raises(type(error)):
        run(Retry(sleep=clock.sleep, clock=clock), send)
    assert (tries[0], clock.waits) == (1, [])
