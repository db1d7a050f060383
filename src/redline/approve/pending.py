"""Held calls (F-APPROVE-2): persisted before anyone is told, answered once.

A held call is a row of `pending` in the log's own database. It is written
(and committed) before any channel is notified, so a service killed at any
moment finds it again on restart with the same deadline. An answer is a
conditional update (`WHERE state = 'pending' AND deadline > now`): of two
answers, or an answer racing the timeout, exactly one wins.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, replace
from typing import Any

from redline.approve.db import Database, Row


class State(enum.StrEnum):
    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"
    TIMEOUT = "timeout"


class Kind(enum.StrEnum):
    CALL = "call"
    PROPOSAL = "proposal"


SCHEMA = (
    """CREATE TABLE IF NOT EXISTS pending (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        created REAL NOT NULL,
        deadline REAL NOT NULL,
        nonce TEXT NOT NULL,
        call_hash TEXT NOT NULL,
        ref BIGINT,
        session TEXT,
        agent TEXT,
        tool TEXT,
        context TEXT,
        call TEXT NOT NULL,
        shown TEXT NOT NULL,
        decision TEXT NOT NULL,
        state TEXT NOT NULL,
        scope TEXT,
        answered_by TEXT,
        channel TEXT,
        reason TEXT,
        answered_at REAL
    )""",
    "CREATE INDEX IF NOT EXISTS pending_state ON pending (state, deadline)",
    """CREATE TABLE IF NOT EXISTS pending_notices (
        id TEXT NOT NULL,
        channel TEXT NOT NULL,
        chat TEXT NOT NULL,
        message TEXT NOT NULL,
        PRIMARY KEY (id, channel, chat, message)
    )""",
    """CREATE TABLE IF NOT EXISTS pending_undelivered (
        id TEXT NOT NULL,
        channel TEXT NOT NULL,
        chat TEXT NOT NULL,
        error TEXT NOT NULL,
        at REAL NOT NULL
    )""",
)
_COLUMNS = (
    "id, kind, created, deadline, nonce, call_hash, ref, session, agent, tool, context, call,"
    " shown, decision, state, scope, answered_by, channel, reason, answered_at"
)


@dataclass(frozen=True, slots=True)
class Held:
    """One held call (or proposal), as stored. `call` and `decision` are JSON
    text; `shown` is what the owner is shown, secrets redacted."""

    id: str
    kind: Kind
    created: float
    deadline: float
    nonce: str
    call_hash: str
    ref: int | None
    session: str | None
    agent: str | None
    tool: str | None
    context: str | None
    call: str
    shown: str
    decision: str
    state: State = State.PENDING
    scope: str | None = None
    answered_by: str | None = None
    channel: str | None = None
    reason: str | None = None
    answered_at: float | None = None

    @classmethod
    def from_row(cls, row: Row) -> Held:
        values = list(row)
        values[1] = Kind(values[1])
        values[14] = State(values[14])
        return cls(*values)

    def row(self) -> tuple[Any, ...]:
        return (
            self.id,
            self.kind.value,
            self.created,
            self.deadline,
            self.nonce,
            self.call_hash,
            self.ref,
            self.session,
            self.agent,
            self.tool,
            self.context,
            self.call,
            self.shown,
            self.decision,
            self.state.value,
            self.scope,
            self.answered_by,
            self.channel,
            self.reason,
            self.answered_at,
        )

    @property
    def call_value(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.call)
        return value

    @property
    def cwd(self) -> str | None:
        """Where the call runs (its workdir), as the hook reported it."""
        cwd = self.call_value.get("cwd")
        return cwd if isinstance(cwd, str) and cwd else None

    @property
    def decision_value(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.decision)
        return value

    def to_json(self) -> dict[str, Any]:
        """For the owner's views (terminal, web): nothing unredacted, no nonce."""
        return {
            "id": self.id,
            "kind": self.kind.value,
            "created": self.created,
            "deadline": self.deadline,
            "session": self.session,
            "agent": self.agent,
            "tool": self.tool,
            "context": self.context,
            "cwd": self.cwd,
            "shown": self.shown,
            "rules": self.decision_value.get("rules", []),
            "hits": self.decision_value.get("hits", []),
            "reason_asked": self.decision_value.get("reason", ""),
            "opinion": self.decision_value.get("opinion"),
            "state": self.state.value,
            "scope": self.scope,
            "answered_by": self.answered_by,
            "channel": self.channel,
            "reason": self.reason,
            "answered_at": self.answered_at,
            "log_ref": self.ref,
        }


