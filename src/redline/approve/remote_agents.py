"""Agents on other machines (issue 16): one bearer token per agent.

`redline agents add NAME` makes a token, shows it once and keeps only its
SHA-256 (a token is 32 random bytes: a plain hash is as good as a slow one and
is looked up in one indexed read). A hook on the agent's machine sends it as
`Authorization: Bearer TOKEN` to the service's agents port (`redline serve
--agents`), which takes only the hook's routes there; a missing, wrong or
revoked token is refused with 401 and logged, and the hook fails closed.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from dataclasses import dataclass
from typing import Any

from redline.approve.db import Database

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS remote_agents (
        name TEXT PRIMARY KEY,
        digest TEXT NOT NULL UNIQUE,
        created REAL NOT NULL,
        revoked REAL,
        last_seen REAL,
        last_from TEXT
    )""",
)
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}")
TOKEN_PREFIX = "rla_"  # noqa: S105 - a marker, not a secret


class AgentError(ValueError):
    """A name that cannot be used, or an agent that does not exist."""


@dataclass(frozen=True, slots=True)
class RemoteAgent:
    name: str
    created: float
    revoked: float | None
    last_seen: float | None
    last_from: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "created": self.created,
            "revoked": self.revoked,
            "last_seen": self.last_seen,
            "last_from": self.last_from,
        }


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class RemoteAgents:
    def __init__(self, db: Database) -> None:
        self.db = db
        db.script(SCHEMA)

    def add(self, name: str) -> str:
        """A new agent's token (shown once); `AgentError` for a bad or taken name."""
        if not NAME.fullmatch(name):
            raise AgentError(
                f"bad agent name `{name}`: use letters, digits, `.`, `_` and `-` (64 at most)"
            )
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        changed = self.db.execute(
            "INSERT INTO remote_agents (name, digest, created) VALUES (?, ?, ?)"
            " ON CONFLICT (name) DO NOTHING",
            (name, digest(token), time.time()),
        )
        if not changed:
            raise AgentError(
                f"an agent named `{name}` exists already: `redline agents revoke {name}` first, "
                "or choose another name"
            )
        return token

    def revoke(self, name: str) -> None:
        """Refuse the agent's token from now on (its name stays, for the log)."""
        changed = self.db.execute(
            "UPDATE remote_agents SET revoked = ? WHERE name = ? AND revoked IS NULL",
            (time.time(), name),
        )
        if not changed:
            raise AgentError(f"no agent `{name}` with a live token (see `redline agents list`)")

    def remove_revoked(self, name: str) -> None:
        self.db.execute("DELETE FROM remote_agents WHERE name = ? AND revoked IS NOT NULL", (name,))

    def list(self) -> list[RemoteAgent]:
        rows = self.db.fetch(
            "SELECT name, created, revoked, last_seen, last_from FROM remote_agents ORDER BY name"
        )
        return [RemoteAgent(*row) for row in rows]

    def who(self, token: str, peer: str) -> str | None:
        """The live agent this token belongs to, or `None`."""
        if not token.startswith(TOKEN_PREFIX):
            return None
        rows = self.db.fetch(
            "SELECT name FROM remote_agents WHERE digest = ? AND revoked IS NULL",
            (digest(token),),
        )
        if not rows:
            return None
        name = str(rows[0][0])
        self.db.execute(
            "UPDATE remote_agents SET last_seen = ?, last_from = ? WHERE name = ?",
            (time.time(), peer, name),
        )
        return name
