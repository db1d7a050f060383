"""`POST /v1/decide` as a bare ASGI handler, the one route on every tool call.

Starlette's middleware stack, router, `Request` and `JSONResponse` cost about
as much as judging a call; this handler reads the body, asks the service and
writes the JSON answer, nothing else. It answers what the routed endpoint
in `app` answers (same status codes, same JSON value; a signed answer is
written as the text it was signed over), and refuses a body over `MAX_BODY`.
On loopback HTTP it takes only a `Host` of `127.0.0.1` or `localhost` (with
or without a port); anything else goes the routed way, whose host check
refuses it, so this path never loosens what the app enforces.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.types import Receive, Scope, Send

from redline.approve.service import Service

PATH = "/v1/decide"
MAX_BODY = 4 * 1024 * 1024
"""A call's body larger than this is refused: nothing legitimate is near it."""

LOOPBACK_HOSTS = frozenset({b"127.0.0.1", b"localhost"})
_JSON = [(b"content-type", b"application/json")]


def wanted(scope: Scope, tcp: bool) -> bool:
    """Whether this request is the decision route this handler may take."""
    if scope["type"] != "http" or scope["path"] != PATH or scope["method"] != "POST":
        return False
    return not tcp or _loopback_host(scope)


def _loopback_host(scope: Scope) -> bool:
    hosts = [value for name, value in scope["headers"] if name == b"host"]
    if len(hosts) != 1:
        return False
    name, colon, port = hosts[0].partition(b":")
    return name.lower() in LOOPBACK_HOSTS and (not colon or port.isdigit())


# The same bytes as Starlette's JSONResponse.
_encode = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode


def _dumps(value: Any) -> bytes:
    return _encode(value).encode()


async def _send(send: Send, status: int, value: Any, body: bytes | None = None) -> None:
    body = _dumps(value) if body is None else body
    headers = [*_JSON, (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def decide(service: Service, scope: Scope, receive: Receive, send: Send) -> None:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return  # the hook went away; nothing was judged or logged
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            await _send(send, 413, {"error": "the body is too large"})
            return
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    try:
        try:
            body = json.loads(b"".join(chunks))
        except ValueError:
            raise ValueError("the body is not JSON") from None
        if not isinstance(body, dict):
            raise ValueError("the body must be a JSON object")
        answer, text = await service.decide_reply(body)
    except ValueError as err:
        await _send(send, 400, {"error": str(err)})
        return
    await _send(send, 200, answer, text)
