"""The owner's terminal (F-APPROVE-4): list, answer, and a prompt that waits.

Everything goes through the owner socket (0600 in an owner-only directory),
so only the owner's own user can list or answer held calls from a terminal.
`prompt` is the interactive prompt for a person at the terminal: held calls
arrive by themselves and are answered with one key.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import IO, Any

from redline.approve.paths import ServicePaths
from redline.approve.risk_summary import risk_line
from redline.approve.wire import Disconnected, Unreachable, exchange


class ServiceError(Exception):
    pass


def owner_call(home: str, method: str, path: str, body: Any = None, timeout: float = 30.0) -> Any:
    """One request on the owner socket; `ServiceError` with the service's words."""
    try:
        status, reply = exchange(
            ServicePaths(home).owner_socket, method, path, body, timeout=timeout
        )
    except Unreachable as err:
        raise ServiceError(
            f"the approval service is not running ({err}); start `redline serve`"
        ) from None
    except Disconnected as err:
        raise ServiceError(str(err)) from None
    if status != 200:
        message = reply.get("error") if isinstance(reply, dict) else None
        raise ServiceError(message or f"the service answered {status}")
    return reply


def describe(row: dict[str, Any], now: float | None = None) -> str:
    """A held call in a few lines: id, agent, session, rules, where it runs,
    any notice that never reached the owner, the command."""
    left = int(max(0.0, row["deadline"] - (time.time() if now is None else now)))
    rules = ", ".join(row.get("rules") or []) or "-"
    head = (
        f"{row['id']}  {row.get('kind')}  agent {row.get('agent') or '-'}  "
        f"session {row.get('session') or '-'}  context {row.get('context') or '-'}  "
        f"{left // 60}m{left % 60:02d}s left"
    )
    lines = [head, f"  rules: {rules}"]
    if row.get("reason_asked"):
        lines.append(f"  why:   {row['reason_asked']}")
    risk = risk_line(row.get("opinion"))
    if risk is not None:
        lines.append(f"  risk:  {risk}")
    lines.append(f"  in:    {row.get('cwd') or '(no workdir given)'}")
    for failed in row.get("undelivered") or []:
        lines.append(f"  not delivered to {failed['channel']} {failed['chat']}: {failed['error']}")
    lines.append(f"  $ {row['shown']}")
    return "\n".join(lines)


KEYS = {"o": "once", "s": "session", "a": "always"}


def prompt(
    home: str,
    stdin: IO[str],
    stdout: IO[str],
    *,
    stop: Callable[[], bool] = lambda: False,
    wait_s: float = 20.0,
) -> int:
    """Ask about each held call as it arrives, until end of input or `stop()`.
    Returns how many were answered."""
    seen: set[str] = set()
    answered = 0
    version = -1
    while not stop():
        listing = owner_call(home, "GET", "/v1/pending")
        version = int(listing["version"])
        for row in listing["pending"]:
            if row["id"] in seen:
                continue
            seen.add(row["id"])
            stdout.write(describe(row) + "\n")
            stdout.write("  approve [o]nce, for this [s]ession, [a]lways, [r]eject, or skip? ")
            stdout.flush()
            line = stdin.readline()
            if not line:
                return answered
            choice = line.strip().lower()[:1]
            try:
                if choice in KEYS:
                    body = {"scope": KEYS[choice], "channel": "terminal", "by": "owner"}
                    owner_call(home, "POST", f"/v1/held/{row['id']}/approve", body)
                elif choice == "r":
                    stdout.write("  reason (optional): ")
                    stdout.flush()
                    reason = stdin.readline().strip()
                    body = {"reason": reason, "channel": "terminal", "by": "owner"}
                    owner_call(home, "POST", f"/v1/held/{row['id']}/reject", body)
                else:
                    stdout.write("  skipped\n")
                    continue
            except ServiceError as err:
                stdout.write(f"  not applied: {err}\n")
                continue
            answered += 1
            stdout.write("  done\n")
        owner_call(home, "GET", f"/v1/changes?since={version}&wait={wait_s}", timeout=wait_s + 10)
    return answered
