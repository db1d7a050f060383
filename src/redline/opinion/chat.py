"""One bounded call to an OpenAI-compatible chat API (`/chat/completions`).

Works with local servers (Ollama, llama.cpp's server, vLLM) and hosted APIs.
Bounded in time (the whole exchange, not each read: a server that drips
bytes is cut off at the deadline) and in size. Spoken with `httpcore`, the
transport under `httpx`, without `httpx` itself: importing `httpx` also
loads its command line's libraries, several times the cost (bench/
bench_opinion.py). A new connection pool per call keeps no state between
calls: no cookies, no redirects followed, no proxy or `.netrc` credentials
read from the environment; https is verified against the system's CAs. The
API key is sent in the `Authorization` header and appears in no result.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping

import httpcore

from redline.fasttuple import NamedTuple

TYPE_CHECKING = False  # not `typing`'s: kept off a hook's start (ADR 0004)
if TYPE_CHECKING:
    from typing import Any

MAX_REPLY_BYTES = 64 * 1024


class ChatResult(NamedTuple):
    """`text` is the model's message, or `None` with `status` saying why."""

    text: str | None
    status: str
    detail: str
    latency_ms: int


def complete(
    base_url: str,
    model: str,
    messages: list[dict[str, str]],
    *,
    api_key: str | None,
    timeout_s: float,
) -> ChatResult:
    start = time.monotonic()
    deadline = start + timeout_s

    def done(text: str | None, status: str, detail: str = "") -> ChatResult:
        return ChatResult(text, status, detail, round((time.monotonic() - start) * 1000))

    headers = [(b"content-type", b"application/json")]
    if api_key:
        headers.append((b"authorization", f"Bearer {api_key}".encode()))
    body = {"model": model, "messages": messages, "temperature": 0, "max_tokens": 80}
    url = f"{base_url.rstrip('/')}/chat/completions"
    timeouts = {"connect": timeout_s, "read": timeout_s, "write": timeout_s, "pool": timeout_s}
    chunks: list[bytes] = []
    try:
        with (
            httpcore.ConnectionPool(retries=0) as pool,
            pool.stream(
                "POST",
                url,
                headers=headers,
                content=json.dumps(body).encode(),
                extensions={"timeout": timeouts},
            ) as response,
        ):
            size = 0
            for chunk in response.iter_stream():
                size += len(chunk)
                if size > MAX_REPLY_BYTES:
                    return done(None, "bad-response", "the reply is too large")
                if time.monotonic() > deadline:
                    return done(None, "timeout", f"no full reply within {timeout_s:g} s")
                chunks.append(chunk)
            if response.status != 200:
                return done(None, "http-error", f"HTTP {response.status}")
    except httpcore.TimeoutException:
        return done(None, "timeout", f"no reply within {timeout_s:g} s")
    except (httpcore.NetworkError, httpcore.ProtocolError, httpcore.UnsupportedProtocol) as err:
        return done(None, "unreachable", type(err).__name__)
    except OSError as err:
        return done(None, "unreachable", type(err).__name__)
    if time.monotonic() > deadline:
        return done(None, "timeout", f"no full reply within {timeout_s:g} s")
    text = _message(b"".join(chunks))
    if text is None:
        return done(None, "bad-response", "not a chat completion")
    return done(text, "ok")


def _message(raw: bytes) -> str | None:
    try:
        data: Any = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(data, Mapping):
        return None
    choices = data.get("choices")
    if not isinstance(choices, list) or len(choices) != 1 or not isinstance(choices[0], Mapping):
        return None
    message = choices[0].get("message")
    if not isinstance(message, Mapping):
        return None
    content = message.get("content")
    return content if isinstance(content, str) else None
