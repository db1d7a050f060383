"""Retries for what the Telegram bot sends (F-APPROVE-4 under faults).

A held call the owner never hears of waits for nothing, so every send and
edit is tried again on what passes: flood control (HTTP 429, after the
`retry_after` Telegram names), server errors (5xx) and timeouts, with an
exponential backoff; attempts and total time are bounded. A refusal that
will not pass (a bad request, a blocked bot, a bad token) is not retried.
"""

from __future__ import annotations

import asyncio
import logging
import time
import warnings
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import TypeVar

from telegram.error import BadRequest, NetworkError, RetryAfter, TelegramError
from telegram.warnings import PTBDeprecationWarning

log = logging.getLogger("redline.approve.telegram")

T = TypeVar("T")

ATTEMPTS = 5
BUDGET_S = 60.0
FIRST_BACKOFF_S = 0.5


def retry_after_s(err: RetryAfter) -> float:
    """The wait Telegram asked for, in seconds."""
    with warnings.catch_warnings():
        # The library warns that the attribute becomes a timedelta; take both.
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        value = err.retry_after
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


class Retry:
    """Run a send, trying again on faults that pass: at most `attempts` tries,
    never waiting past `budget_s` from the first."""

    def __init__(
        self,
        *,
        attempts: int = ATTEMPTS,
        budget_s: float = BUDGET_S,
        first_backoff_s: float = FIRST_BACKOFF_S,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.attempts = max(1, attempts)
        self.budget_s = budget_s
        self.first_backoff_s = first_backoff_s
        self.sleep = sleep
        self.clock = clock

    async def run(self, send: Callable[[], Awaitable[T]], what: str) -> T:
        """`send()`'s result; its last error once the attempts or the time run out."""
        start, attempt = self.clock(), 0
        while True:
            attempt += 1
            try:
                return await send()
            except BadRequest:
                raise
            except RetryAfter as err:
                failure: TelegramError = err
                wait = retry_after_s(err)
            except NetworkError as err:  # 5xx, timeouts (`TimedOut`), connection errors
                failure = err
                wait = self.first_backoff_s * 2 ** (attempt - 1)
            if attempt == self.attempts or self.clock() - start + wait > self.budget_s:
                raise failure
            log.warning("%s failed (%s); try %d again in %.1fs", what, failure, attempt + 1, wait)
            await self.sleep(wait)
