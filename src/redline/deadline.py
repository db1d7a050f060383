"""A hook's deadline: one instant that everything the hook waits on is bounded by.

Claude Code, Codex and Gemini CLI run a call whose hook they killed for taking
too long, so a hook must answer before the host's timeout, whatever it waits
for: the log's write lock, the database, the approval service, the policy.
`redline install` writes the host's timeout and gives the hook a deadline
`MARGIN_S` below it (`--deadline SECONDS`); the hook turns that into one
`Deadline` when it starts and hands it to every wait. Past it the call is
denied (`log-busy`, `gate-timeout`), never left to the host.

Imports only `time`: a hook's start loads it.
"""

from __future__ import annotations

import time

HOST_TIMEOUT_S = 30
"""The host's timeout `redline install` writes for an embedded-mode hook."""

MARGIN_S = 5.0
"""How far below the host's timeout a hook's deadline lies."""

RESERVE_S = 0.4
"""Kept back from a wait bounded by the deadline: the time to write the deny."""

DEADLINE_ENV = "REDLINE_HOOK_DEADLINE"

GATE_TIMEOUT = "gate-timeout"
LOG_BUSY = "log-busy"


class DeadlinePassed(Exception):
    """The hook's deadline passed while it waited for `what`."""

    def __init__(self, what: str, deadline: Deadline) -> None:
        super().__init__(
            f"{what} did not finish within the hook's deadline of {deadline.total:g} s"
        )
        self.what = what


class Deadline:
    """A monotonic instant, `total` seconds after the hook started."""

    __slots__ = ("at", "total")

    def __init__(self, total: float, start: float | None = None) -> None:
        self.total = total
        self.at = (time.monotonic() if start is None else start) + total

    def left(self) -> float:
        """Seconds until the deadline (negative once it passed)."""
        return self.at - time.monotonic()

    def wait_s(self, cap: float | None = None) -> float:
        """How long one wait may take: what is left less `RESERVE_S`, at most
        `cap`, never below zero."""
        left = max(0.0, self.left() - RESERVE_S)
        return left if cap is None else min(cap, left)

    def check(self, what: str) -> None:
        """`DeadlinePassed` if no time is left for `what`."""
        if self.wait_s() <= 0:
            raise DeadlinePassed(what, self)


def process_start() -> float:
    """When this process started, on the `time.monotonic` clock: the host's
    timeout runs from there, not from when the interpreter got to redline
    (on a loaded machine that can be seconds later). Now, if it cannot be read."""
    now = time.monotonic()
    try:
        with open("/proc/self/stat", "rb") as stat:
            fields = stat.read().rpartition(b")")[2].split()
        import os

        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # seconds after boot
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - started
    except (OSError, ValueError, IndexError, AttributeError):
        return now
    return now - age if 0 <= age < 60 else now


def parse_seconds(text: str) -> float:
    """A deadline given as text: a positive number of seconds; `ValueError` if not."""
    value = float(text)
    if not value > 0 or value == float("inf"):
        raise ValueError(f"the deadline must be a positive number of seconds, not `{text}`")
    return value


def below(host_timeout_s: float) -> float:
    """The deadline for a host timeout: `MARGIN_S` below it, at least 1 s."""
    return max(1.0, host_timeout_s - MARGIN_S)
