"""The service's routes, and which socket may reach which.

Three listeners, three route sets: the hook socket (the agent's user may
connect) reaches only `/v1/decide`, `/v1/held/...` and proposals; the owner
socket (0600) also answers, lists and pairs; loopback HTTP serves the agent's
routes and the web page, whose own login and CSRF checks guard every answer;
there the hook routes also need the install's hook token and refuse any
request a browser sent (`lean.hook_refusal`).
With judging workers, a relay socket per listener (0600, in the owner's
directory) takes what a worker passes on, with that listener's routes and
checks.
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import Receive, Scope, Send

from redline.approve import lean
from redline.approve.pending import State
from redline.approve.service import AnswerError, Service

Handler = Callable[[Request], Coroutine[Any, Any, Response]]
NO_TELEGRAM = (
    "no Telegram bot is configured: set `REDLINE_TELEGRAM_TOKEN` (or pass "
    "`--telegram-token-file`) and restart `redline serve`"
)


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _body(request: Request) -> dict[str, Any]:
    """The JSON object body (`lean.parse`: nesting bounded, never a 500)."""
    return lean.parse(await request.body())


def _number(request: Request, name: str, default: float) -> float:
    try:
        return float(request.query_params.get(name, default))
    except ValueError:
        return default


def agent_routes(service: Service) -> list[BaseRoute]:
    async def decide(request: Request) -> Response:
        try:
            return JSONResponse(await service.decide(await _body(request)))
        except ValueError as err:
            if isinstance(err, lean.Unreadable):
                await service.record_unreadable(str(err))
            return _error(getattr(err, "status", 400), str(err))

    async def held(request: Request) -> Response:
        answer = await service.wait(request.path_params["id"], _number(request, "wait", 0.0))
        if answer is None:
            return _error(404, "no such request")
        return JSONResponse(answer)

    async def propose(request: Request) -> Response:
        try:
            return JSONResponse(await service.propose(await _body(request)))
        except ValueError as err:
            return _error(400, str(err))

    async def question(request: Request) -> Response:
        return JSONResponse({"question": service.proposals.open_question()})

    async def shared(request: Request) -> Response:
        return JSONResponse(service.proposals.state())

    async def health(request: Request) -> Response:
        return JSONResponse({"ok": True, "key": service.signer.key_id})

    return [
        Route("/v1/decide", decide, methods=["POST"]),
        Route("/v1/held/{id}", held, methods=["GET"]),
        Route("/v1/proposals", propose, methods=["POST"]),
        Route("/v1/questions/open", question, methods=["GET"]),
        Route("/v1/shared", shared, methods=["GET"]),
        Route("/v1/health", health, methods=["GET"]),
    ]


def owner_routes(service: Service) -> list[BaseRoute]:
    async def pending(request: Request) -> Response:
        rows = [service.pending.view(held) for held in service.pending.waiting()]
        return JSONResponse({"version": service.version, "pending": rows})

    async def history(request: Request) -> Response:
        limit = int(_number(request, "limit", 50))
        rows = [held.to_json() for held in service.pending.answered(limit)]
        return JSONResponse({"history": rows})

    async def changes(request: Request) -> Response:
        since = int(_number(request, "since", -1))
        version = await service.changes(since, _number(request, "wait", 0.0))
        return JSONResponse({"version": version})

    async def answer(request: Request) -> Response:
        state = State.APPROVED if request.path_params["verb"] == "approve" else State.REJECTED
        try:
            body = await _body(request)
            held = await service.answer(
                request.path_params["id"],
                state,
                by=str(body.get("by") or "owner"),
                channel=str(body.get("channel") or "terminal"),
                scope=body.get("scope"),
                reason=body.get("reason"),
            )
        except (ValueError, AnswerError) as err:
            return _error(409, str(err))
        return JSONResponse(held.to_json())

    async def pair(request: Request) -> Response:
        channel = request.path_params["channel"]
        if channel not in ("telegram", "web"):
            return _error(404, f"unknown channel `{channel}`; expected telegram or web")
        if channel == "telegram" and "telegram" not in service.channel_names():
            return _error(409, NO_TELEGRAM)
        code, expires = service.pairing.issue(channel)
        return JSONResponse({"channel": channel, "code": code, "expires": expires})

    async def paired(request: Request) -> Response:
        # Messaging senders (`inbound:*`) are `redline senders list`'s, not approvers.
        approvers = [p for p in service.pairing.paired() if not p.channel.startswith("inbound:")]
        return JSONResponse({"paired": [p.to_json() for p in approvers]})

    async def revoke(request: Request) -> Response:
        channel, sender = request.path_params["channel"], request.path_params["sender"]
        if not service.pairing.revoke(channel, sender):
            return _error(404, f"`{sender}` is not paired on {channel}")
        return JSONResponse({"revoked": {"channel": channel, "sender": sender}})

    async def add_question(request: Request) -> Response:
        try:
            body = await _body(request)
            service.proposals.add_question(str(body["id"]), str(body["text"]))
        except (ValueError, KeyError) as err:
            return _error(400, f"a question needs `id` and `text` ({err})")
        return JSONResponse({"question": service.proposals.open_question()})

    async def revoke_digest(request: Request) -> Response:
        if not service.proposals.revoke(request.path_params["id"]):
            return _error(404, "no such shared digest")
        return JSONResponse(service.proposals.state())

    return [
        Route("/v1/questions", add_question, methods=["POST"]),
        Route("/v1/digests/{id}/revoke", revoke_digest, methods=["POST"]),
        Route("/v1/pair/{channel}", pair, methods=["POST"]),
        Route("/v1/paired", paired, methods=["GET"]),
        Route("/v1/paired/{channel}/{sender}/revoke", revoke, methods=["POST"]),
        Route("/v1/pending", pending, methods=["GET"]),
        Route("/v1/history", history, methods=["GET"]),
        Route("/v1/changes", changes, methods=["GET"]),
        Route("/v1/held/{id}/{verb:str}", answer, methods=["POST"]),
    ]


class Dispatch:
    """One ASGI app for every listener: the socket a request came in on picks
    its routes; lifespan starts and stops the service."""

    def __init__(
        self,
        service: Service,
        apps: dict[str, Starlette],
        tcp: Starlette | None,
        as_tcp: frozenset[str] = frozenset(),
    ) -> None:
        self.service = service
        self.apps = apps
        self.tcp = tcp
        self.as_tcp = as_tcp
        """Unix sockets that stand for loopback HTTP (its relay): its app, its checks."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        server = scope.get("server") or ("", None)
        tcp = server[1] is not None or str(server[0]) in self.as_tcp
        if tcp and lean.hook_route(scope):
            # A hook route on loopback HTTP: the hook token, and no browser.
            refusal = lean.hook_refusal(scope, self.service.hook_token)
            if refusal is not None:
                await lean.reply(send, refusal[0], {"error": refusal[1]})
                return
        app = self.tcp if tcp else self.apps.get(str(server[0]))
        if app is not None and lean.wanted(scope, tcp):
            await lean.decide(self.service, scope, receive, send)
            return
        if app is None:
            await Response("not found", status_code=404)(scope, receive, send)
            return
        await app(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    await self.service.start()
                except Exception as err:  # noqa: BLE001 - reported to uvicorn
                    await send({"type": "lifespan.startup.failed", "message": str(err)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.service.stop()
                await send({"type": "lifespan.shutdown.complete"})
                return


def server_config(app: Any) -> Any:
    """uvicorn's settings for the service and its workers (a `uvicorn.Config`)."""
    import uvicorn

    from redline.approve.onewrite import OneWriteHttpProtocol

    # A reply's head and body go out in one send (`onewrite`).
    # No proxy sits in front of a loopback-only service: skip uvicorn's proxy-header pass.
    # Nor does any client need a `server` header on every answer.
    return uvicorn.Config(
        app,
        http=OneWriteHttpProtocol,
        log_level="warning",
        access_log=False,
        lifespan="on",
        proxy_headers=False,
        server_header=False,
    )


def service_server(config: Any, service: Service) -> Any:
    """A `uvicorn.Server` that ends the service's long polls when it begins to
    stop: uvicorn waits for every request in flight, and a poll would hold a
    stop up for its whole wait (20 s from the web page)."""
    import uvicorn

    class _Server(uvicorn.Server):
        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            service.begin_stopping()
            await super().shutdown(sockets)

    return _Server(config)


@contextlib.asynccontextmanager
async def _no_lifespan(app: Starlette) -> AsyncIterator[None]:
    yield


def build(
    service: Service,
    *,
    hook_socket: str,
    owner_socket: str,
    web: list[BaseRoute] | None = None,
    relays: dict[str, str] | None = None,
) -> Dispatch:
    """`relays`: the relay socket for `hook` and for `http`, if workers run."""
    agent = agent_routes(service)
    owner = agent + owner_routes(service)
    apps = {
        hook_socket: Starlette(routes=agent, lifespan=_no_lifespan),
        owner_socket: Starlette(routes=owner, lifespan=_no_lifespan),
    }
    relays = relays or {}
    if "hook" in relays:
        apps[relays["hook"]] = apps[hook_socket]
    tcp = None
    if web is not None:
        # Loopback names only: a page on another site rebound to 127.0.0.1 is refused.
        loopback = ["127.0.0.1", "localhost"]
        middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=loopback)]
        tcp = Starlette(routes=agent + web, middleware=middleware, lifespan=_no_lifespan)
    as_tcp = frozenset({relays["http"]} if "http" in relays and tcp is not None else ())
    return Dispatch(service, apps, tcp, as_tcp)
