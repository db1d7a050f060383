"""A judging worker process (see `redline.approve.workers`).

Started by `redline serve --workers N` with the service's listening sockets
and one end of a link; never by hand. It judges `/v1/decide` calls with its
own gate, commits each decision to the service's log itself (its own
`LogWriter` on the same store: the store chains appends from several
processes), signs the answer and replies; anything else goes on to the
service (`relay`). It exits as soon as the link closes: without the service
it could not hold a call, nor learn the owner's answers.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import socket
import sys
from typing import Any

from starlette.types import Receive, Scope, Send

from redline.approve import judge, lean, relay
from redline.approve.install_secrets import read_hook_token
from redline.approve.link import Link, LinkClosed
from redline.approve.logwriter import LogWriter
from redline.approve.paths import ServicePaths
from redline.approve.signing import Signer
from redline.audit.sqlite import SqliteStore
from redline.audit.store import LogUnavailable, open_store, resolve_url
from redline.decision import Decision, Verdict
from redline.gate.actions import ToolCall
from redline.gatekeeper import Gate

log = logging.getLogger("redline.approve.worker")

JUDGED_BY = b"x-redline-worker"
"""A header on the answers a worker gave itself: its process id."""
RELAYED_BY = b"x-redline-relayed-by"
"""A header on the service's replies a worker passed back: its process id."""


class Worker:
    """The worker's ASGI app: decisions here, the rest to the service."""

    def __init__(
        self, gate: Gate, signer: Signer, writer: LogWriter, link: Link, paths: ServicePaths
    ) -> None:
        self.gate = gate
        self.signer = signer
        self.writer = writer
        self.link = link
        self.service_dir = paths.service_dir
        self.known = judge.known_secrets(os.environ)
        self.hook_token = read_hook_token(paths)
        self.hook_relay = relay.Relay(paths.relay_socket("hook"))
        self.http_relay = relay.Relay(paths.relay_socket("http"))
        self._listener: asyncio.Task[None] | None = None
        # Which process answered: for the operator's tracing and the tests.
        self._judged_by = [(JUDGED_BY, str(os.getpid()).encode())]
        self._relayed_by = [(RELAYED_BY, str(os.getpid()).encode())]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        tcp = (scope.get("server") or ("", None))[1] is not None
        if tcp and lean.hook_route(scope):
            # The service's own check, before judging anything here.
            refusal = lean.hook_refusal(scope, self.hook_token)
            if refusal is not None:
                await lean.reply(send, refusal[0], {"error": refusal[1]})
                return
        onward = self.http_relay if tcp else self.hook_relay
        if lean.wanted(scope, tcp):
            await self._decide(onward, scope, receive, send)
        else:
            await onward.forward(scope, receive, send, None, self._relayed_by)

    async def _decide(
        self, onward: relay.Relay, scope: Scope, receive: Receive, send: Send
    ) -> None:
        request = await lean.read_call(receive, send, self._record_unreadable)
        if request is None:
            return
        data, body = request
        try:
            asked = judge.read_call(body)
            run = judge.run_of(body, self.gate, asked.call, self.service_dir)
            decision = judge.check(self.gate, asked.call)
            decision = judge.settle_run(self.gate, asked.call, decision, run)
        except ValueError as err:
            await lean.reply(send, getattr(err, "status", 400), {"error": str(err)})
            return
        if decision.verdict is Verdict.ASK or self._wants_opinion(asked.call, decision):
            # Held calls, and second opinions, live in the service: it judges
            # this one again (and asks the model, and holds it).
            await onward.forward(scope, receive, send, data, self._relayed_by)
            return
        logged = judge.logged_call(asked.call, run)
        decision, seq = await judge.record(
            self.writer.append, logged, asked.agent, decision, self.known
        )
        answer, text = judge.answer_now(self.signer, asked.nonce, asked.digest, seq, decision, run)
        await lean.reply(send, 200, answer, text, self._judged_by)

    def _wants_opinion(self, call: ToolCall, decision: Decision) -> bool:
        if self.gate.policy.opinion is None:
            return False
        from redline.opinion.consult import selected

        return selected(self.gate, call, decision, os.environ) is not None

    async def _record_unreadable(self, problem: str) -> None:
        await judge.record_unreadable(self.writer.append, problem, self.known)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    await self._catch_up()
                except LinkClosed as err:
                    await send({"type": "lifespan.startup.failed", "message": str(err)})
                    return
                self._listener = asyncio.create_task(self._listen())
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.hook_relay.aclose()
                await self.http_relay.aclose()
                await self.writer.close()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _catch_up(self) -> None:
        """Apply the snapshot and every change until the service says `serve`."""
        while True:
            message = await self.link.receive()
            if message[0] == "serve":
                return
            self._handle(message)

    async def _listen(self) -> None:
        try:
            while True:
                self._handle(await self.link.receive())
        except LinkClosed:
            # The service is gone: answer nothing more, free its sockets now.
            why = "the service is gone"
        except Exception as err:  # noqa: BLE001 - a worker out of step must not judge
            why = f"a message could not be applied ({type(err).__name__}: {err})"
        sys.stderr.write(f"redline worker: {why}; exiting\n")
        sys.stderr.flush()
        os._exit(0)

    def _handle(self, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "snapshot":
            self.gate.sessions.restore(message[2])
            self.link.send("ack", message[1])
        elif kind == "state":
            self.gate.sessions.apply(message[2])
            self.link.send("ack", message[1])
        else:
            raise LinkClosed(f"an unknown message `{kind}`")


def command(policy: str | None, fds: list[int]) -> list[str]:
    """How the service starts a worker (it adds `--link-fd`)."""
    argv = [sys.executable, "-m", "redline.approve.worker"]
    if policy:
        argv += ["--policy", policy]
    for fd in fds:
        argv += ["--listen-fd", str(fd)]
    return argv


def main(argv: list[str] | None = None) -> int:
    import uvicorn

    from redline.approve.app import server_config
    from redline.home import home_dir

    parser = argparse.ArgumentParser(prog="redline-worker", description=__doc__)
    parser.add_argument("--link-fd", type=int, required=True)
    parser.add_argument("--listen-fd", type=int, action="append", default=[])
    parser.add_argument("--policy")
    args = parser.parse_args(argv)
    os.umask(0o077)  # as the service: whatever it creates is the owner's alone
    logging.basicConfig(
        level=logging.WARNING, format="%(asctime)s %(name)s %(levelname)s: %(message)s"
    )
    paths = ServicePaths(home_dir())
    gate = Gate.from_environ(os.environ, args.policy)
    signer = Signer.load(paths)
    try:
        store = open_store(resolve_url(None, os.environ))  # the service set $REDLINE_STORE
    except LogUnavailable as err:
        sys.stderr.write(f"redline worker: {err}\n")  # the service starts another later
        return 1
    sockets = [socket.socket(fileno=fd) for fd in args.listen_fd]
    link_socket = socket.socket(fileno=args.link_fd)

    async def serve() -> None:
        link = await Link.over(link_socket)
        writer = LogWriter(store, inline=isinstance(store, SqliteStore))
        app = Worker(gate, signer, writer, link, paths)
        await uvicorn.Server(server_config(app)).serve(sockets=sockets)

    import uvloop

    uvloop.run(serve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
