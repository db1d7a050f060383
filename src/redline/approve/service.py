"""The service's core: judge a call, hold it, settle it once, tell everyone.

`Service` owns the gate (policy, allowlist, session state), the approval log,
the held calls and the channels that reach the owner. It runs in one event
loop: `decide` judges and records a call and holds an ask (persisted before
any channel hears of it); `wait` answers a hook's long poll with a signed
answer; `answer` settles a held call for the owner; a sweeper times out what
nobody answered. Every settlement is logged with who, where and when, and a
rejection feeds the session's rejection memory. The log's head (its last
seq and hash) goes to the owner's channels every `head_every_s` and when the
service stops, so a rewritten log can be caught with `redline log verify
--head` against a head kept off the machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from redline.approve import judge
from redline.approve.channel import Channel, shown_text
from redline.approve.client import call_digest
from redline.approve.db import Database
from redline.approve.defaults import HEAD_EVERY_S, HOLD_TIMEOUT_S
from redline.approve.logwriter import LogWriter
from redline.approve.pending import Held, Kind, PendingTable, State
from redline.approve.proposals import ProposalError, Proposals
from redline.approve.signing import Signer
from redline.audit.entry import Head
from redline.audit.recorder import LogUnavailable, Outcome, notice_record, outcome_record
from redline.audit.redact import redact_value
from redline.audit.sqlite import SqliteStore
from redline.audit.store import Store, open_store
from redline.decision import Decision, Verdict
from redline.gate.actions import ToolCall
from redline.gatekeeper import Gate
from redline.pairing import Pairing

if TYPE_CHECKING:
    from redline.approve.fleet import Fleet
    from redline.approve.workers import WorkerPool
    from redline.opinion.consult import Opinion

log = logging.getLogger("redline.approve")

DEFAULT_TIMEOUT_S = HOLD_TIMEOUT_S
SWEEP_S = 0.25
RECHECK_S = 2.0
SCOPES = ("once", "session", "always")
HEAD_ON_STOP_S = 15.0
"""How long a stopping service tries to get its last head to the owner."""


class AnswerError(Exception):
    """An owner's answer that cannot be applied (unknown id, already settled)."""


