"""Factories for service tests: an isolated home (REDLINE_HOME and HOME in tmp
dirs, passed explicitly to every process) and `redline serve` processes that
are always stopped afterwards."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from botapi import BotApi
from servicekit import Env, HookProcess, ServiceProcess, make_env


@pytest.fixture(autouse=True)
def _no_hook_left_waiting() -> Iterator[None]:
    yield
    HookProcess.finish_all()


@pytest.fixture
def env(tmp_path: Path) -> Env:
    return make_env(tmp_path)


@pytest.fixture
def make_service(env: Env) -> Iterator[Callable[..., ServiceProcess]]:
    started: list[ServiceProcess] = []

    def make(*args: str, environ: Env | None = None) -> ServiceProcess:
        service = ServiceProcess(environ or env, *args)
        started.append(service)
        return service.start()

    yield make
    for service in started:
        service.stop()


@pytest.fixture
def bot() -> Iterator[BotApi]:
    """The local Bot API stand-in, on 127.0.0.1."""
    api = BotApi().start()
    yield api
    api.stop()


@pytest.fixture
def telegram(
    env: Env, bot: BotApi, make_service: Callable[..., ServiceProcess]
) -> Callable[..., ServiceProcess]:
    """Start `redline serve` with its bot talking to the stand-in."""

    def start(*args: str) -> ServiceProcess:
        environ = {**env, "REDLINE_TELEGRAM_TOKEN": "123456:TEST-token"}
        return make_service("--telegram-api", bot.url, *args, environ=environ)

    return start
