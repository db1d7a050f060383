"""The agents port: hooks on other machines reach the service over HTTPS.

Only the hook's routes are here (`/v1/decide`, `/v1/held/{id}`, `/v1/health`):
the owner's routes and the web page never are. Every request needs a live
agent token (`remote_agents`); the call is shown to the owner and logged as
coming from that agent and the address it came from. A browser's request is
refused as on loopback HTTP (no page can reach the port on the owner's behalf).
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from redline.approve import lean
from redline.approve.remote_agents import RemoteAgents
from redline.approve.service import Service

REFUSED = "the agent token is missing, wrong or revoked (see `redline agents list`)"


def _bearer(request: Request) -> str | None:
    values = request.headers.getlist("authorization")
    if len(values) != 1:
        return None
    scheme, _, token = values[0].partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def _peer(request: Request) -> str:
    client = request.client
    return client.host if client is not None else "unknown"


def agents_app(service: Service, agents: RemoteAgents) -> Starlette:
    async def admitted(request: Request) -> str | Response:
        peer = _peer(request)
        if lean.from_browser(request.scope):
            await service.record_unreadable(f"agents port: a browser's request from {peer}")
            return JSONResponse({"error": "a browser's request is refused"}, status_code=403)
        token = _bearer(request)
        name = agents.who(token, peer) if token else None
        if name is None:
            await service.record_unreadable(
                f"agents port: a request from {peer} with a missing, wrong or revoked token"
            )
            return JSONResponse({"error": REFUSED}, status_code=401)
        return f"{name} ({peer})"

    async def decide(request: Request) -> Response:
        who = await admitted(request)
        if isinstance(who, Response):
            return who
        try:
            body: dict[str, Any] = lean.parse(await request.body())
            reply, _ = await service.decide_reply(body, origin=who)
        except ValueError as err:
            if isinstance(err, lean.Unreadable):
                await service.record_unreadable(f"{err} (agent {who})")
            return JSONResponse({"error": str(err)}, status_code=getattr(err, "status", 400))
        return JSONResponse(reply)

    async def held(request: Request) -> Response:
        who = await admitted(request)
        if isinstance(who, Response):
            return who
        try:
            wait = float(request.query_params.get("wait", 0.0))
        except ValueError:
            wait = 0.0
        answer = await service.wait(request.path_params["id"], wait)
        if answer is None:
            return JSONResponse({"error": "no such request"}, status_code=404)
        return JSONResponse(answer)

    async def health(request: Request) -> Response:
        who = await admitted(request)
        if isinstance(who, Response):
            return who
        return JSONResponse({"ok": True, "key": service.signer.key_id})

    return Starlette(
        routes=[
            Route("/v1/decide", decide, methods=["POST"]),
            Route("/v1/held/{id}", held, methods=["GET"]),
            Route("/v1/health", health, methods=["GET"]),
        ]
    )


LOOPBACK = ("127.0.0.1", "localhost", "::1")


def bind_agents(spec: str, tls: bool) -> socket.socket:
    """The agents port's socket. Tokens never cross a network in clear: off
    loopback it needs the owner's certificate (`--tls-cert/--tls-key`); on
    loopback it may sit behind a reverse proxy that terminates TLS."""
    host, _, port = spec.rpartition(":")
    host = (host or "0.0.0.0").strip("[]")  # noqa: S104 - the point of the agents port
    if not port.isdigit():
        raise ValueError(f"`--agents {spec}`: expected [HOST:]PORT")
    if host not in LOOPBACK and not tls:
        raise ValueError(
            f"`--agents {spec}` is not loopback and has no certificate: agent tokens would cross "
            "the network in clear; give `--tls-cert FILE --tls-key FILE`, or listen on "
            "127.0.0.1 behind a reverse proxy that terminates TLS (docs/deploy.md)"
        )
    from redline.approve.tcp_listen import listen_tcp

    return listen_tcp(host, port, "--agents")


def agents_server(
    service: Service, cert: str | None, key: str | None, log_level: str = "warning"
) -> Any:
    """A `uvicorn.Server` for the agents port (no lifespan: the main server's
    runs the service)."""
    import uvicorn

    agents = RemoteAgents(service.db)
    config = uvicorn.Config(
        agents_app(service, agents),
        lifespan="off",
        log_level=log_level,
        access_log=False,
        ssl_certfile=cert,
        ssl_keyfile=key,
        timeout_keep_alive=75,
    )
    return uvicorn.Server(config)


async def serve_both(main: Any, main_sockets: list[Any], agents: Any, sock: Any) -> None:
    """Both servers in one loop; when either stops (a signal reaches only the
    last one to install its handlers), the other stops too."""

    async def watch() -> None:
        while not (main.should_exit or agents.should_exit):
            await asyncio.sleep(0.2)
        main.should_exit = agents.should_exit = True

    await asyncio.gather(main.serve(sockets=main_sockets), agents.serve(sockets=[sock]), watch())
