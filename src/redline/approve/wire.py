"""A few lines of HTTP/1.1 over a Unix socket or loopback TCP, JSON both ways.

The hook imports this on every tool call, so it uses `socket` and nothing
heavier. The connect time is bounded (`connect_timeout`, 1 s by default): a
service that is down is known at once.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

TYPE_CHECKING = False  # not `typing`'s: a run's or a hook's start never loads it (ADR 0004)
if TYPE_CHECKING:
    from typing import Any

CONNECT_TIMEOUT_S = 1.0
DECIDE_TIMEOUT_S = 30.0


def _unix_socket() -> Any:
    """A Unix stream socket. CPython's `_socket` is what `socket.socket`
    subclasses; `socket` itself builds its enums on import (~1-2 ms of a
    hook's or a run's start) for nothing used here."""
    try:
        from _socket import AF_UNIX, SOCK_STREAM
        from _socket import socket as plain
    except ImportError:  # pragma: no cover - another interpreter
        from socket import AF_UNIX, SOCK_STREAM
        from socket import socket as plain  # type: ignore[assignment]
    return plain(AF_UNIX, SOCK_STREAM)


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
    ca: str | None = None,
) -> tuple[int, Any]:
    """One HTTP/1.1 request to a Unix socket path, `HOST:PORT` or
    `https://HOST:PORT`; JSON both ways. Several addresses, comma-separated
    (replicas of one service), are tried in turn until one can be reached."""
    if "," in address:
        last: Unreachable | None = None
        for one in address.split(","):
            try:
                return exchange(
                    one.strip(),
                    method,
                    path,
                    body,
                    timeout=timeout,
                    connect_timeout=connect_timeout,
                    headers=headers,
                    ca=ca,
                )
            except Unreachable as err:
                last = err
        raise last or Unreachable("no service address")
    if address.startswith("https://"):
        return _exchange_tls(address, method, path, body, timeout, connect_timeout, headers, ca)
    if address.startswith("/"):
        sock = _unix_socket()
        target: Any = address
        name = "redline"
    else:
        import socket

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
        return _talk(sock, address, name, method, path, body, timeout, headers)
    finally:
        sock.close()


def _talk(
    sock: Any,
    address: str,
    name: str,
    method: str,
    path: str,
    body: Any,
    timeout: float,
    headers: Mapping[str, str] | None,
) -> tuple[int, Any]:
    try:
        sock.settimeout(timeout)
        data = b"" if body is None else json.dumps(body).encode()
        extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: {name}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n{extra}Connection: close\r\n\r\n"
        )
        chunks: list[bytes] = []
        try:
            sock.sendall(head.encode() + data)
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        except OSError as err:
            # A TLS peer that closes without its close_notify after a whole
            # `Connection: close` reply: the reply stands (its length is checked).
            if not (chunks and type(err).__name__ == "SSLEOFError"):
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


def _exchange_tls(
    address: str,
    method: str,
    path: str,
    body: Any,
    timeout: float,
    connect_timeout: float,
    headers: Mapping[str, str] | None,
    ca: str | None,
) -> tuple[int, Any]:
    """The same exchange with a service on another machine, over TLS (the
    certificate checked against the system's CAs, or `ca`)."""
    import ssl  # only an agent on another machine pays for it

    authority = address.removeprefix("https://").rstrip("/")
    host, _, port = authority.rpartition(":")
    if not port.isdigit():
        host, port = authority, "443"
    host = host.strip("[]")
    try:
        context = ssl.create_default_context(cafile=ca)
    except (OSError, ssl.SSLError) as err:
        raise Unreachable(f"the CA file `{ca}` cannot be used ({err})") from None
    import socket

    try:
        raw = socket.create_connection((host, int(port)), timeout=connect_timeout)
    except OSError as err:
        raise Unreachable(f"cannot connect to `{address}` ({err.strerror or err})") from None
    try:
        sock = context.wrap_socket(raw, server_hostname=host)
    except (OSError, ssl.SSLError) as err:
        raw.close()
        raise Unreachable(f"TLS with `{address}` failed ({err})") from None
    try:
        return _talk(sock, address, authority, method, path, body, timeout, headers)
    finally:
        sock.close()
