"""The worker's relay keeps nothing between requests: a reply's cookie never
goes out on the next request, and each request reaches the service with the
caller's headers exactly (less the hop-by-hop ones), nothing added."""

from __future__ import annotations

import asyncio
import http.cookiejar
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import httpx

from redline.approve.relay import Relay

SET_COOKIE = b"redline_session=owner-secret; HttpOnly; SameSite=Strict; Path=/"


async def _upstream(path: str, seen: list[bytes]) -> asyncio.AbstractServer:
    """A service stand-in: records each request's head; every reply sets a cookie."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError:
                break
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            body = await reader.readexactly(length)
            seen.append(head + body)
            writer.write(
                b"HTTP/1.1 200 OK\r\nset-cookie: " + SET_COOKIE + b"\r\n"
                b"content-type: application/json\r\ncontent-length: 2\r\n\r\n{}"
            )
            await writer.drain()
        writer.close()

    return await asyncio.start_unix_server(serve, path)


async def _relay_once(
    relay: Relay, method: str, path: str, headers: list[tuple[bytes, bytes]], body: bytes
) -> list[MutableMapping[str, Any]]:
    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": headers,
    }
    sent: list[MutableMapping[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    await relay.forward(scope, receive, send, None)
    return sent


def test_a_cookie_from_a_reply_never_goes_out_again(tmp_path: Path) -> None:
    socket_path = str(tmp_path / "relay.sock")
    seen: list[bytes] = []
    owner = [(b"host", b"127.0.0.1:8787"), (b"cookie", b"redline_session=owner-secret")]
    stranger = [
        (b"host", b"127.0.0.1:8787"),
        (b"x-csrf-token", b"t"),
        (b"content-type", b"application/json"),
        (b"content-length", b"18"),
        (b"connection", b"keep-alive"),
    ]

    async def main() -> list[list[MutableMapping[str, Any]]]:
        server = await _upstream(socket_path, seen)
        relay = Relay(socket_path)
        try:
            first = await _relay_once(relay, "POST", "/login", owner, b"code=ABCD")
            always = b'{"scope":"always"}'
            second = await _relay_once(relay, "POST", "/api/held/x/approve", stranger, always)
            third = await _relay_once(relay, "GET", "/api/session", stranger[:1], b"")
        finally:
            await relay.aclose()
            server.close()
            await server.wait_closed()
        return [first, second, third]

    replies = asyncio.run(main())
    # The owner's reply, with its cookie, reaches the owner as sent.
    start = replies[0][0]
    assert (start["status"], (b"set-cookie", SET_COOKIE) in start["headers"]) == (200, True)
    assert seen == [
        b"POST /login HTTP/1.1\r\nhost: 127.0.0.1:8787\r\n"
        b"cookie: redline_session=owner-secret\r\ncontent-length: 9\r\n\r\ncode=ABCD",
        b"POST /api/held/x/approve HTTP/1.1\r\nhost: 127.0.0.1:8787\r\nx-csrf-token: t\r\n"
        b"content-type: application/json\r\ncontent-length: 18\r\n\r\n"
        b'{"scope":"always"}',
        b"GET /api/session HTTP/1.1\r\nhost: 127.0.0.1:8787\r\n\r\n",
    ]


def test_the_relay_holds_no_cookie_jar_or_client(tmp_path: Path) -> None:
    """Nothing in the relay can remember a reply: its one attribute is a bare
    connection pool (no cookie jar, no client with defaults)."""
    relay = Relay(str(tmp_path / "relay.sock"))
    kept = list(vars(relay).values())
    assert [type(value).__name__ for value in kept] == ["AsyncConnectionPool"]
    remembering = (httpx.AsyncClient, httpx.Cookies, http.cookiejar.CookieJar)
    assert not any(isinstance(value, remembering) for value in kept)
    assert not any(isinstance(value, remembering) for value in vars(relay.pool).values())
