"""Passing a request on to the service, for a judging worker.

A worker answers auto-decided calls itself; every other request on its
connections (a call to hold, a long poll for an answer, the web page) goes
to the service over its relay socket for that listener, and the reply comes
back as it was sent, streamed (with `x-redline-relayed-by: PID` added, so
the operator can tell). The service applies its own checks (routes per
listener, `Host`, hook token, login, CSRF, `Origin`) there, as if the
request had reached it directly. A service that cannot be reached is a 502
the hook treats as a failure (it blocks), never an answer.

What the relay may keep between requests: nothing that came from a request
or a reply. It sits between untrusted callers and the service, so anything
it carried from one request to the next would lend one caller another's
authority (an HTTP client's cookie jar did exactly that: the owner's login
cookie, kept from a reply, went out again on a stranger's request). So it
is a bare connection pool (`httpcore`), with no cookie jar, no auth, no
default headers and no redirects: each request goes out with the headers
the caller sent, in their order, less only the hop-by-hop ones (which
describe one connection, not the request), and nothing added (but the
length of a body that came in chunks, which frames it anew). The only
thing kept is idle connections to the relay socket, which carry no state of
their own (the service authenticates each request, never a connection).
"""

from __future__ import annotations

import httpcore
from starlette.types import Receive, Scope, Send

from redline.approve.lean import BodyTooLarge, read_body, reply

# Headers about one hop, not the request: each side sets its own.
HOP_BY_HOP = frozenset(
    {b"connection", b"keep-alive", b"transfer-encoding", b"te", b"trailer", b"upgrade",
     b"proxy-authorization", b"proxy-authenticate", b"proxy-connection"}
)  # fmt: skip
CONNECT_S = 5.0
# No read timeout, for long polls: the service bounds every wait itself.
TIMEOUTS = {"connect": CONNECT_S, "read": None, "write": None, "pool": None}
IDLE_KEPT = 20
"""Idle connections kept open to the relay socket."""

_FAILURES = (
    httpcore.TimeoutException,
    httpcore.NetworkError,
    httpcore.ProtocolError,
    httpcore.UnsupportedProtocol,
    httpcore.ConnectionNotAvailable,
)


class Relay:
    """Requests to one relay socket. Its only state is the pool of idle
    connections (see the module's docstring)."""

    def __init__(self, relay_socket: str) -> None:
        # As many connections as requests in flight: a held call's long poll
        # keeps one for minutes, and none may wait for another to end.
        self.pool = httpcore.AsyncConnectionPool(
            uds=relay_socket, max_connections=None, max_keepalive_connections=IDLE_KEPT
        )

    async def aclose(self) -> None:
        await self.pool.aclose()

    async def forward(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        body: bytes | None,
        mark: list[tuple[bytes, bytes]] | None = None,
    ) -> None:
        """Pass the request on and stream the reply back. `body`: already
        read, or `None` to read it here; `mark`: headers added to the reply
        (which worker relayed it), never to the request."""
        if body is None:
            try:
                body = await read_body(receive)
            except BodyTooLarge:
                await reply(send, 413, {"error": "the body is too large"})
                return
            if body is None:
                return  # the client went away
        target = scope["raw_path"] if scope.get("raw_path") else scope["path"].encode()
        if scope.get("query_string"):
            target += b"?" + scope["query_string"]
        headers = [(k, v) for k, v in scope["headers"] if k not in HOP_BY_HOP]
        if body and not any(k == b"content-length" for k, _ in headers):
            # It came in chunks (`transfer-encoding` is per hop): it goes out whole.
            headers.append((b"content-length", str(len(body)).encode()))
        url = httpcore.URL(scheme=b"http", host=b"relay", port=None, target=target)
        request = httpcore.Request(
            scope["method"].encode(),
            url,
            headers=headers,
            content=body,
            extensions={"timeout": TIMEOUTS},
        )
        try:
            response = await self.pool.handle_async_request(request)
        except _FAILURES as err:
            problem = f"the service did not answer the worker ({type(err).__name__})"
            await reply(send, 502, {"error": problem})
            return
        try:
            out = [(k.lower(), v) for k, v in response.headers if k.lower() not in HOP_BY_HOP]
            out += mark or ()
            await send({"type": "http.response.start", "status": response.status, "headers": out})
            async for chunk in response.aiter_stream():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b""})
        finally:
            await response.aclose()
