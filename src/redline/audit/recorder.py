"""Turning gate decisions and their outcomes into log entries.

Everything is redacted before it is stored. A log that cannot be written is a
gate failure: callers catch `LogUnavailable` and answer `deny_log_unavailable`.
"""

from __future__ import annotations

import enum
import os
import time
from collections.abc import Mapping

from redline.audit.entry import Kind, Record, canonical_json, format_epoch, format_time
from redline.audit.redact import KnownSecrets, redact_text, redact_value, secret_values
from redline.audit.store import (
    PAYLOAD_TTL_S,
    LogUnavailable,
    Payload,
    open_store,
    resolve_url,
)
from redline.decision import Decision, Verdict

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from datetime import datetime, timedelta
    from typing import Any

    from redline.audit.protocol import Store
    from redline.deadline import Deadline

__all__ = [
    "MAX_ARG_CHARS",
    "LogUnavailable",
    "Outcome",
    "decision_record",
    "deny_log_unavailable",
    "open_log",
    "outcome_record",
    "record_decision",
]

MAX_ARG_CHARS = 4096
"""Longer strings are cut in the entry; a blocked call's payload keeps them whole."""


class Outcome(enum.StrEnum):
    """What became of an asked call (F-APPROVE-2)."""

    APPROVED = "approved"
    REJECTED = "rejected"
    TIMEOUT = "timeout"
    UNREACHABLE = "gate-unreachable"
    UNVERIFIED = "gate-unverified"


def open_log(url: str | None = None, environ: Mapping[str, str] | None = None) -> Store:
    """The log at `url`, else `$REDLINE_STORE`, else SQLite in `$REDLINE_HOME`."""
    return open_store(resolve_url(url, os.environ if environ is None else environ))


def record_decision(
    store: Store,
    *,
    session: str | None,
    context: str | None,
    agent: str | None,
    tool: str,
    args: Mapping[str, Any],
    decision: Decision,
    payload: str | None = None,
    now: datetime | None = None,
    payload_ttl: timedelta | None = None,
    environ: Mapping[str, str] | None = None,
    deadline: Deadline | None = None,
) -> int:
    """Append a `decision` entry and return its seq.

    `args` are the tool call's arguments (a bare command as `{"command": ...}`).
    They are redacted (known token formats, secret-named fields, and the values
    of secret-named variables in `environ`, default the process environment)
    and long strings are cut. A call that was not allowed keeps its payload
    whole (redacted) until `now + payload_ttl` (default `DEFAULT_PAYLOAD_TTL`):
    `payload` if given, else the arguments. Raises `LogUnavailable` when the log cannot be written
    (`LogBusy` when another process holds it past `deadline`).
    """
    record, kept = decision_record(
        session=session,
        context=context,
        agent=agent,
        tool=tool,
        args=args,
        decision=decision,
        payload=payload,
        now=now,
        payload_ttl=payload_ttl,
        environ=environ,
    )
    return store.append(record, kept, deadline=deadline).seq


def decision_record(
    *,
    session: str | None,
    context: str | None,
    agent: str | None,
    tool: str,
    args: Mapping[str, Any],
    decision: Decision,
    payload: str | None = None,
    now: datetime | None = None,
    payload_ttl: timedelta | None = None,
    environ: Mapping[str, str] | None = None,
    known: KnownSecrets | None = None,
) -> tuple[Record, Payload | None]:
    """The redacted `decision` record (and kept payload) `record_decision`
    appends, for a writer that appends several in one transaction. `known`:
    `secret_values(environ)` if the caller keeps it (a service's environment
    does not change)."""
    if known is None:
        known = secret_values(os.environ if environ is None else environ)
    full = redact_value(_plain(args), known)
    keep = payload is not None or decision.verdict != Verdict.ALLOW
    body = ""
    if keep:
        body = canonical_json(full) if payload is None else redact_text(payload, known)
    kept: Payload | None = None
    if now is None and payload_ttl is None:
        # The hook's case: the clock as a POSIX time, so `datetime` stays unloaded.
        moment = time.time()
        stamp = format_epoch(moment)
        if keep:
            kept = Payload.until_epoch(_text(body), moment + PAYLOAD_TTL_S)
    else:
        from datetime import UTC, datetime, timedelta

        when = datetime.now(UTC) if now is None else now
        stamp = format_time(when)
        if keep:
            ttl = timedelta(seconds=PAYLOAD_TTL_S) if payload_ttl is None else payload_ttl
            kept = Payload.of(_text(body), when + ttl)
    record = Record(
        kind=Kind.DECISION,
        time=stamp,
        session=_clean(session),
        context=_clean(context if context is not None else decision.context),
        agent=_clean(agent),
        tool=_clean(tool),
        args=canonical_json(_cut(full)),
        verdict=str(decision.verdict),
        rules=tuple(_text(rule) for rule in decision.rule_ids),
        reason=_text(redact_text(decision.reason, known)),
        code=_clean(decision.code),
        hardline=decision.hardline,
    )
    return record, kept


