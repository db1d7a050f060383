"""Driving the real Hermes Agent in tests: where it is, a stand-in of the
OpenAI-compatible chat completions API it talks to, and one-shot runs
(`hermes -z`) in a throw-away home.

Hermes is found through `REDLINE_E2E_HERMES` (the `hermes` script of a pinned
install, as `.ci/run` makes in `.ci-cache/hermes-venv`). Without it the tests
skip, except under `CI=true`, where a missing Hermes is a failure.

The stand-in answers each chat turn with the next tool call of its script,
one per turn, and a final text after the last; it keeps each tool result it
was sent (what the model was told) and when each turn arrived, so the time
Hermes spent on one tool call (its hooks included) can be measured.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

HERMES_VERSION = "0.19.0"
MODEL = "stand-in-model"
FINAL_TEXT = "stand-in: done"
MAX_REQUESTS = 100
RUN_TIMEOUT_S = 120


def hermes_or_skip() -> str:
    """The pinned `hermes` to drive; a skip locally, a failure under CI."""
    path = os.environ.get("REDLINE_E2E_HERMES", "").strip()
    if path and os.access(path, os.X_OK):
        return path
    why = (
        f"REDLINE_E2E_HERMES does not name a runnable Hermes Agent {HERMES_VERSION} "
        f"({path or 'unset'}); `.ci/run` installs it"
    )
    if os.environ.get("CI", "").strip().lower() == "true":
        pytest.fail(why)
    pytest.skip(why)


class ToolCall:
    def __init__(self, name: str, args: Mapping[str, Any]) -> None:
        self.name = name
        self.args = dict(args)


class StandIn:
    """A chat completions server on 127.0.0.1 that plays one script."""

    def __init__(self, script: Sequence[ToolCall]) -> None:
        self.script = list(script)
        self.tool_results: list[str] = []
        self.turns: list[float] = []  # when each chat turn arrived
        self.sent: list[float] = []  # when each tool call went out
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> StandIn:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)

    def reply(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """The next assistant message: the script's next tool call, or the end."""
        messages = request.get("messages") or []
        results = [m for m in messages if isinstance(m, dict) and m.get("role") == "tool"]
        with self.lock:
            self.turns.append(time.monotonic())
            self.tool_results = [str(m.get("content")) for m in results]
            step = len(results)
            if step < len(self.script):
                self.sent.append(time.monotonic())
                call = self.script[step]
                tool = {
                    "id": f"call_{step}",
                    "type": "function",
                    "function": {"name": call.name, "arguments": json.dumps(call.args)},
                }
                return {"role": "assistant", "content": None, "tool_calls": [tool]}
        return {"role": "assistant", "content": FINAL_TEXT}

    def seconds_per_call(self) -> list[float]:
        """For each tool call: from sending it to the next turn (Hermes ran it,
        hooks included, and sent the result back)."""
        with self.lock:
            return [after - sent for sent, after in zip(self.sent, self.turns[1:], strict=False)]


def _handler(standin: StandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, code: int, body: bytes, kind: str = "application/json") -> None:
            self.send_response(code)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:  # model lists and metadata probes
            models = {"object": "list", "data": [{"id": MODEL, "object": "model"}]}
            self._send(200, json.dumps(models).encode())

        def do_POST(self) -> None:
            size = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(size)
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, b'{"error": "not here"}')
                return
            if len(standin.turns) >= MAX_REQUESTS:
                self._send(429, b'{"error": "too many turns"}')
                return
            request = json.loads(raw or b"{}")
            message = standin.reply(request)
            finish = "tool_calls" if message.get("tool_calls") else "stop"
            usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
            if not request.get("stream"):
                whole: dict[str, Any] = {
                    "id": "c",
                    "object": "chat.completion",
                    "created": 1,
                    "model": MODEL,
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    "usage": usage,
                }
                self._send(200, json.dumps(whole).encode())
                return
            delta = dict(message)
            if "tool_calls" in delta:
                delta["tool_calls"] = [{**delta["tool_calls"][0], "index": 0}]
            head: dict[str, Any] = {
                "id": "c",
                "object": "chat.completion.chunk",
                "created": 1,
                "model": MODEL,
            }
            chunks: list[dict[str, Any]] = [
                {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                {
                    **head,
                    "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
                    "usage": usage,
                },
            ]
            events = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks)
            self._send(200, events + b"data: [DONE]\n\n", "text/event-stream")

    return Handler


