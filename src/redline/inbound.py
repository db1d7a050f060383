"""Messaging senders are admitted only when paired (F-INBOUND-1).

An agent gateway (Hermes's Telegram, Discord or Slack gateway, or any other)
asks `admit(channel, sender_id, text)` before a message may start a run. A
paired sender is allowed; anyone else is denied, and the reason says how the
owner pairs them. Pairing is the approvers' own machinery
(`redline.pairing`): the owner runs `redline senders pair CHANNEL`, which
prints a one-time code that expires; the sender sends `/pair CODE` on that
channel. Wrong codes are rate limited per sender and lock the sender out;
many wrong codes on a channel burn its code. Senders are kept per channel
(`inbound:CHANNEL` in the pairing tables, apart from the owner's approval
channels), so a sender paired on one channel is a stranger on another.

Every admission and refusal is a `decision` entry in the approval log (tool
`inbound-message`; the sender and channel, never the text or a code). A log
or a pairing table that cannot be used refuses the message.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from redline.decision import Decision, Verdict

TYPE_CHECKING = False  # not `typing`'s (ADR 0004)
if TYPE_CHECKING:
    from redline.approve.db import Database
    from redline.pairing import Paired, Pairing

TOOL = "inbound-message"
PREFIX = "inbound:"
MAX_SENDER = 200
_CHANNEL = re.compile(r"[a-z0-9][a-z0-9_.-]{0,39}\Z")
_PAIR = re.compile(r"\s*/(?:pair|start)(?:@\w+)?\s+([A-Za-z0-9-]{6,20})\s*\Z")
_BARE = re.compile(r"\s*([A-HJ-NP-Za-hj-np-z2-9]{4}-?[A-HJ-NP-Za-hj-np-z2-9]{4})\s*\Z")


def valid_channel(channel: object) -> bool:
    return isinstance(channel, str) and _CHANNEL.match(channel) is not None


def channel_key(channel: str) -> str:
    """Where a channel's senders are kept in the pairing tables."""
    return PREFIX + channel


def _how(channel: str) -> str:
    return (
        f"the owner runs `redline senders pair {channel}` and gives the sender the code, "
        f"who sends `/pair CODE` here"
    )


def _deny(reason: str, code: str, repair: str = "") -> Decision:
    return Decision(Verdict.DENY, reason=reason, repair=repair, code=code)


def code_in(text: str | None) -> str | None:
    """A pairing code the message carries (`/pair CODE`, `/start CODE`, or the
    code alone), else `None`."""
    if not text or len(text) > 64:
        return None
    match = _PAIR.match(text) or _BARE.match(text)
    return match.group(1) if match else None


class Senders:
    """The paired senders of the messaging channels, in the service's own
    database (beside the log), under the install's pairing key."""

    def __init__(self, db: Database, pairing: Pairing) -> None:
        self.db = db
        self.pairing = pairing

    @classmethod
    def open(cls, environ: Mapping[str, str] | None = None) -> Senders:
        """`LogUnavailable` or `OSError` when the tables or the key cannot be used."""
        from redline.approve import install_secrets
        from redline.approve.db import Database
        from redline.approve.paths import ServicePaths
        from redline.audit.store import resolve_url
        from redline.home import home_dir
        from redline.pairing import Pairing

        env = os.environ if environ is None else environ
        key = install_secrets.pairing_key(ServicePaths(home_dir(env)))
        db = Database(resolve_url(None, env))
        try:
            return cls(db, Pairing(db, key))
        except Exception:
            db.close()
            raise

    def close(self) -> None:
        self.db.close()

    def issue(self, channel: str) -> tuple[str, float]:
        return self.pairing.issue(channel_key(channel))

    def paired(self, channel: str | None = None) -> list[Paired]:
        rows = self.pairing.paired(None if channel is None else channel_key(channel))
        return [
            row._replace(channel=row.channel[len(PREFIX) :])
            for row in rows
            if row.channel.startswith(PREFIX)
        ]

    def revoke(self, channel: str, sender: str) -> bool:
        return self.pairing.revoke(channel_key(channel), sender)

    def judge(self, channel: str, sender: str, text: str | None) -> Decision:
        """The admission decision, unrecorded."""
        from redline.pairing import Result

        key = channel_key(channel)
        if self.pairing.is_paired(key, sender):
            return Decision(
                Verdict.ALLOW, reason=f"`{sender}` is paired on {channel}", code="sender-paired"
            )
        code = code_in(text)
        if code is None:
            return _deny(f"`{sender}` is not paired on {channel}", "sender-unpaired", _how(channel))
        result = self.pairing.redeem(key, sender, code, label=channel)
        if result is Result.PAIRED:
            # The code itself starts no run; the sender's next message does.
            return _deny(
                f"`{sender}` is paired on {channel} now; their next message will be read",
                "sender-paired-now",
            )
        why = {
            Result.WRONG: "that pairing code is wrong",
            Result.EXPIRED: f"no pairing code is outstanding on {channel} (or it expired)",
            Result.RATE_LIMITED: "too many pairing attempts; wait a minute",
            Result.LOCKED: "locked out after too many wrong codes; wait 15 minutes",
        }[result]
        return _deny(
            f"`{sender}` is not paired on {channel}: {why}", f"pairing-{result}", _how(channel)
        )


def admit(
    channel: str,
    sender_id: str,
    text: str | None = None,
    *,
    environ: Mapping[str, str] | None = None,
) -> Decision:
    """Allow a paired sender's message to start a run; deny anyone else."""
    env = os.environ if environ is None else environ
    if not valid_channel(channel):
        decision = _deny(
            f"`{channel}` is not a channel name", "inbound-unreadable",
            "pass the gateway's platform name in lower case (`telegram`, `discord`)",
        )  # fmt: skip
        return _record(str(channel)[:40], str(sender_id)[:MAX_SENDER], decision, env)
    if not isinstance(sender_id, str) or not sender_id or len(sender_id) > MAX_SENDER:
        decision = _deny("the sender has no usable id", "inbound-unreadable", _how(channel))
        return _record(channel, str(sender_id)[:MAX_SENDER], decision, env)
    if text is not None and not isinstance(text, str):
        text = None
    try:
        senders = Senders.open(env)
    except Exception as err:  # noqa: BLE001 - fail closed, with the reason
        decision = _deny(
            f"the paired senders cannot be read ({type(err).__name__}: {err})",
            "inbound-unavailable",
            "check that the gateway runs as the owner and can use $REDLINE_HOME",
        )
        return _record(channel, sender_id, decision, env)
    try:
        decision = senders.judge(channel, sender_id, text)
    except Exception as err:  # noqa: BLE001 - fail closed, with the reason
        decision = _deny(
            f"the sender could not be checked ({type(err).__name__})", "inbound-unavailable"
        )
    finally:
        senders.close()
    return _record(channel, sender_id, decision, env)


def _record(channel: str, sender: str, decision: Decision, env: Mapping[str, str]) -> Decision:
    from redline.audit.recorder import LogUnavailable, deny_log_unavailable, open_log
    from redline.audit.recorder import record_decision as append

    try:
        store = open_log(None, env)
        try:
            append(
                store,
                session=None,
                context=None,
                agent=f"gateway:{channel}",
                tool=TOOL,
                args={"channel": channel, "sender": sender},
                decision=decision,
                environ=env,
            )
        finally:
            store.close()
    except LogUnavailable as err:
        return deny_log_unavailable(err)
    return decision
