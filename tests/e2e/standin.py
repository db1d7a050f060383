"""Stand-ins for the model APIs the real clients call: a small HTTP server on
127.0.0.1, in a thread, that answers the first turn of a conversation with one
tool call and every later turn (one that carries the tool's result) with a
final text. Each request and each tool result it was sent is kept, so a test
can read what the model was told (a refusal's text, for instance).

The wire formats are the ones the pinned clients were seen to use:
Claude Code posts `/v1/messages?beta=true` with `stream: true` (Anthropic SSE);
Codex posts `/v1/responses` (Responses API SSE); Gemini CLI posts
`/v1beta/models/MODEL:streamGenerateContent?alt=sse` (and, for its side
questions, `:generateContent`).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FINAL_TEXT = "stand-in: done"
MAX_REQUESTS = 200  # a client that loops is stopped by the test's timeout; this bounds the log


class Standin:
    """One conversation script: the tool call to ask for, then the end."""

    def __init__(self, protocol: str, tool: str, args: dict[str, Any]) -> None:
        self.protocol = protocol
        self.tool = tool
        self.args = args
        self.requests: list[dict[str, Any]] = []
        self.tool_results: list[str] = []
        self.call_sent: float | None = None
        self.result_came: float | None = None
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> Standin:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

    @property
    def round_trip(self) -> float | None:
        """Seconds from the tool call's answer to the request carrying its
        result: the tool call as the client ran it, hooks included."""
        if self.call_sent is None or self.result_came is None:
            return None
        return self.result_came - self.call_sent

    def answer(self, path: str, body: dict[str, Any]) -> tuple[str, bytes]:
        """(content type, body) for one request."""
        with self.lock:
            if len(self.requests) < MAX_REQUESTS:
                self.requests.append({"path": path, "body": body})
        if self.protocol == "anthropic":
            results = _anthropic_results(body)
            self._keep(results)
            return "text/event-stream", _sse(_anthropic(self, done=bool(results)))
        if self.protocol == "responses":
            results = _responses_results(body)
            self._keep(results)
            return "text/event-stream", _sse(_responses(self, done=bool(results)))
        results = _gemini_results(body)
        self._keep(results, call=":streamGenerateContent" in path)
        if ":streamGenerateContent" in path:
            chunks = [{"event": None, "data": _gemini(self, done=bool(results))}]
            return "text/event-stream", _sse(chunks)
        if ":countTokens" in path:
            return "application/json", json.dumps({"totalTokens": 1}).encode()
        # A side question (routing, next speaker): a plain JSON text answer.
        side = {
            "reasoning": "stand-in",
            "next_speaker": "user",
            "complexity_reasoning": "stand-in",
            "complexity_score": 1,
            "model_choice": "flash",
        }
        reply = _gemini_text(json.dumps(side))
        return "application/json", json.dumps(reply).encode()

    def _keep(self, results: list[str], *, call: bool = True) -> None:
        now = time.monotonic()
        with self.lock:
            if results and self.result_came is None:
                self.result_came = now
            if not results and call:
                self.call_sent = now  # the answer that follows is the tool call
            for text in results:
                if text not in self.tool_results:
                    self.tool_results.append(text)


def _handler(standin: Standin) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            kind, data = standin.answer(self.path, body if isinstance(body, dict) else {})
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            data = b"{}"
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def _sse(chunks: list[dict[str, Any]]) -> bytes:
    out = []
    for chunk in chunks:
        if chunk.get("event"):
            out.append(f"event: {chunk['event']}\n")
        out.append(f"data: {json.dumps(chunk['data'])}\n\n")
    return "".join(out).encode()


def _text_of(content: Any) -> Iterator[str]:
    if isinstance(content, str):
        yield content
    elif isinstance(content, list):
        for part in content:
            if isinstance(part, dict):
                yield from _text_of(part.get("text", part.get("content", "")))
            else:
                yield from _text_of(part)


# Anthropic Messages API (Claude Code)


def _anthropic_results(body: dict[str, Any]) -> list[str]:
    found = []
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                found.append("".join(_text_of(block.get("content", ""))))
    return found


def _anthropic(standin: Standin, *, done: bool) -> list[dict[str, Any]]:
    message = {
        "id": "msg_standin",
        "type": "message",
        "role": "assistant",
        "model": "claude-standin",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    events: list[dict[str, Any]] = [
        {"event": "message_start", "data": {"type": "message_start", "message": message}}
    ]
    if done:
        block: dict[str, Any] = {"type": "text", "text": ""}
        delta: dict[str, Any] = {"type": "text_delta", "text": FINAL_TEXT}
        stop = "end_turn"
    else:
        block = {"type": "tool_use", "id": "toolu_standin", "name": standin.tool, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(standin.args)}
        stop = "tool_use"
    events += [
        {
            "event": "content_block_start",
            "data": {"type": "content_block_start", "index": 0, "content_block": block},
        },
        {
            "event": "content_block_delta",
            "data": {"type": "content_block_delta", "index": 0, "delta": delta},
        },
        {"event": "content_block_stop", "data": {"type": "content_block_stop", "index": 0}},
        {
            "event": "message_delta",
            "data": {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 1},
            },
        },
        {"event": "message_stop", "data": {"type": "message_stop"}},
    ]
    return events


# OpenAI Responses API (Codex)


def _responses_results(body: dict[str, Any]) -> list[str]:
    found = []
    for item in body.get("input") or []:
        if isinstance(item, dict) and item.get("type") == "function_call_output":
            found.append("".join(_text_of(item.get("output", ""))))
    return found


def _responses(standin: Standin, *, done: bool) -> list[dict[str, Any]]:
    if done:
        item: dict[str, Any] = {
            "type": "message",
            "id": "msg_standin",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": FINAL_TEXT, "annotations": []}],
        }
    else:
        item = {
            "type": "function_call",
            "id": "fc_standin",
            "call_id": "call_standin",
            "name": standin.tool,
            "arguments": json.dumps(standin.args),
            "status": "completed",
        }
    usage = {
        "input_tokens": 1,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 1,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 2,
    }
    response = {"id": "resp_standin", "object": "response", "status": "in_progress", "output": []}
    chunks: list[dict[str, Any]] = [
        {"event": "response.created", "data": {"type": "response.created", "response": response}},
        {
            "event": "response.output_item.added",
            "data": {"type": "response.output_item.added", "output_index": 0, "item": item},
        },
    ]
    if not done:
        chunks += [
            {
                "event": "response.function_call_arguments.delta",
                "data": {
                    "type": "response.function_call_arguments.delta",
                    "item_id": "fc_standin",
                    "output_index": 0,
                    "delta": item["arguments"],
                },
            },
            {
                "event": "response.function_call_arguments.done",
                "data": {
                    "type": "response.function_call_arguments.done",
                    "item_id": "fc_standin",
                    "output_index": 0,
                    "arguments": item["arguments"],
                },
            },
        ]
    completed = {**response, "status": "completed", "output": [item], "usage": usage}
    chunks += [
        {
            "event": "response.output_item.done",
            "data": {"type": "response.output_item.done", "output_index": 0, "item": item},
        },
        {
            "event": "response.completed",
            "data": {"type": "response.completed", "response": completed},
        },
    ]
    return chunks


# Gemini API (Gemini CLI)


def _gemini_results(body: dict[str, Any]) -> list[str]:
    found = []
    for content in body.get("contents") or []:
        parts = content.get("parts") if isinstance(content, dict) else None
        for part in parts if isinstance(parts, list) else []:
            response = part.get("functionResponse") if isinstance(part, dict) else None
            if isinstance(response, dict):
                found.append(json.dumps(response.get("response", {})))
    return found


def _gemini_text(text: str) -> dict[str, Any]:
    return {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}
        ],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
    }


def _gemini(standin: Standin, *, done: bool) -> dict[str, Any]:
    if done:
        return _gemini_text(FINAL_TEXT)
    call = {"functionCall": {"name": standin.tool, "args": standin.args}}
    return {
        "candidates": [{"content": {"role": "model", "parts": [call]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
    }
