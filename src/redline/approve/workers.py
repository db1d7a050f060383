"""Judging workers: more processes answering auto-decided calls (F-APPROVE-1).

One Python process judges on one core. `redline serve --workers N` starts N
worker processes (`redline.approve.worker`) that accept connections on the
same hook socket and loopback HTTP listener as the service, judge each call
with their own gate, sign the answer with the service's key and reply. The
service stays the one owner of everything else:

- The log: a worker commits its records to the same store itself (`$REDLINE_STORE`
  is set to the service's), with its own group-commit writer; the store chains
  appends from several processes under its write lock, and no writer waits
  on the loop for another's lock (`LogWriter`).
- Held calls: a call the worker judges `ask`, and every other request, goes
  to the service over its relay sockets (`redline.approve.relay`).
- Session state: the owner's answers change grants and rejection memory
  here; every change goes to every worker in order (`state`), and an answer
  is only released to the waiting hook once every worker acknowledged it
  (`synced`). A worker that does not acknowledge in time is killed: it could
  otherwise judge the agent's next call without the owner's answer.

A worker starts from a snapshot of the sessions and serves nothing before the
service says `serve`: every change made before then reached it ahead of that,
and every change after is waited for. A worker that exits is started again;
when the service exits, its workers see the link close and exit at once, so
none outlives it.

Messages, service to worker: `("snapshot", n, sessions)`, `("state", n,
change)`, `("serve",)`; worker to service: `("ack", n)`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import subprocess
from collections.abc import Sequence
from typing import TYPE_CHECKING

from redline.approve.link import Link, LinkClosed
from redline.audit.store import STORE_ENV
from redline.gate.sessions import Change

if TYPE_CHECKING:
    from redline.approve.service import Service

log = logging.getLogger("redline.approve.workers")

SYNC_TIMEOUT_S = 2.0
"""How long an owner's answer waits for every worker to have applied it."""
RESTART_S = (0.2, 5.0)
"""The first and the longest pause before starting a worker again."""


class _Member:
    def __init__(self, proc: asyncio.subprocess.Process, link: Link) -> None:
        self.proc = proc
        self.link = link
        self.acked = -1
        self.ready = False

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()


class WorkerPool:
    def __init__(self, service: Service, count: int, command: Sequence[str], fds: Sequence[int]):
        self.service = service
        self.count = count
        self.command = list(command)
        self.fds = tuple(fds)
        self._sent = 0
        self._members: set[_Member] = set()
        self._acked = asyncio.Event()
        self._keepers: list[asyncio.Task[None]] = []
        self._stopping = False

    async def start(self) -> None:
        self.service.gate.sessions.listener = self._changed
        for index in range(self.count):
            self._keepers.append(asyncio.create_task(self._keep(index)))

    async def stop(self) -> None:
        self._stopping = True
        for member in list(self._members):
            with contextlib.suppress(ProcessLookupError):
                member.proc.terminate()
        for keeper in self._keepers:
            with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                await asyncio.wait_for(asyncio.shield(keeper), 10.0)
        for keeper in self._keepers:
            keeper.cancel()
        for member in list(self._members):
            member.kill()

    async def _keep(self, index: int) -> None:
        pause = RESTART_S[0]
        while not self._stopping:
            try:
                await self._run(index)
            except Exception:
                log.exception("judging worker %d failed", index)
            if self._stopping:
                return
            log.warning("judging worker %d exited; starting another in %.1f s", index, pause)
            await asyncio.sleep(pause)
            pause = min(pause * 2, RESTART_S[1])

    async def _run(self, index: int) -> None:
        ours, theirs = socket.socketpair()
        try:
            proc = await asyncio.create_subprocess_exec(
                *self.command,
                "--link-fd",
                str(theirs.fileno()),
                pass_fds=(*self.fds, theirs.fileno()),
                stdin=subprocess.DEVNULL,
                env={**os.environ, STORE_ENV: self.service.store_url},
            )
        finally:
            theirs.close()
        link = await Link.over(ours)
        member = _Member(proc, link)
        # The snapshot and every later change reach the worker in this order.
        link.send("snapshot", self._sent, self.service.gate.sessions.snapshot())
        self._members.add(member)
        try:
            while True:
                message = await link.receive()
                if message[0] == "ack":
                    member.acked = max(member.acked, int(message[1]))
                    if not member.ready:
                        # Every change before this went out ahead of "serve".
                        member.ready = True
                        link.send("serve")
                    self._acked.set()
        except LinkClosed:
            pass
        finally:
            self._members.discard(member)
            link.close()
            member.kill()
            await proc.wait()
            self._acked.set()

    def _changed(self, change: Change) -> None:
        self._sent += 1
        for member in list(self._members):
            try:
                member.link.send("state", self._sent, change)
            except LinkClosed:
                member.kill()

    async def synced(self, timeout: float = SYNC_TIMEOUT_S) -> None:
        """Return once every serving worker applied every change so far; a
        worker that has not within `timeout` is killed (and started again)."""
        target = self._sent
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            self._acked.clear()
            lagging = [m for m in self._members if m.ready and m.acked < target]
            if not lagging:
                return
            left = deadline - loop.time()
            if left <= 0:
                for member in lagging:
                    log.error("judging worker %d did not apply an answer; killed", member.proc.pid)
                    member.kill()
                    self._members.discard(member)
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._acked.wait(), left)
