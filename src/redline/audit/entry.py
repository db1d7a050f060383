"""Log entries as values: what a caller records, and what the chain seals.

They are named tuples, not dataclasses (see docs/adr/0002): a hook records
one entry per tool call, and importing `dataclasses` alone cost it ~10 ms.
"""

from __future__ import annotations

import enum
import time as _time

from redline import jsoncodec
from redline.fasttuple import NamedTuple

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from datetime import datetime
    from typing import Any

TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
"""Entry times are UTC text of one fixed width, so text order is time order."""


class Kind(enum.StrEnum):
    """`decision`: the gate answered a call. `outcome`: what became of an asked
    call. `notice`: the owner could not be told of an asked call (a channel's
    message failed for good). `opinion`: what a language model's second
    opinion said of decision `ref` (F-APPROVE-6), its details in `args`."""

    DECISION = "decision"
    OUTCOME = "outcome"
    NOTICE = "notice"
    OPINION = "opinion"


def format_time(moment: datetime) -> str:
    """UTC text for `moment`; a naive datetime is taken to be UTC already."""
    if moment.tzinfo is not None:
        from datetime import UTC

        moment = moment.astimezone(UTC)
    return moment.strftime(TIME_FORMAT)


def format_epoch(seconds: float) -> str:
    """`format_time` of a POSIX time, without importing `datetime` (the hook's path)."""
    whole = int(seconds // 1)
    micros = round((seconds - whole) * 1_000_000)
    if micros >= 1_000_000:
        whole, micros = whole + 1, micros - 1_000_000
    return f"{_time.strftime('%Y-%m-%dT%H:%M:%S', _time.gmtime(whole))}.{micros:06d}Z"


def parse_time(text: str) -> datetime:
    from datetime import UTC, datetime

    return datetime.strptime(text, TIME_FORMAT).replace(tzinfo=UTC)


def canonical_json(value: Any) -> str:
    """Sorted keys, compact separators, ASCII only: one text for one value."""
    return jsoncodec.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
    )


class Record(NamedTuple):
    """The content of one entry, before it is numbered and chained.

    `args` is the canonical JSON text (see `canonical_json`) of the redacted
    arguments. Decision fields: `verdict`, `rules`, `reason`, `code`,
    `hardline`. Outcome fields: `ref` (the decision's seq), `outcome`,
    `approved_by`, `approved_at`, `channel`. `payload_sha256` commits to a
    payload kept beside the entry, which may be purged without breaking the chain.
    """

    kind: Kind
    time: str
    session: str | None = None
    context: str | None = None
    agent: str | None = None
    tool: str | None = None
    args: str = "{}"
    verdict: str | None = None
    rules: tuple[str, ...] = ()
    reason: str = ""
    code: str | None = None
    hardline: bool = False
    ref: int | None = None
    outcome: str | None = None
    approved_by: str | None = None
    approved_at: str | None = None
    channel: str | None = None
    payload_sha256: str | None = None

    def arguments(self) -> Any:
        return jsoncodec.loads(self.args)

    def to_json(self) -> dict[str, Any]:
        """Every field, always present (absent values are `null`); `args` as a value."""
        return {
            "kind": self.kind.value,
            "time": self.time,
            "session": self.session,
            "context": self.context,
            "agent": self.agent,
            "tool": self.tool,
            "args": self.arguments(),
            "verdict": self.verdict,
            "rules": list(self.rules),
            "reason": self.reason,
            "code": self.code,
            "hardline": self.hardline,
            "ref": self.ref,
            "outcome": self.outcome,
            "approved_by": self.approved_by,
            "approved_at": self.approved_at,
            "channel": self.channel,
            "payload_sha256": self.payload_sha256,
        }

    def to_body(self) -> str:
        """The stored and hashed form: the canonical JSON text of `to_json()`."""
        return canonical_json(self.to_json())

    @classmethod
    def from_body(cls, body: str) -> Record:
        """Read a stored body back; a damaged body raises `ValueError`."""
        try:
            data = jsoncodec.loads(body)
            ref = data.get("ref")
            return cls(
                kind=Kind(data["kind"]),
                time=str(data["time"]),
                session=_opt(data.get("session")),
                context=_opt(data.get("context")),
                agent=_opt(data.get("agent")),
                tool=_opt(data.get("tool")),
                args=canonical_json(data.get("args", {})),
                verdict=_opt(data.get("verdict")),
                rules=tuple(str(rule) for rule in data.get("rules", ())),
                reason=str(data.get("reason", "")),
                code=_opt(data.get("code")),
                hardline=bool(data.get("hardline", False)),
                ref=None if ref is None else int(ref),
                outcome=_opt(data.get("outcome")),
                approved_by=_opt(data.get("approved_by")),
                approved_at=_opt(data.get("approved_at")),
                channel=_opt(data.get("channel")),
                payload_sha256=_opt(data.get("payload_sha256")),
            )
        except (ValueError, KeyError, TypeError, AttributeError) as err:
            raise ValueError(f"cannot read a log entry body: {err}") from None


def _opt(value: Any) -> str | None:
    return None if value is None else str(value)


Link = tuple[int, str, str, str]
"""An entry as it is stored and chained: `(seq, prev, hash, body)`."""


class Entry(NamedTuple):
    """A sealed record: its position, the hash it follows, its own hash, and
    its body (the exact text that was hashed) read back as a `Record`."""

    seq: int
    prev: str
    hash: str
    body: str
    record: Record

    @classmethod
    def from_link(cls, link: Link) -> Entry:
        seq, prev, digest, body = link
        return cls(seq, prev, digest, body, Record.from_body(body))

    @property
    def link(self) -> Link:
        return (self.seq, self.prev, self.hash, self.body)

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "prev": self.prev, "hash": self.hash, **self.record.to_json()}


class Head(NamedTuple):
    """A checkpoint: the last entry's seq and hash. Saved elsewhere, it makes a
    truncated tail detectable. `seq` is None when only the hash is known."""

    seq: int | None
    hash: str

    def __str__(self) -> str:
        return self.hash if self.seq is None else f"{self.seq}:{self.hash}"

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "hash": self.hash}

    @classmethod
    def parse(cls, text: str) -> Head:
        """Read a head as `redline log head` prints it (JSON), as `SEQ:HASH`, or a bare hash."""
        text = text.strip()
        seq: int | None = None
        digest = text
        if text.startswith("{"):
            try:
                data = jsoncodec.loads(text)
                seq = None if data.get("seq") is None else int(data["seq"])
                digest = str(data["hash"])
            except (ValueError, KeyError, TypeError, AttributeError):
                raise ValueError(_bad_head(text)) from None
        elif ":" in text:
            number, _, digest = text.partition(":")
            if not number.isdigit():
                raise ValueError(_bad_head(text))
            seq = int(number)
        digest = digest.strip().lower()
        if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            raise ValueError(_bad_head(text))
        return cls(seq, digest)


def _bad_head(text: str) -> str:
    shown = text if len(text) <= 80 else text[:77] + "..."
    return (
        f"cannot read a log head from `{shown}`; "
        "expected the JSON printed by `redline log head`, `SEQ:HASH` or a 64-digit hex hash"
    )
