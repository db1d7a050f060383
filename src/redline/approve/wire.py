"""A few lines of HTTP/1.1 over a Unix socket or loopback TCP, JSON both ways.

The hook imports this on every tool call, so it uses `socket` and nothing
heavier. The connect time is bounded (`connect_timeout`, 1 s by default): a
service that is down is known at once.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Mapping
from typing import Any

CONNECT_TIMEOUT_S = 1.0
DECIDE_TIMEOUT_S = 30.0


class Unreachable(Exception):
    """The service could not be reached (connect failed or timed out)."""


class Disconnected(Exception):
    """The service was reached but the exchange broke off."""


def exchange(
    address: str,
    method: str,
    path: str,
    body: Any = None,
    *,
    timeout: float = DECIDE_TIMEOUT_S,
    connect_timeout: float = CONNECT_TIMEOUT_S,
    headers: Mapping[str, str] | None = None,
) -> tuple[int, Any]:
    """One HTTP/1.1 request to a Unix socket path or `HOST:PORT`; JSON both ways."""
    if address.startswith("/"):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        target: Any = address
        name = "redline"
    else:
        host, _, port = address.rpartition(":")
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        target = (host, int(port))
        name = address  # the service answers loopback host names only
    try:
        sock.settimeout(connect_timeout)
        try:
            sock.connect(target)
        except OSError as err:
            raise Unreachable(f"cannot connect to `{address}` ({err.strerror or err})") from None
        sock.settimeout(timeout)
        data = b"" if body is None else json.dumps(body).encode()
        extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: {name}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n{extra}Connection: close\r\n\r\n"
        )
        try:
            sock.sendall(head.encode() + data)
            chunks = []
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        except OSError as err:
            raise Disconnected(f"the exchange with `{address}` broke off ({err})") from None
    finally:
        sock.close()
    raw = b"".join(chunks)
    top, sep, payload = raw.partition(b"\r\n\r\n")
    if not sep:
        raise Disconnected(f"`{address}` closed the connection without an answer")
    try:
        status = int(top.split(b" ", 2)[1])
        return status, json.loads(payload) if payload else None
    except (IndexError, ValueError):
        raise Disconnected(f"`{address}` sent something that is not an answer") from None