def outcome_record(
    *,
    ref: int,
    outcome: Outcome,
    approved_by: str | None = None,
    approved_at: datetime | None = None,
    channel: str | None = None,
    session: str | None = None,
    agent: str | None = None,
    tool: str | None = None,
    reason: str = "",
    now: datetime | None = None,
) -> Record:
    """The `outcome` entry for decision `ref`: who answered, when, where."""
    return Record(
        kind=Kind.OUTCOME,
        time=format_epoch(time.time()) if now is None else format_time(now),
        session=_clean(session),
        agent=_clean(agent),
        tool=_clean(tool),
        verdict=str(Verdict.ALLOW if outcome == Outcome.APPROVED else Verdict.DENY),
        reason=_text(redact_text(reason)),
        ref=ref,
        outcome=outcome.value,
        approved_by=_clean(approved_by),
        approved_at=None if approved_at is None else format_time(approved_at),
        channel=_clean(channel),
    )


def notice_record(
    *,
    ref: int,
    channel: str,
    problem: str,
    session: str | None = None,
    agent: str | None = None,
    tool: str | None = None,
) -> Record:
    """The `notice` entry for decision `ref`: a channel could not tell the owner."""
    return Record(
        kind=Kind.NOTICE,
        time=format_epoch(time.time()),
        session=_clean(session),
        agent=_clean(agent),
        tool=_clean(tool),
        reason=_text(redact_text(problem)),
        code="notice-failed",
        ref=ref,
        channel=_clean(channel),
    )


def deny_log_unavailable(err: LogUnavailable) -> Decision:
    """The gate's answer when the log cannot be written: no record, no run.
    A log held by another process past the deadline is `log-busy`."""
    from redline.audit.store import LogBusy

    if isinstance(err, LogBusy):
        return Decision(
            Verdict.DENY,
            reason=f"the approval log is busy, so the call cannot be recorded: {err.problem}",
            repair=err.repair,
            code="log-busy",
        )
    return Decision(
        Verdict.DENY,
        reason=f"the approval log cannot be written: {err.problem}",
        repair=err.repair,
        code="log-unavailable",
    )


def _plain(value: Any) -> Any:
    """A JSON value: unknown objects become their text, keys become strings."""
    if isinstance(value, str):
        return _text(value)
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        import math  # rare: kept off the hook's start

        return value if math.isfinite(value) else str(value)
    if isinstance(value, Mapping):
        return {_text(str(key)): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(item) for item in value]
    if isinstance(value, bytes):
        return _text(value.decode("utf-8", "replace"))
    return _text(str(value))


def _cut(value: Any) -> Any:
    if isinstance(value, str) and len(value) > MAX_ARG_CHARS:
        return f"{value[:MAX_ARG_CHARS]}…[{len(value) - MAX_ARG_CHARS} more chars]"
    if isinstance(value, dict):
        return {key: _cut(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_cut(item) for item in value]
    return value


def _text(text: str) -> str:
    """Text every backend can store: no NUL, no lone surrogates."""
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "replace").decode("utf-8")
    return text


def _clean(text: str | None) -> str | None:
    return None if text is None else _text(text)
