"""One bounded call to an OpenAI-compatible chat API (`/chat/completions`).

Works with local servers (Ollama, llama.cpp's server, vLLM) and hosted APIs.
Bounded in time (the whole exchange, not each read: a server that drips
bytes is cut off at the deadline) and in size. The client keeps no state
between calls: a new one per call, no cookies kept, no redirects followed,
no proxy or `.netrc` credentials read from the environment. The API key is
sent in the `Authorization` header and appears in no result or error.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

import httpx

from redline.fasttuple import NamedTuple

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
    transport: httpx.BaseTransport | None = None,
) -> ChatResult:
    start = time.monotonic()
    deadline = start + timeout_s

    def done(text: str | None, status: str, detail: str = "") -> ChatResult:
        return ChatResult(text, status, detail, round((time.monotonic() - start) * 1000))

    headers = {"content-type": "application/json"}
    if api_key:
        headers["authorization"] = f"Bearer {api_key}"
    body = {"model": model, "messages": messages, "temperature": 0, "max_tokens": 80}
    try:
        with httpx.Client(
            timeout=httpx.Timeout(timeout_s),
            follow_redirects=False,
            trust_env=False,
            transport=transport,
        ) as client:
            url = f"{base_url.rstrip('/')}/chat/completions"
            with client.stream("POST", url, json=body, headers=headers) as response:
                chunks: list[bytes] = []
                size = 0
                for chunk in response.iter_bytes():
                    size += len(chunk)
                    if size > MAX_REPLY_BYTES:
                        return done(None, "bad-response", "the reply is too large")
                    if time.monotonic() > deadline:
                        return done(None, "timeout", f"no full reply within {timeout_s:g} s")
                    chunks.append(chunk)
                if response.status_code != 200:
                    return done(None, "http-error", f"HTTP {response.status_code}")
    except httpx.TimeoutException:
        return done(None, "timeout", f"no reply within {timeout_s:g} s")
    except httpx.HTTPError as err:
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
