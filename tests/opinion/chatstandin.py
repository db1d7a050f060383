"""A stand-in for an OpenAI-compatible chat API, on 127.0.0.1, with faults.

`reply` decides each answer from the request's JSON: a string is the model's
message; `Fault.SLOW`, `Fault.ERROR`, `Fault.GARBAGE`, `Fault.DRIP` make the
server misbehave. Every request is kept (`seen`), with its headers.
"""

from __future__ import annotations

import enum
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from redline.policy.load import default_policy_path


class Fault(enum.Enum):
    SLOW = "slow"  # answers after `slow_s`
    ERROR = "error"  # HTTP 500
    GARBAGE = "garbage"  # 200 with bytes that are not JSON
    DRIP = "drip"  # 200, one byte every 0.2 s, for long
    NOT_CHAT = "not-chat"  # 200 with JSON that is no chat completion


Reply = Callable[[dict[str, Any]], "str | Fault"]


class ChatStandIn:
    def __init__(self, reply: Reply, slow_s: float = 3.0) -> None:
        self.reply = reply
        self.slow_s = slow_s
        self.seen: list[tuple[dict[str, str], dict[str, Any]]] = []
        self._stop = threading.Event()
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                stand_in.seen.append(({k.lower(): v for k, v in self.headers.items()}, body))
                if self.path != "/v1/chat/completions":
                    self._send(404, b"{}")
                    return
                answer = stand_in.reply(body)
                if answer is Fault.SLOW:
                    stand_in._stop.wait(stand_in.slow_s)
                    answer = "KEEP: late"
                if answer is Fault.ERROR:
                    self._send(500, b'{"error": "boom"}')
                elif answer is Fault.GARBAGE:
                    self._send(200, b"\x00\xffnot json at all")
                elif answer is Fault.NOT_CHAT:
                    self._send(200, b'{"choices": [{"text": "ASK: x"}]}')
                elif answer is Fault.DRIP:
                    self.send_response(200)
                    self.send_header("content-length", "100000")
                    self.end_headers()
                    for _ in range(100):
                        if stand_in._stop.wait(0.2):
                            return
                        try:
                            self.wfile.write(b" ")
                            self.wfile.flush()
                        except OSError:
                            return
                else:
                    message = {"role": "assistant", "content": answer}
                    data = {"choices": [{"index": 0, "message": message}], "model": body["model"]}
                    self._send(200, json.dumps(data).encode())

            def _send(self, status: int, data: bytes) -> None:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self) -> ChatStandIn:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=10)

    def user_text(self, index: int = -1) -> str:
        return str(self.seen[index][1]["messages"][1]["content"])


def opinion_policy(path: Path, **opinion: Any) -> Path:
    """The shipped policy with a `second_opinion` block."""
    text = Path(default_policy_path()).read_text(encoding="utf-8")
    block = json.dumps({"model": "stand-in", "timeout_ms": 1500, **opinion})
    path.write_text(f"{text}\nsecond_opinion: {block}\n", encoding="utf-8")
    return path
