"""Pairing untrusted senders (F-INBOUND-1): default deny until paired.

The owner asks for a one-time code (`redline pair telegram`, `redline pair
web`); whoever presents it on that channel before it expires is paired (or,
on the web page, logged in). Codes are stored as hashes and burnt on use.
Each sender is rate limited, and locked out after repeated wrong codes; many
wrong codes on a channel burn its outstanding code. Paired senders can be
listed and revoked.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from redline.fasttuple import NamedTuple

ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8
CODE_TTL_S = 600.0
RATE_WINDOW_S = 60.0
RATE_LIMIT = 5
"""Attempts one sender may make in `RATE_WINDOW_S`."""
LOCKOUT_AFTER = 5
"""Wrong codes from one sender within `LOCKOUT_S` that lock it out."""
LOCKOUT_S = 900.0
CHANNEL_BURN_AFTER = 20
"""Wrong codes on one channel within `LOCKOUT_S` that burn its outstanding code."""

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS pair_codes (
        channel TEXT PRIMARY KEY,
        digest TEXT NOT NULL,
        expires REAL NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS pair_attempts (
        channel TEXT NOT NULL,
        sender TEXT NOT NULL,
        at REAL NOT NULL,
        ok INTEGER NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS pair_attempts_sender ON pair_attempts (channel, sender, at)",
    """CREATE TABLE IF NOT EXISTS paired (
        channel TEXT NOT NULL,
        sender TEXT NOT NULL,
        label TEXT NOT NULL,
        paired_at REAL NOT NULL,
        revoked_at REAL,
        PRIMARY KEY (channel, sender)
    )""",
)


class Database(Protocol):
    def execute(self, sql: str, params: Sequence[Any] = ()) -> int: ...

    def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...

    def script(self, statements: Sequence[str]) -> None: ...


class Result(enum.StrEnum):
    PAIRED = "paired"
    WRONG = "wrong-code"
    EXPIRED = "no-valid-code"
    RATE_LIMITED = "rate-limited"
    LOCKED = "locked-out"


class Paired(NamedTuple):
    channel: str
    sender: str
    label: str
    paired_at: float

    def to_json(self) -> dict[str, Any]:
        return self._asdict()


DIGEST_PREFIX = "hmac-sha256:"
"""Stored codes are keyed hashes; a row without this prefix (a bare SHA-256
from before) never matches and is dropped."""


def _digest(key: bytes, code: str) -> str:
    mac = hmac.new(key, normalise(code).encode(), hashlib.sha256).hexdigest()
    return DIGEST_PREFIX + mac


def normalise(code: str) -> str:
    return "".join(c for c in code.upper() if c.isalnum())


def show(code: str) -> str:
    return f"{code[:4]}-{code[4:]}"


class Pairing:
    def __init__(self, db: Database, key: bytes, clock: Callable[[], float] = time.time) -> None:
        """`key`: the install's pairing key (`approve.install_secrets`), under
        which codes are stored."""
        if len(key) < 16:
            raise ValueError("a pairing key needs at least 16 bytes")
        self.db = db
        self.key = key
        self.clock = clock
        db.script(SCHEMA)
        # Codes stored the old way (bare SHA-256) are never honoured: gone.
        db.execute("DELETE FROM pair_codes WHERE digest NOT LIKE ?", (DIGEST_PREFIX + "%",))

    def issue(self, channel: str, ttl: float = CODE_TTL_S) -> tuple[str, float]:
        """A new one-time code for `channel` (replacing any outstanding one)."""
        code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
        expires = self.clock() + ttl
        self.db.execute("DELETE FROM pair_codes WHERE channel = ?", (channel,))
        self.db.execute(
            "INSERT INTO pair_codes (channel, digest, expires) VALUES (?, ?, ?)",
            (channel, _digest(self.key, code), expires),
        )
        return show(code), expires

    def _count(self, channel: str, sender: str | None, since: float, ok: int | None) -> int:
        sql = "SELECT count(*) FROM pair_attempts WHERE channel = ? AND at > ?"
        params: list[Any] = [channel, since]
        if sender is not None:
            sql += " AND sender = ?"
            params.append(sender)
        if ok is not None:
            sql += " AND ok = ?"
            params.append(ok)
        count: int = self.db.fetch(sql, params)[0][0]
        return count

    def redeem(
        self, channel: str, sender: str, code: str, *, label: str = "", remember: bool = True
    ) -> Result:
        """Check `code` from `sender`; on success the code is burnt and (with
        `remember`) the sender is paired."""
        now = self.clock()
        if self._count(channel, sender, now - LOCKOUT_S, 0) >= LOCKOUT_AFTER:
            return Result.LOCKED
        if self._count(channel, sender, now - RATE_WINDOW_S, None) >= RATE_LIMIT:
            return Result.RATE_LIMITED
        rows = self.db.fetch("SELECT digest, expires FROM pair_codes WHERE channel = ?", (channel,))
        result = Result.EXPIRED
        if rows and rows[0][1] > now and str(rows[0][0]).startswith(DIGEST_PREFIX):
            good = hmac.compare_digest(str(rows[0][0]), _digest(self.key, code))
            result = Result.PAIRED if good else Result.WRONG
        ok = result is Result.PAIRED
        if ok:
            burnt = self.db.execute(
                "DELETE FROM pair_codes WHERE channel = ? AND digest = ?", (channel, rows[0][0])
            )
            result = Result.PAIRED if burnt == 1 else Result.EXPIRED
            ok = burnt == 1
        self.db.execute(
            "INSERT INTO pair_attempts (channel, sender, at, ok) VALUES (?, ?, ?, ?)",
            (channel, sender, now, int(ok)),
        )
        if not ok and self._count(channel, None, now - LOCKOUT_S, 0) >= CHANNEL_BURN_AFTER:
            self.db.execute("DELETE FROM pair_codes WHERE channel = ?", (channel,))
        if ok and remember:
            self.db.execute(
                "DELETE FROM paired WHERE channel = ? AND sender = ?", (channel, sender)
            )
            self.db.execute(
                "INSERT INTO paired (channel, sender, label, paired_at) VALUES (?, ?, ?, ?)",
                (channel, sender, label, now),
            )
        return result

    def is_paired(self, channel: str, sender: str) -> bool:
        rows = self.db.fetch(
            "SELECT 1 FROM paired WHERE channel = ? AND sender = ? AND revoked_at IS NULL",
            (channel, sender),
        )
        return bool(rows)

    def paired(self, channel: str | None = None) -> list[Paired]:
        sql = "SELECT channel, sender, label, paired_at FROM paired WHERE revoked_at IS NULL"
        params: tuple[Any, ...] = ()
        if channel is not None:
            sql += " AND channel = ?"
            params = (channel,)
        return [Paired(*row) for row in self.db.fetch(sql + " ORDER BY paired_at", params)]

    def revoke(self, channel: str, sender: str) -> bool:
        changed = self.db.execute(
            "UPDATE paired SET revoked_at = ? WHERE channel = ? AND sender = ?"
            " AND revoked_at IS NULL",
            (self.clock(), channel, sender),
        )
        return changed == 1
