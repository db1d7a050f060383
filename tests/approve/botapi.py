"""A local stand-in for the Telegram Bot API on 127.0.0.1, for tests and the
benchmark: the real python-telegram-bot library talks to it through its
base-URL setting. It keeps what the bot sent and lets a test play users, and
injects faults: flood control (429 with `retry_after`), server errors and
slow replies, per Bot API method, in the order they were asked for."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

import uvicorn
from servicekit import ServiceProcess, eventually
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

OWNER, STRANGER = 4242, 6666
BOT = {"id": 777, "is_bot": True, "first_name": "redline", "username": "redline_test_bot"}


@dataclass
class Fault:
    """What the next request to a method meets: a delay, then an error status
    (429 carries `retry_after`) or, with `status` 0, the normal answer."""

    delay: float = 0.0
    status: int = 0
    retry_after: int = 0


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


class BotApi:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.updates: list[dict[str, Any]] = []
        self.sent: list[dict[str, Any]] = []
        self.edits: list[dict[str, Any]] = []
        self.answers: list[dict[str, Any]] = []
        self.messages: dict[int, dict[str, Any]] = {}
        self.calls: list[tuple[str, float]] = []
        """Every request but `getUpdates`, as it arrived: (method, time)."""
        self.faults: dict[str, list[Fault]] = {}
        self._next_update = 1
        self._next_message = 1000
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        app = Starlette(routes=[Route("/bot{token}/{method}", self._call, methods=["GET", "POST"])])
        self.server = uvicorn.Server(
            uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
        )
        self.thread = threading.Thread(target=self.server.run, args=([self.sock],), daemon=True)

    def start(self) -> BotApi:
        self.thread.start()
        end = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > end:
                raise RuntimeError("the Bot API stand-in did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
        self.sock.close()

    # -- the Bot API
    async def _call(self, request: Request) -> JSONResponse:
        raw = (await request.body()).decode()
        if request.headers.get("content-type", "").startswith("application/json"):
            params: dict[str, Any] = json.loads(raw or "{}")
        else:
            params = {key: _value(value) for key, value in parse_qsl(raw)}
        params.update({k: _value(v) for k, v in request.query_params.items()})
        method = request.path_params["method"]
        if method == "getUpdates":
            return JSONResponse({"ok": True, "result": await self._updates(params)})
        with self.lock:
            self.calls.append((method, time.time()))
            queue = self.faults.get(method) or []
            fault = queue.pop(0) if queue else Fault()
        if fault.delay:
            # Like Telegram, a slow request is still carried out after the client gave up.
            await asyncio.sleep(fault.delay)
        if fault.status:
            return self._error(fault)
        return JSONResponse({"ok": True, "result": self._handle(method, params)})

    @staticmethod
    def _error(fault: Fault) -> Response:
        body: dict[str, Any] = {"ok": False, "error_code": fault.status}
        if fault.status == 429:
            body["description"] = f"Too Many Requests: retry after {fault.retry_after}"
            body["parameters"] = {"retry_after": fault.retry_after}
        else:
            body["description"] = "Internal Server Error"
        return JSONResponse(body, status_code=fault.status)

    # -- faults
    def fail(self, method: str, *faults: Fault) -> None:
        """The next requests to `method` meet `faults`, one each, in order."""
        with self.lock:
            self.faults.setdefault(method, []).extend(faults)

    def calls_of(self, method: str) -> list[float]:
        with self.lock:
            return [at for name, at in self.calls if name == method]

    async def _updates(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        offset = int(params.get("offset") or 0)
        end = time.monotonic() + min(float(params.get("timeout") or 0), 2.0)
        while True:
            with self.lock:
                found = [u for u in self.updates if u["update_id"] >= offset]
            if found or time.monotonic() >= end:
                return found
            await asyncio.sleep(0.01)

    def _handle(self, method: str, params: dict[str, Any]) -> Any:
        with self.lock:
            if method == "getMe":
                return BOT
            if method == "sendMessage":
                self._next_message += 1
                message = self._message(self._next_message, params)
                self.messages[message["message_id"]] = message
                self.sent.append({**params, "message_id": message["message_id"], "at": time.time()})
                return message
            if method == "editMessageText":
                message_id = int(params["message_id"])
                message = self._message(message_id, params)
                self.messages[message_id] = message
                self.edits.append({**params, "at": time.time()})
                return message
            if method == "answerCallbackQuery":
                self.answers.append(params)
            return True

    def _message(self, message_id: int, params: dict[str, Any]) -> dict[str, Any]:
        message = {
            "message_id": message_id,
            "date": int(time.time()),
            "chat": {"id": int(params["chat_id"]), "type": "private"},
            "from": BOT,
            "text": str(params.get("text", "")),
        }
        if isinstance(params.get("reply_markup"), dict):
            message["reply_markup"] = params["reply_markup"]
        return message

    # -- playing users
    def _push(self, update: dict[str, Any]) -> None:
        with self.lock:
            update["update_id"] = self._next_update
            self._next_update += 1
            self.updates.append(update)

    def say(self, user: int, text: str, username: str = "ana") -> None:
        sender = {"id": user, "is_bot": False, "first_name": username, "username": username}
        message: dict[str, Any] = {
            "message_id": 1,
            "date": int(time.time()),
            "chat": {"id": user, "type": "private"},
            "from": sender,
            "text": text,
        }
        if text.startswith("/"):
            length = len(text.split()[0])
            message["entities"] = [{"type": "bot_command", "offset": 0, "length": length}]
        self._push({"message": message})

    def tap(self, user: int, message_id: int, data: str, username: str = "ana") -> None:
        with self.lock:
            message = self.messages[message_id]
        sender = {"id": user, "is_bot": False, "first_name": username, "username": username}
        query = {
            "id": f"q{time.monotonic_ns()}",
            "from": sender,
            "chat_instance": "c",
            "data": data,
            "message": message,
        }
        self._push({"callback_query": query})

    def sent_to(self, chat: int) -> list[dict[str, Any]]:
        with self.lock:
            return [m for m in self.sent if int(m["chat_id"]) == chat]

    def edits_of(self, message_id: int) -> list[dict[str, Any]]:
        with self.lock:
            return [e for e in self.edits if int(e["message_id"]) == message_id]

    def live_buttons(self, chat: int = OWNER) -> list[int]:
        """The messages in `chat` that still show buttons."""
        with self.lock:
            return [
                i
                for i, m in self.messages.items()
                if m["chat"]["id"] == chat and "reply_markup" in m
            ]


def pair_owner(service: ServiceProcess, bot: BotApi) -> None:
    status, reply = service.owner("POST", "/v1/pair/telegram")
    assert status == 200
    bot.say(OWNER, f"/pair {reply['code']}")
    eventually(lambda: any("Paired" in m["text"] for m in bot.sent_to(OWNER)), what="pairing")


def request_message(bot: BotApi, chat: int = OWNER) -> dict[str, Any]:
    found: dict[str, Any] = eventually(
        lambda: next((m for m in bot.sent_to(chat) if "reply_markup" in m), None),
        what="the approval request",
    )
    return found


def edited(bot: BotApi, message_id: int, word: str) -> str:
    text: str = eventually(
        lambda: next((e["text"] for e in bot.edits_of(message_id) if word in e["text"]), None),
        what=f"the message edited to `{word}`",
    )
    return text
