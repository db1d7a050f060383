"""Replicas of the approval service on one PostgreSQL database (issue 16).

Every replica keeps the held calls, answers, pairing and the log in the shared
schema already; what lives in a replica's memory is told to the others here:

- A trigger on `pending` sends `NOTIFY` for every new held call and every
  settlement, naming the replica that made it (its `application_name`). A
  replica that hears of another's change wakes the hooks it has waiting on
  that call (so an answer given anywhere reaches them at once, not at the next
  recheck), its watchers (web page, terminal), and, in the replica that runs
  the Telegram bot, the bot (a notice for a new call, an edit for an answer).
- Session grants, rejection memory and the allowlist's additions are rows of
  `fleet_changes`, appended by the replica that made them and applied, in
  `seq` order, by every other one (on start, the whole history). A missed
  notification costs nothing: each replica reads from its last `seq`.

Channels that must run once (the Telegram bot) run in the one replica that
holds a session-level advisory lock (`Leadership`); when that replica dies its
connection closes, the lock goes with it and another replica takes it within
`LEADER_POLL_S`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from redline.approve.pending import State
from redline.gate.memory import Fingerprint, Outcome
from redline.gate.sessions import Change

if TYPE_CHECKING:
    from redline.approve.channel import Channel
    from redline.approve.service import Service

log = logging.getLogger("redline.approve.fleet")

LEADER_POLL_S = 0.5
RECONNECT_S = 1.0


def channel_name(schema: str) -> str:
    return f"redline_fleet_{schema}"


def schema_statements(schema: str) -> list[str]:
    channel = channel_name(schema)
    return [
        """CREATE TABLE IF NOT EXISTS fleet_changes (
            seq BIGSERIAL PRIMARY KEY,
            origin TEXT NOT NULL,
            body TEXT NOT NULL,
            at double precision NOT NULL
        )""",
        f"""CREATE OR REPLACE FUNCTION {schema}.fleet_pending() RETURNS trigger
            LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_notify('{channel}', concat_ws(' ', 'p', NEW.id, NEW.state,
                    current_setting('application_name')));
                RETURN NULL;
            END $$""",
        f"""CREATE OR REPLACE TRIGGER pending_fleet AFTER INSERT OR UPDATE OF state
            ON {schema}.pending FOR EACH ROW EXECUTE FUNCTION {schema}.fleet_pending()""",
        f"""CREATE OR REPLACE FUNCTION {schema}.fleet_change() RETURNS trigger
            LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_notify('{channel}', concat_ws(' ', 's', NEW.seq::text, NEW.origin));
                RETURN NULL;
            END $$""",
        f"""CREATE OR REPLACE TRIGGER fleet_changes_notify AFTER INSERT
            ON {schema}.fleet_changes FOR EACH ROW EXECUTE FUNCTION {schema}.fleet_change()""",
    ]


def replica_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{os.urandom(3).hex()}"


# -- session changes as JSON (never pickle: the table is shared)
def _fp_out(fp: Fingerprint) -> dict[str, Any]:
    return {
        "atoms": sorted([list(a) for a in fp.atoms]),
        "writes": sorted(fp.writes),
        "reads": sorted(fp.reads),
        "summary": fp.summary,
        "texts": list(fp.texts),
    }


def _fp_in(value: dict[str, Any]) -> Fingerprint:
    return Fingerprint(
        frozenset((str(a), str(b)) for a, b in value["atoms"]),
        frozenset(map(str, value["writes"])),
        frozenset(map(str, value["reads"])),
        str(value["summary"]),
        tuple(map(str, value.get("texts", ()))),
    )


def _grants_out(grants: Any) -> list[list[Any]]:
    return [[key, list(subject)] for key, subject in grants]


def _grants_in(value: Any) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return tuple((str(key), tuple(map(str, subject))) for key, subject in value)


def _fingerprint(value: object) -> Fingerprint:
    if not isinstance(value, Fingerprint):
        raise ValueError(f"expected a fingerprint, got {type(value).__name__}")
    return value


def encode(change: Change) -> str:
    name, args = change
    if name == "grant":
        body: list[Any] = [args[0], _grants_out(args[1])]
    elif name == "remember":
        body = [args[0], _fp_out(_fingerprint(args[1])), str(args[2])]
    elif name == "forget":
        body = [args[0], _fp_out(_fingerprint(args[1]))]
    elif name == "end":
        body = [args[0]]
    elif name == "allow":
        body = [_grants_out(args[0]), args[1]]
    else:
        raise ValueError(f"unknown change `{name}`")
    return json.dumps([name, body])


def decode(text: str) -> Change:
    name, body = json.loads(text)
    if name == "grant":
        return name, (str(body[0]), _grants_in(body[1]))
    if name == "remember":
        return name, (str(body[0]), _fp_in(body[1]), Outcome(body[2]))
    if name == "forget":
        return name, (str(body[0]), _fp_in(body[1]))
    if name == "end":
        return name, (str(body[0]),)
    if name == "allow":
        return name, (_grants_in(body[0]), str(body[1]))
    raise ValueError(f"unknown change `{name}`")


class Fleet:
    """This replica's part in the fleet: publish local changes, apply others'."""

    def __init__(self, service: Service, url: str, *, exclusive: list[Channel]) -> None:
        from redline.audit.postgres import _parse

        self.service = service
        self.conninfo, self.schema = _parse(url)
        self.me = replica_id()
        self.channel = channel_name(self.schema)
        self.exclusive = exclusive
        """Channels only the leader runs (the Telegram bot)."""
        self.leader = False
        self._seen = 0
        self._applying = False
        self._tasks: list[asyncio.Task[None]] = []
        self._wrapped: Callable[[Change], None] | None = None

    # -- lifecycle
    async def start(self) -> None:
        db = self.service.db
        db.name(self.me)
        db.script(schema_statements(self.schema))
        self._catch_up()
        sessions = self.service.gate.sessions
        self._wrapped = sessions.listener
        sessions.listener = self._local_change
        self.service.gate.allowlist.listener = self._local_allow
        self._tasks.append(asyncio.create_task(self._listen()))
        if self.exclusive:
            self._tasks.append(asyncio.create_task(self._lead()))

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()

    # -- changes made here
    def _local_change(self, change: Change) -> None:
        if self._wrapped is not None:
            self._wrapped(change)
        if not self._applying:
            self._publish(change)

    def _local_allow(self, grants: tuple[Any, ...], note: str) -> None:
        if not self._applying:
            self._publish(("allow", (grants, note)))

    def _publish(self, change: Change) -> None:
        try:
            self.service.db.execute(
                "INSERT INTO fleet_changes (origin, body, at) VALUES (?, ?, ?)",
                (self.me, encode(change), time.time()),
            )
        except Exception:
            # The change holds here; the other replicas learn it at their next
            # restart at worst (they still see every held call and answer).
            log.exception("a session change could not be shared with the other replicas")

    # -- changes made elsewhere
    def _catch_up(self) -> None:
        rows = self.service.db.fetch(
            "SELECT seq, origin, body FROM fleet_changes WHERE seq > ? ORDER BY seq",
            (self._seen,),
        )
        for seq, origin, body in rows:
            self._seen = max(self._seen, int(seq))
            if origin == self.me:
                continue
            try:
                change = decode(body)
            except (ValueError, KeyError, TypeError, IndexError):
                log.error("fleet change %s cannot be read; skipped", seq)
                continue
            self._apply(change)

    def _apply(self, change: Change) -> None:
        self._applying = True
        try:
            if change[0] == "allow":
                grants, note = change[1]
                self.service.gate.allowlist.add(grants, str(note))  # type: ignore[arg-type]
            else:
                self.service.gate.sessions.apply(change)
        except Exception:
            log.exception("a change from another replica could not be applied")
        finally:
            self._applying = False

    def _pending_changed(self, held_id: str, state: str, origin: str) -> None:
        if origin == self.me:
            return
        service = self.service
        service.wake(held_id)
        if not service.channels:
            return  # no channel to tell: spare the loop a read of the row
        held = service.pending.get(held_id)
        if held is None:
            return
        for channel in service.channels:
            if held.state is State.PENDING:
                service.spawn(channel.held(held), f"{channel.name} held {held.id}")
            else:
                service.spawn(channel.settled(held), f"{channel.name} settled {held.id}")

    def _heard(self, payload: str) -> None:
        parts = payload.split(" ")
        if parts[0] == "p" and len(parts) >= 3:
            self._pending_changed(parts[1], parts[2], parts[3] if len(parts) > 3 else "")
        elif parts[0] == "s":
            if len(parts) > 2 and parts[2] == self.me:
                return
            self._catch_up()

    async def _listen(self) -> None:
        import psycopg

        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                    self.conninfo, autocommit=True, connect_timeout=5
                ) as conn:
                    await conn.execute(f'LISTEN "{self.channel}"'.encode())
                    # Whatever was said while we were not listening.
                    self._catch_up()
                    async for note in conn.notifies():
                        try:
                            self._heard(note.payload)
                        except Exception:
                            log.exception("fleet notification `%s` failed", note.payload)
            except asyncio.CancelledError:
                raise
            except Exception as err:  # noqa: BLE001 - a dropped connection: listen again
                log.warning("fleet listener lost PostgreSQL (%s); retrying", err)
            await asyncio.sleep(RECONNECT_S)

    # -- the one replica that runs the Telegram bot
    async def _lead(self) -> None:
        import psycopg

        key = f"redline-leader:{self.schema}"
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                    self.conninfo, autocommit=True, connect_timeout=5
                ) as conn:
                    while not self.leader:
                        row = await (
                            await conn.execute("SELECT pg_try_advisory_lock(hashtext(%s))", (key,))
                        ).fetchone()
                        if row is not None and row[0]:
                            await self._take_over()
                        else:
                            await asyncio.sleep(LEADER_POLL_S)
                    # Hold the lock while the connection lives; check it is alive.
                    while True:
                        await asyncio.sleep(LEADER_POLL_S)
                        await conn.execute("SELECT 1")
            except asyncio.CancelledError:
                await self._step_down()
                raise
            except Exception as err:  # noqa: BLE001 - the lock's connection died
                log.warning("fleet leadership lost (%s)", err)
                await self._step_down()
            await asyncio.sleep(RECONNECT_S)

    async def _take_over(self) -> None:
        log.warning("replica %s now runs %s", self.me, ", ".join(c.name for c in self.exclusive))
        for channel in self.exclusive:
            await channel.start()
            self.service.channels.append(channel)
        self.leader = True
        # Calls held while no replica ran the channels are announced now
        # (those the last leader announced keep their messages).
        for held in self.service.pending.waiting():
            for channel in self.exclusive:
                if not self.service.pending.notices(held.id, channel.name):
                    self.service.spawn(channel.held(held), f"{channel.name} held {held.id}")

    async def _step_down(self) -> None:
        if not self.leader:
            return
        self.leader = False
        for channel in self.exclusive:
            with contextlib.suppress(ValueError):
                self.service.channels.remove(channel)
            with contextlib.suppress(Exception):
                await channel.stop()