class Profile:
    """A throw-away home with a Hermes profile pointed at a stand-in."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.home = root / "home"
        self.hermes_home = self.home / ".hermes"
        self.work = root / "work"
        self.redline_home = root / "redline"
        for folder in (self.hermes_home, self.work):
            folder.mkdir(parents=True, exist_ok=True)

    @property
    def config(self) -> Path:
        return self.hermes_home / "config.yaml"

    def env(self, hermes: str, **extra: str) -> dict[str, str]:
        path = os.pathsep.join([os.path.dirname(hermes), "/usr/local/bin", "/usr/bin", "/bin"])
        return {
            "HOME": str(self.home),
            "PATH": path,
            "REDLINE_HOME": str(self.redline_home),
            "OPENAI_API_KEY": "stand-in-key",
            "LANG": "C.UTF-8",
            **extra,
        }

    def point_at(self, standin: StandIn) -> None:
        """Set `model:` to the stand-in (the rest of config.yaml is kept)."""
        self.set(model={"provider": "custom", "base_url": standin.base_url, "default": MODEL})

    def set(self, **settings: Any) -> None:
        """Set top-level keys of config.yaml, keeping the others."""
        import yaml

        data = yaml.safe_load(self.config.read_text()) if self.config.exists() else None
        data = {**(data or {}), **settings}
        self.config.write_text(yaml.safe_dump(data, sort_keys=False, width=100000))

    def log(self) -> list[tuple[str, str | None, str | None]]:
        """The approval log's entries: (kind, verdict, outcome)."""
        from redline.audit.recorder import open_log
        from redline.audit.store import Query

        store = open_log(environ={"REDLINE_HOME": str(self.redline_home)})
        try:
            return [
                (e.record.kind, e.record.verdict, e.record.outcome) for e in store.query(Query())
            ]
        finally:
            store.close()

    def redline(self, hermes: str, *args: str, **extra: str) -> str:
        """Run the `redline` CLI (this checkout's) with the profile's environment."""
        done = subprocess.run(
            [sys.executable, "-m", "redline", *args],
            capture_output=True,
            text=True,
            env=self.env(hermes, **extra),
            timeout=RUN_TIMEOUT_S * 5,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout


class Run:
    def __init__(self, done: subprocess.CompletedProcess[str], standin: StandIn, seconds: float):
        self.done = done
        self.standin = standin
        self.seconds = seconds

    @property
    def results(self) -> list[str]:
        return self.standin.tool_results


@contextmanager
def standin(script: Sequence[ToolCall]) -> Iterator[StandIn]:
    with StandIn(script) as server:
        yield server


def one_shot(
    hermes: str, profile: Profile, script: Sequence[ToolCall], *flags: str, **extra: str
) -> Run:
    """`hermes -z` in the profile's work folder, playing `script`."""
    return run(hermes, profile, script, [*flags, "-z", PROMPT], **extra)


def chat_query(hermes: str, profile: Profile, script: Sequence[ToolCall], **extra: str) -> Run:
    """`hermes chat -q`: Hermes's terminal mode for one query (it asks at the
    terminal, here with nobody to answer: stdin is empty)."""
    return run(hermes, profile, script, ["chat", "-q", PROMPT], **extra)


PROMPT = "run the tool calls you are given"


def run(
    hermes: str, profile: Profile, script: Sequence[ToolCall], argv: Sequence[str], **extra: str
) -> Run:
    with standin(script) as server:
        profile.point_at(server)
        start = time.monotonic()
        done = subprocess.run(
            [hermes, *argv],
            stdin=subprocess.DEVNULL,
            cwd=profile.work,
            capture_output=True,
            text=True,
            env=profile.env(hermes, **extra),
            timeout=RUN_TIMEOUT_S,
            check=False,
        )
        seconds = time.monotonic() - start
    assert FINAL_TEXT in done.stdout, (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
    assert len(server.tool_results) == len(script), server.tool_results
    return Run(done, server, seconds)


def median_ms(values: Sequence[float]) -> float:
    return round(statistics.median(values) * 1000, 1)
