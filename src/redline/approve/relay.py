"""Passing a request on to the service, for a judging worker.

A worker answers auto-decided calls itself; every other request on its
connections (a call to hold, a long poll for an answer, the web page) goes
to the service over its relay socket for that listener, headers and body as
they came, and the reply comes back as it was sent, streamed. The service
applies its own checks (routes per listener, `Host`, login, CSRF) there, as
if the request had reached it directly. A service that cannot be reached
is a 502 the hook treats as a failure (it blocks), never an answer.
"""

from __future__ import annotations

import httpx
from starlette.types import Receive, Scope, Send

from redline.approve.lean import BodyTooLarge, read_body, reply

# Headers about one hop, not the request: each side sets its own.
HOP_BY_HOP = frozenset(
    {b"connection", b"keep-alive", b"transfer-encoding", b"te", b"trailer", b"upgrade",
     b"proxy-authorization", b"proxy-authenticate", b"proxy-connection"}
)  # fmt: skip
CONNECT_S = 5.0


def client_for(relay_socket: str) -> httpx.AsyncClient:
    """Kept-alive connections to one relay socket; no read timeout, for long polls
    (the service bounds every wait itself)."""
    transport = httpx.AsyncHTTPTransport(uds=relay_socket)
    timeout = httpx.Timeout(None, connect=CONNECT_S)
    return httpx.AsyncClient(transport=transport, timeout=timeout, base_url="http://relay")


async def forward(
    client: httpx.AsyncClient, scope: Scope, receive: Receive, send: Send, body: bytes | None
) -> None:
    """Pass the request on and stream the reply back. `body`: already read, or
    `None` to read it here."""
    if body is None:
        try:
            body = await read_body(receive)
        except BodyTooLarge:
            await reply(send, 413, {"error": "the body is too large"})
            return
        if body is None:
            return  # the client went away
    url = scope["raw_path"] if scope.get("raw_path") else scope["path"].encode()
    if scope.get("query_string"):
        url += b"?" + scope["query_string"]
    headers = [(k, v) for k, v in scope["headers"] if k not in HOP_BY_HOP]
    target = url.decode("latin-1")
    request = client.build_request(scope["method"], target, headers=headers, content=body)
    try:
        response = await client.send(request, stream=True)
    except httpx.HTTPError as err:
        problem = f"the service did not answer the worker ({type(err).__name__})"
        await reply(send, 502, {"error": problem})
        return
    try:
        out = [(k.lower(), v) for k, v in response.headers.raw if k.lower() not in HOP_BY_HOP]
        await send({"type": "http.response.start", "status": response.status_code, "headers": out})
        async for chunk in response.aiter_raw():
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b""})
    finally:
        await response.aclose()