class Service:
    def __init__(
        self,
        *,
        gate: Gate,
        signer: Signer,
        store_url: str,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        environ: Mapping[str, str] | None = None,
        head_every_s: float = HEAD_EVERY_S,
        hook_token: str | None = None,
        pairing_key: bytes | None = None,
        service_dir: str | None = None,
    ) -> None:
        self.gate = gate
        self.service_dir = service_dir  # where the run settings are published
        if service_dir is not None:
            judge.publish_run_settings(service_dir, gate)
        self.hook_token = hook_token
        """What hooks on loopback HTTP must send (`install_secrets`); `None`: none may."""
        self.signer = signer
        self.timeout_s = timeout_s
        self.head_every_s = head_every_s
        self.store_url = store_url
        self.store: Store = open_store(store_url)
        # A local SQLite commit is cheapest on the loop; see `LogWriter`.
        self.writer = LogWriter(self.store, inline=isinstance(self.store, SqliteStore))
        self.db = Database(store_url)
        self.pending = PendingTable(self.db)
        # Without the install's key, one for this process: codes outlive no restart.
        self.pairing = Pairing(self.db, pairing_key or os.urandom(32))
        self.proposals = Proposals(self.db)
        self.channels: list[Channel] = []
        every = os.environ if environ is None else environ
        self.environ = every
        self.known = judge.known_secrets(every)
        self.version = 0
        self._changed = asyncio.Event()
        self._events: dict[str, asyncio.Event] = {}
        self.stopping = False
        """Set when the server stops taking requests: long polls end at once."""
        self._calls: dict[str, ToolCall] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._sweeper: asyncio.Task[None] | None = None
        self._head_timer: asyncio.Task[None] | None = None
        self.workers: WorkerPool | None = None
        """Judging workers, if `redline serve --workers` asked for them."""
        self.fleet: Fleet | None = None
        """The other replicas on the same PostgreSQL database (`approve.fleet`)."""

    # -- lifecycle
    async def start(self) -> None:
        for channel in self.channels:
            await channel.start()
        if self.workers is not None:
            await self.workers.start()
        if self.fleet is not None:
            # After the workers: it passes their session listener the others' changes.
            await self.fleet.start()
        self._sweeper = asyncio.create_task(self._sweep())
        if self.channel_names():
            self._head_timer = asyncio.create_task(self._send_heads())

    def channel_names(self) -> set[str]:
        """The owner's channels this service runs, or its replicas take turns to run."""
        names = {channel.name for channel in self.channels}
        if self.fleet is not None:
            names.update(channel.name for channel in self.fleet.exclusive)
        return names

    def begin_stopping(self) -> None:
        """End every long poll now with what it has, so a stop is not held up
        by them (a hook asks again elsewhere or fails closed; the page asks
        again when the service is back)."""
        self.stopping = True
        self._changed.set()
        for event in self._events.values():
            event.set()

    async def stop(self) -> None:
        if self.fleet is not None:
            await self.fleet.stop()
        if self.workers is not None:
            await self.workers.stop()
        for task in (self._sweeper, self._head_timer):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        await self.writer.close()
        if self.channels:
            # The last head leaves before the service does (everything is written).
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.send_head("the service is stopping"), HEAD_ON_STOP_S)
        for channel in self.channels:
            with contextlib.suppress(Exception):
                await channel.stop()
        self.store.close()
        self.db.close()

    # -- the log's head, kept off the machine
    def head(self) -> Head | None:
        """The log's last entry (seq and hash); `None` while the log is empty."""
        return self.store.head()

    async def send_head(self, why: str) -> None:
        """Tell every channel the log's head; a channel that fails is logged."""
        head = self.head()
        for channel in self.channels:
            try:
                await channel.head(head, why)
            except Exception:
                log.exception("the log head could not be sent to %s", channel.name)

    async def _send_heads(self) -> None:
        while True:
            await asyncio.sleep(self.head_every_s)
            await self.send_head("the daily checkpoint")

    # -- the agent's side
    async def record_unreadable(self, problem: str) -> None:
        """Log a decision request refused before its call could be read."""
        await judge.record_unreadable(self.writer.append, problem, self.known)

    async def decide(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """Judge one call: a signed answer now, or a held request to wait on."""
        return (await self.decide_reply(body))[0]

    async def decide_reply(
        self, body: Mapping[str, Any], origin: str | None = None
    ) -> tuple[dict[str, Any], bytes | None]:
        """`decide`'s reply, and its JSON text when it is a signed answer.
        `origin`: the remote agent and address the call came from (shown and
        logged with the hook's own name; the call's hash is the hook's)."""
        call, nonce, agent = asked = judge.read_call(body)
        run = judge.run_of(body, self.gate, call, self.service_dir)  # `redline run`'s call
        if origin is not None:
            agent = f"{agent or 'hook'} · {origin}"
        decision, opinion = await self._second_opinion(call, judge.check(self.gate, call))
        decision = judge.settle_run(self.gate, call, decision, run)
        logged = judge.logged_call(call, run)
        decision, seq = await judge.record(self.writer.append, logged, agent, decision, self.known)
        if opinion is not None and seq is not None:
            decision = await self._record_opinion(opinion, seq, call, agent, decision)
        digest = asked.digest
        if decision.verdict is not Verdict.ASK:
            return judge.answer_now(self.signer, nonce, digest, seq, decision, run)
        held = self.hold(
            Kind.CALL, call, decision, seq, nonce, digest, agent, opinion=opinion, run=run
        )
        return {"status": "pending", "request": held.id, "deadline": held.deadline}, None

    async def _second_opinion(
        self, call: ToolCall, decision: Decision
    ) -> tuple[Decision, Opinion | None]:
        """The model's second opinion (F-APPROVE-6), off the event loop; it can
        only tighten `decision`, and comes before any hold or answer."""
        if self.gate.policy.opinion is None:
            return decision, None
        from redline.opinion.consult import consult

        return await asyncio.to_thread(
            consult, self.gate, call, decision, self.environ, known=self.known
        )

    async def _record_opinion(
        self, opinion: Opinion, seq: int, call: ToolCall, agent: str | None, decision: Decision
    ) -> Decision:
        from redline.audit.recorder import deny_log_unavailable
        from redline.opinion.consult import opinion_record

        try:
            await self.writer.append(opinion_record(opinion, ref=seq, call=call, agent=agent))
        except LogUnavailable as err:
            return deny_log_unavailable(err)._replace(hits=decision.hits)
        return decision

    async def propose(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """Hold a proposal for the owner; the service carries it out on approval."""
        kind, raw = body.get("kind"), body.get("args") or {}
        if not isinstance(kind, str) or not isinstance(raw, dict):
            raise ValueError("a proposal needs `kind` (a string) and `args` (an object)")
        nonce = judge.nonce_of(body)
        session, agent = judge.strings(body, ("session", "agent"))
        args, shown = self.proposals.validate(kind, redact_value(raw, self.known))
        call = ToolCall(kind, args, None, None, session)
        asked = Decision(Verdict.ASK, reason=f"`{kind}` is only proposed", code="proposal")
        decision, seq = await judge.record(self.writer.append, call, agent, asked, self.known)
        digest = call_digest(kind, raw, None, session, None, agent)
        if decision.verdict is not Verdict.ASK:
            return judge.answer_now(self.signer, nonce, digest, seq, decision)[0]
        held = self.hold(Kind.PROPOSAL, call, decision, seq, nonce, digest, agent, shown=shown)
        return {"status": "pending", "request": held.id, "deadline": held.deadline}

    def hold(
        self,
        kind: Kind,
        call: ToolCall,
        decision: Decision,
        seq: int | None,
        nonce: str,
        digest: str,
        agent: str | None,
        shown: str | None = None,
        opinion: Opinion | None = None,
        run: Mapping[str, Any] | None = None,
    ) -> Held:
        now = time.time()
        judged = decision.to_json()
        if opinion is not None:
            judged["opinion"] = opinion.to_json()  # shown to the owner with the call
        if run is not None:
            judged["run"] = dict(run)  # signed with the owner's answer, as `answer_now` does
        args = redact_value(dict(call.args), self.known)
        stored = {"tool": call.tool, "args": args, "cwd": call.cwd}
        held = Held(
            id=os.urandom(5).hex(),
            kind=kind,
            created=now,
            deadline=now + self.timeout_s,
            nonce=nonce,
            call_hash=digest,
            ref=seq,
            session=call.session,
            agent=agent,
            tool=call.tool,
            context=decision.context or call.context,
            call=json.dumps(stored, sort_keys=True),
            shown=shown if shown is not None else shown_text(call.tool, call.args, self.known),
            decision=json.dumps(judged, sort_keys=True),
        )
        self.pending.insert(held)  # persisted before anyone is told
        self._calls[held.id] = call
        self._bump()
        for channel in self.channels:
            self.spawn(channel.held(held), f"{channel.name} held {held.id}")
        return held

    async def wait(self, held_id: str, wait_s: float) -> dict[str, Any] | None:
        """A held call's signed answer, or `{"status": "pending"}` after
        `wait_s`; `None` for an unknown id."""
        end = time.monotonic() + max(0.0, min(wait_s, 60.0))
        while True:
            held = self.pending.get(held_id)
            if held is None:
                return None
            if held.state is not State.PENDING:
                return self.signed(held)
            left = end - time.monotonic()
            if left <= 0 or self.stopping:
                return {"status": "pending", "request": held.id, "deadline": held.deadline}
            event = self._events.setdefault(held_id, asyncio.Event())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), min(left, RECHECK_S))

    def signed(self, held: Held) -> dict[str, Any]:
        answer = {
            "by": held.answered_by,
            "channel": held.channel,
            "scope": held.scope,
            "reason": held.reason,
            "at": held.answered_at,
        }
        envelope = self.signer.sign(
            request=held.id,
            nonce=held.nonce,
            call=held.call_hash,
            outcome=held.state.value,
            verdict="allow" if held.state is State.APPROVED else "deny",
            decision=held.decision_value,
            answer=answer,
        ).envelope
        return {"status": "answered", **envelope}

    async def notice_failed(self, held: Held, channel: str, chat: str, problem: str) -> None:
        """A channel could not tell the owner of `held` (after its retries):
        shown with the held call, and logged."""
        log.error("the owner was not told of %s on %s %s: %s", held.id, channel, chat, problem)
        self.pending.undelivered(held.id, channel, chat, problem, time.time())
        self._bump()
        if held.ref is None:
            return
        record = notice_record(
            ref=held.ref,
            channel=channel,
            problem=f"not delivered to {chat}: {problem}",
            session=held.session,
            agent=held.agent,
            tool=held.tool,
        )
        try:
            await self.writer.append(record)
        except LogUnavailable as err:
            log.error("the failed notice of %s could not be logged: %s", held.id, err)

    # -- the owner's side
    async def answer(
        self,
        held_id: str,
        state: State,
        *,
        by: str,
        channel: str,
        scope: str | None = None,
        reason: str | None = None,
    ) -> Held:
        """Settle a held call for the owner; `AnswerError` if it cannot be."""
        if state not in (State.APPROVED, State.REJECTED):
            raise AnswerError(f"unknown answer `{state}`")
        if state is State.APPROVED:
            scope = scope or "once"
            if scope not in SCOPES:
                raise AnswerError(f"unknown scope `{scope}`; expected once, session or always")
        held = self.pending.get(held_id)
        if held is None:
            raise AnswerError(f"no held call `{held_id}`")
        if held.kind is Kind.PROPOSAL and state is State.APPROVED:
            scope = "once"
            try:
                self.proposals.check(held)
            except ProposalError as err:
                raise AnswerError(str(err)) from None
        settled = self.pending.resolve(
            held,
            state,
            now=time.time(),
            by=by,
            channel=channel,
            scope=scope if state is State.APPROVED else None,
            reason=reason,
        )
        if settled is None:
            current = self.pending.get(held_id) or held
            if current.state is State.PENDING:
                raise AnswerError(f"`{held_id}` is past its deadline")
            raise AnswerError(f"`{held_id}` was already answered: {current.state.value}")
        await self._settle(settled)
        return settled

    async def _settle(self, held: Held) -> None:
        outcome = Outcome(held.state.value)
        moment = datetime.fromtimestamp(held.answered_at or time.time(), UTC)
        if held.ref is not None:
            try:
                # Through the writer: it never waits on the loop for a
                # worker's hold on the log's write lock.
                await self.writer.append(
                    outcome_record(
                        ref=held.ref,
                        outcome=outcome,
                        approved_by=held.answered_by,
                        approved_at=moment,
                        channel=held.channel,
                        session=held.session,
                        agent=held.agent,
                        tool=held.tool,
                        reason=held.reason or "",
                    )
                )
            except LogUnavailable as err:
                log.error("the outcome of %s could not be logged: %s", held.id, err)
        if held.kind is Kind.CALL:
            self._remember(held)
            if self.workers is not None:
                # No worker may judge the agent's next call without this answer.
                await self.workers.synced()
        elif held.state is State.APPROVED:
            try:
                self.proposals.execute(held)
            except Exception:
                log.exception("approved proposal %s could not be carried out", held.id)
        event = self._events.pop(held.id, None)
        if event is not None:
            event.set()
        self._bump()
        for channel in self.channels:
            self.spawn(channel.settled(held), f"{channel.name} settled {held.id}")

    def _remember(self, held: Held) -> None:
        call = self._calls.pop(held.id, None)
        if call is None:
            stored = held.call_value
            call = ToolCall(
                stored["tool"], stored["args"], stored.get("cwd"), held.context, held.session
            )
        try:
            self.gate.record_outcome(held.session, call, held.state.value, held.scope or "once")
        except Exception:
            log.exception("the gate could not remember the outcome of %s", held.id)

    async def _sweep(self) -> None:
        while True:
            try:
                await self.expire_due()
            except Exception:
                log.exception("the timeout sweep failed")
            await asyncio.sleep(SWEEP_S)

    async def expire_due(self) -> None:
        now = time.time()
        for held in self.pending.due(now):
            settled = self.pending.resolve(held, State.TIMEOUT, now=now, channel="timeout")
            if settled is not None:
                await self._settle(settled)

    def wake(self, held_id: str) -> None:
        """Another replica changed `held_id`: its waiters here look again."""
        event = self._events.pop(held_id, None)
        if event is not None:
            event.set()
        self._bump()

    # -- watchers (terminal, web)
    def _bump(self) -> None:
        self.version += 1
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def changes(self, since: int, wait_s: float) -> int:
        if self.version == since and not self.stopping:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), max(0.0, min(wait_s, 60.0)))
        return self.version

    def spawn(self, work: Any, what: str) -> None:
        async def run() -> None:
            try:
                await work
            except Exception:
                log.exception("%s failed", what)

        task = asyncio.create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