class PendingTable:
    def __init__(self, db: Database) -> None:
        self.db = db
        db.script(SCHEMA)

    def insert(self, held: Held) -> None:
        marks = ", ".join("?" * len(held.row()))
        self.db.execute(f"INSERT INTO pending ({_COLUMNS}) VALUES ({marks})", held.row())  # noqa: S608

    def get(self, held_id: str) -> Held | None:
        rows = self.db.fetch(f"SELECT {_COLUMNS} FROM pending WHERE id = ?", (held_id,))  # noqa: S608
        return Held.from_row(rows[0]) if rows else None

    def waiting(self, kind: Kind | None = None) -> list[Held]:
        sql = f"SELECT {_COLUMNS} FROM pending WHERE state = 'pending'"  # noqa: S608
        params: tuple[Any, ...] = ()
        if kind is not None:
            sql += " AND kind = ?"
            params = (kind.value,)
        return [Held.from_row(row) for row in self.db.fetch(sql + " ORDER BY created", params)]

    def answered(self, limit: int = 50) -> list[Held]:
        rows = self.db.fetch(
            f"SELECT {_COLUMNS} FROM pending WHERE state <> 'pending'"  # noqa: S608
            " ORDER BY answered_at DESC LIMIT ?",
            (limit,),
        )
        return [Held.from_row(row) for row in rows]

    def resolve(
        self,
        held: Held,
        state: State,
        *,
        now: float,
        by: str | None = None,
        channel: str | None = None,
        scope: str | None = None,
        reason: str | None = None,
    ) -> Held | None:
        """Answer `held` if it is still waiting and in time; `None` if another
        answer (or the timeout) won."""
        guard = "deadline <= ?" if state is State.TIMEOUT else "deadline > ?"
        changed = self.db.execute(
            "UPDATE pending SET state = ?, answered_by = ?, channel = ?, scope = ?, reason = ?,"  # noqa: S608
            f" answered_at = ? WHERE id = ? AND state = 'pending' AND {guard}",
            (state.value, by, channel, scope, reason, now, held.id, now),
        )
        if changed != 1:
            return None
        return replace(
            held,
            state=state,
            answered_by=by,
            channel=channel,
            scope=scope,
            reason=reason,
            answered_at=now,
        )

    def due(self, now: float) -> list[Held]:
        rows = self.db.fetch(
            f"SELECT {_COLUMNS} FROM pending WHERE state = 'pending' AND deadline <= ?",  # noqa: S608
            (now,),
        )
        return [Held.from_row(row) for row in rows]

    def note(self, held_id: str, channel: str, chat: str, message: str) -> None:
        self.db.execute(
            "INSERT INTO pending_notices (id, channel, chat, message) VALUES (?, ?, ?, ?)",
            (held_id, channel, chat, message),
        )

    def notices(self, held_id: str, channel: str) -> list[tuple[str, str]]:
        rows = self.db.fetch(
            "SELECT chat, message FROM pending_notices WHERE id = ? AND channel = ?",
            (held_id, channel),
        )
        return [(str(chat), str(message)) for chat, message in rows]

    def undelivered(self, held_id: str, channel: str, chat: str, error: str, at: float) -> None:
        """A notice to `chat` that failed for good (after its retries)."""
        self.db.execute(
            "INSERT INTO pending_undelivered (id, channel, chat, error, at) VALUES (?, ?, ?, ?, ?)",
            (held_id, channel, chat, error, at),
        )

    def failures(self, held_id: str) -> list[dict[str, Any]]:
        """The notices of `held_id` that never reached the owner, oldest first."""
        rows = self.db.fetch(
            "SELECT channel, chat, error, at FROM pending_undelivered WHERE id = ? ORDER BY at",
            (held_id,),
        )
        return [
            {"channel": str(channel), "chat": str(chat), "error": str(error), "at": float(at)}
            for channel, chat, error, at in rows
        ]

    def view(self, held: Held) -> dict[str, Any]:
        """`held` for the owner's views, with the notices that never reached them."""
        from redline.approve.risk_summary import risk_line

        shown = held.to_json()
        return {**shown, "risk": risk_line(shown["opinion"]), "undelivered": self.failures(held.id)}
