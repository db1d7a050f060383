"""One-time tickets: a hook that has judged a command (allowed, or approved by
the owner) hands it to `redline run` without it being judged a second time.

A ticket is a file in `$REDLINE_HOME/tickets/` named by a random nonce and
holding the digest of the command text and an expiry. `redline run --ticket
NONCE --shell TEXT` consumes it (a rename, so once) when the digest is that
of TEXT and it has not expired; any other case is judged as usual. A ticket
can only ever stand for the command it was made for, and what it runs still
runs in the sandbox, where `$REDLINE_HOME` is hidden: a stolen ticket runs an
approved command once, and a forged one needs the gate's own directory.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import time

TTL_S = 300
_DIR = "tickets"


def _digest(command: str) -> str:
    return hashlib.sha256(command.encode("utf-8", "surrogatepass")).hexdigest()


def issue(home: str, command: str, now: float | None = None) -> str:
    """Write a ticket for `command`; its nonce. Raises `OSError`."""
    folder = os.path.join(home, _DIR)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    moment = time.time() if now is None else now
    _sweep(folder, moment)
    nonce = secrets.token_hex(16)
    expires = moment + TTL_S
    path = os.path.join(folder, nonce)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as file:
        json.dump({"digest": _digest(command), "expires": expires}, file)
    return nonce


def _sweep(folder: str, now: float, most: int = 256) -> None:
    """Remove tickets that were never used, long expired (a bounded pass)."""
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for count, entry in enumerate(entries):
            if count >= most:
                return
            with contextlib.suppress(OSError):
                if entry.stat(follow_symlinks=False).st_mtime < now - 2 * TTL_S:
                    os.unlink(entry.path)


def consume(home: str, nonce: str, command: str, now: float | None = None) -> bool:
    """True once for a live ticket made for `command`; the ticket is gone after."""
    if not nonce or not all(c in "0123456789abcdef" for c in nonce) or len(nonce) != 32:
        return False
    path = os.path.join(home, _DIR, nonce)
    claimed = f"{path}.used-{os.getpid()}"
    try:
        os.rename(path, claimed)
    except OSError:
        return False
    try:
        with open(claimed, encoding="utf-8") as file:
            data = json.load(file)
    except (OSError, ValueError):
        return False
    finally:
        with contextlib.suppress(OSError):
            os.unlink(claimed)
    moment = time.time() if now is None else now
    if not isinstance(data, dict) or not isinstance(data.get("expires"), int | float):
        return False
    return bool(data.get("digest") == _digest(command) and moment <= data["expires"])
