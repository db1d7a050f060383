"""`POST /v1/decide` as a bare ASGI handler, the one route on every tool call.

Starlette's middleware stack, router, `Request` and `JSONResponse` cost about
as much as judging a call; this handler reads the body, asks the service and
writes the JSON answer, nothing else. It answers what the routed endpoint
in `app` answers (same status codes, same JSON value; a signed answer is
written as the text it was signed over), and refuses a body over `MAX_BODY`.
On loopback HTTP it takes only a `Host` of `127.0.0.1` or `localhost` (with
or without a port); anything else goes the routed way, whose host check
refuses it, so this path never loosens what the app enforces. Every hook
route on loopback HTTP also needs the install's hook token and no browser
headers (`hook_refusal`), checked before this handler or the router runs.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from starlette.types import Receive, Scope, Send

if TYPE_CHECKING:
    from redline.approve.service import Service

PATH = "/v1/decide"
MAX_BODY = 4 * 1024 * 1024
"""A call's body larger than this is refused: nothing legitimate is near it."""

LOOPBACK_HOSTS = frozenset({b"127.0.0.1", b"localhost"})
TOKEN_HEADER = b"x-redline-hook-token"
"""The hook token's header (`install_secrets`), as ASGI spells header names."""
_JSON = [(b"content-type", b"application/json")]


def wanted(scope: Scope, tcp: bool) -> bool:
    """Whether this request is the decision route this handler may take."""
    if scope["type"] != "http" or scope["path"] != PATH or scope["method"] != "POST":
        return False
    return not tcp or loopback_host(scope)


def from_browser(scope: Scope) -> bool:
    """Whether a browser sent this request: it names an `Origin` or its fetch
    metadata (`Sec-Fetch-*`); a hook sends neither."""
    return any(name == b"origin" or name.startswith(b"sec-fetch-") for name, _ in scope["headers"])


def hook_route(scope: Scope) -> bool:
    """A request for a hook route (`/v1/...`), whatever its `Host` says (the
    app's host check reads only the first of several)."""
    path: str = scope["path"]
    return scope["type"] == "http" and path.startswith("/v1/")


def hook_refusal(scope: Scope, token: str | None) -> tuple[int, str] | None:
    """Why a hook route on loopback HTTP refuses this request (status, reason),
    `None` if it may go on: a browser's request is refused (a page on another
    origin can reach 127.0.0.1 too), and the install's hook token must come
    with it, compared in constant time (no token set up: nothing goes on)."""
    if from_browser(scope):
        return 403, "a browser's request is refused on the hook routes"
    given = [value for name, value in scope["headers"] if name == TOKEN_HEADER]
    if token is None or len(given) != 1 or not hmac.compare_digest(given[0], token.encode()):
        return 401, "the hook token is missing or wrong (see `redline install --service`)"
    return None


def loopback_host(scope: Scope) -> bool:
    hosts = [value for name, value in scope["headers"] if name == b"host"]
    if len(hosts) != 1:
        return False
    name, colon, port = hosts[0].partition(b":")
    return name.lower() in LOOPBACK_HOSTS and (not colon or port.isdigit())


# The same bytes as Starlette's JSONResponse.
_encode = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode


def _dumps(value: Any) -> bytes:
    return _encode(value).encode()


class BodyTooLarge(Exception):
    """A request body over `MAX_BODY`."""


async def read_body(receive: Receive) -> bytes | None:
    """The whole request body, `None` if the client went away first;
    `BodyTooLarge` past `MAX_BODY`."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            raise BodyTooLarge
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


async def reply(
    send: Send,
    status: int,
    value: Any,
    body: bytes | None = None,
    extra: list[tuple[bytes, bytes]] | None = None,
) -> None:
    """A JSON reply: `value` encoded, or `body` when it is already its text."""
    body = _dumps(value) if body is None else body
    headers = [*_JSON, (b"content-length", str(len(body)).encode()), *(extra or ())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class Unreadable(ValueError):
    """A body that is not UTF-8 JSON nested within `jsoninput.MAX_DEPTH`: a
    call the gate cannot judge, logged as a deny before the 400."""


def parse(data: bytes) -> dict[str, Any]:
    """A JSON object body; `ValueError` naming what is wrong (`Unreadable` for
    bytes that are not UTF-8 and for JSON nested so deeply that `json` alone
    would raise `RecursionError`, an HTTP 500)."""
    from redline.jsoninput import TooDeep, loads

    try:
        body = loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise Unreadable("the body is not UTF-8 text") from None
    except TooDeep as err:
        raise Unreadable(f"the body cannot be judged: {err}") from None
    except ValueError:
        raise ValueError("the body is not JSON") from None
    if not isinstance(body, dict):
        raise ValueError("the body must be a JSON object")
    return body


Refused = Callable[[str], Awaitable[None]]
"""Logs a request refused before its call could be read."""


async def read_call(
    receive: Receive, send: Send, refused: Refused | None = None
) -> tuple[bytes, dict[str, Any]] | None:
    """A decision request's body and its JSON object; `None` once refused
    (413, 400) or when the hook went away before sending it all. An
    `Unreadable` body is logged through `refused` first: a call that cannot be
    judged is a logged deny."""
    try:
        data = await read_body(receive)
    except BodyTooLarge:
        await reply(send, 413, {"error": "the body is too large"})
        return None
    if data is None:
        return None  # the hook went away; nothing was judged or logged
    try:
        return data, parse(data)
    except ValueError as err:
        if refused is not None and isinstance(err, Unreadable):
            await refused(str(err))
        await reply(send, 400, {"error": str(err)})
        return None


async def decide(service: Service, scope: Scope, receive: Receive, send: Send) -> None:
    request = await read_call(receive, send, service.record_unreadable)
    if request is None:
        return
    try:
        answer, text = await service.decide_reply(request[1])
    except ValueError as err:  # 409 for a run's stale settings (`judge.StaleSettings`)
        await reply(send, getattr(err, "status", 400), {"error": str(err)})
        return
    await reply(send, 200, answer, text)
