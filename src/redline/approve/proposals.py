"""Proposals (F-APPROVE-5): actions the agent may only propose.

Sharing a digest (the exact words are shown, and it stays revocable),
revoking one, answering the open community question (one answer per
question) and publishing an inferred intention are held like asked calls and
carried out by the service itself, only when the owner approves. Nothing the
agent says in chat, and no "yes" typed anywhere, carries one out.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from redline.approve.db import Database
from redline.approve.pending import Held

MAX_TEXT = 4000
KINDS = ("share_digest", "revoke_digest", "village_vote", "publish_intention")
SCHEMA = (
    """CREATE TABLE IF NOT EXISTS digests (
        id TEXT PRIMARY KEY,
        text TEXT NOT NULL,
        shared_at REAL NOT NULL,
        revoked_at REAL
    )""",
    """CREATE TABLE IF NOT EXISTS questions (
        id TEXT PRIMARY KEY,
        text TEXT NOT NULL,
        opened_at REAL NOT NULL,
        closed_at REAL
    )""",
    """CREATE TABLE IF NOT EXISTS votes (
        question TEXT PRIMARY KEY,
        answer TEXT NOT NULL,
        proposal TEXT NOT NULL,
        cast_at REAL NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS intentions (
        id TEXT PRIMARY KEY,
        text TEXT NOT NULL,
        published_at REAL NOT NULL
    )""",
)


class ProposalError(ValueError):
    """A proposal that cannot be made or carried out, with the reason."""


def _text(body: Mapping[str, Any], key: str) -> str:
    value = body.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ProposalError(f"`{key}` must be a non-empty string")
    if len(value) > MAX_TEXT:
        raise ProposalError(f"`{key}` is longer than {MAX_TEXT} characters")
    return value


class Proposals:
    def __init__(self, db: Database) -> None:
        self.db = db
        db.script(SCHEMA)

    # -- what the agent may read
    def open_question(self) -> dict[str, Any] | None:
        rows = self.db.fetch(
            "SELECT q.id, q.text, q.opened_at FROM questions q WHERE q.closed_at IS NULL"
            " AND NOT EXISTS (SELECT 1 FROM votes v WHERE v.question = q.id)"
            " ORDER BY q.opened_at DESC LIMIT 1"
        )
        if not rows:
            return None
        return {"id": rows[0][0], "text": rows[0][1], "opened_at": rows[0][2]}

    def digests(self) -> list[dict[str, Any]]:
        rows = self.db.fetch(
            "SELECT id, text, shared_at FROM digests WHERE revoked_at IS NULL ORDER BY shared_at"
        )
        return [{"id": r[0], "text": r[1], "shared_at": r[2]} for r in rows]

    def vote(self, question: str) -> str | None:
        rows = self.db.fetch("SELECT answer FROM votes WHERE question = ?", (question,))
        return str(rows[0][0]) if rows else None

    def intentions(self) -> list[dict[str, Any]]:
        rows = self.db.fetch("SELECT id, text, published_at FROM intentions ORDER BY published_at")
        return [{"id": r[0], "text": r[1], "published_at": r[2]} for r in rows]

    # -- the owner's (or the community connector's) side
    def add_question(self, question_id: str, text: str) -> None:
        if self.db.fetch("SELECT 1 FROM questions WHERE id = ?", (question_id,)):
            raise ProposalError(f"question `{question_id}` exists already")
        self.db.execute(
            "INSERT INTO questions (id, text, opened_at) VALUES (?, ?, ?)",
            (question_id, text, time.time()),
        )

    def revoke(self, digest: str) -> bool:
        changed = self.db.execute(
            "UPDATE digests SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
            (time.time(), digest),
        )
        return changed == 1

    # -- proposing
    def validate(self, kind: str, body: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
        """The proposal's arguments and the exact text the owner is shown."""
        if kind == "share_digest":
            text = _text(body, "text")
            return {"text": text}, f"Share this digest (exactly these words):\n\n{text}"
        if kind == "revoke_digest":
            digest = _text(body, "digest")
            found = self.db.fetch(
                "SELECT text FROM digests WHERE id = ? AND revoked_at IS NULL", (digest,)
            )
            if not found:
                raise ProposalError(f"no shared digest `{digest}`")
            return {"digest": digest}, f"Stop sharing digest {digest}:\n\n{found[0][0]}"
        if kind == "village_vote":
            question, answer = _text(body, "question"), _text(body, "answer")
            open_question = self.open_question()
            if open_question is None or open_question["id"] != question:
                raise ProposalError(f"`{question}` is not the open question (read it first)")
            self.check_vote(question)
            shown = f"Answer the question: {open_question['text']}\n\nAnswer: {answer}"
            return {"question": question, "answer": answer}, shown
        if kind == "publish_intention":
            text = _text(body, "text")
            return {"text": text}, f"Publish this intention (exactly these words):\n\n{text}"
        raise ProposalError(f"unknown proposal `{kind}`; expected one of {', '.join(KINDS)}")

    def check_vote(self, question: str) -> None:
        if self.vote(question) is not None:
            raise ProposalError(f"question `{question}` already has its answer")

    def check(self, held: Held) -> None:
        """Before an approval is applied: can it still be carried out?"""
        call = held.call_value
        if call["tool"] == "village_vote":
            self.check_vote(call["args"]["question"])

    def execute(self, held: Held) -> None:
        """Carry out an approved proposal."""
        call = held.call_value
        kind, args, now = call["tool"], call["args"], time.time()
        if kind == "share_digest":
            self.db.execute(
                "INSERT INTO digests (id, text, shared_at) VALUES (?, ?, ?)",
                (held.id, args["text"], now),
            )
        elif kind == "revoke_digest":
            self.revoke(args["digest"])
        elif kind == "village_vote":
            self.db.execute(
                "INSERT INTO votes (question, answer, proposal, cast_at) VALUES (?, ?, ?, ?)",
                (args["question"], args["answer"], held.id, now),
            )
        elif kind == "publish_intention":
            self.db.execute(
                "INSERT INTO intentions (id, text, published_at) VALUES (?, ?, ?)",
                (held.id, args["text"], now),
            )

    def state(self) -> dict[str, Any]:
        return {
            "digests": self.digests(),
            "open_question": self.open_question(),
            "intentions": self.intentions(),
        }
