"""Helpers for service tests: a real `redline serve` process, real hook
processes, and the owner's requests on the owner socket."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, ClassVar

from redline.approve.paths import ServicePaths
from redline.approve.wire import Unreachable, exchange

Env = dict[str, str]
HERE = Path(__file__).parent
POLICY = HERE / "policy.yaml"
PROJECT = "/work/project"
START_TIMEOUT_S = 60.0
WAIT_S = 120.0


def eventually(check: Callable[[], Any], timeout: float = WAIT_S, what: str = "condition") -> Any:
    """Poll `check` until it returns something truthy (generous, for a loaded machine)."""
    end = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


class ServiceProcess:
    def __init__(self, env: Mapping[str, str], *args: str) -> None:
        self.env = dict(env)
        self.args = list(args)
        self.paths = ServicePaths(self.env["REDLINE_HOME"])
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> ServiceProcess:
        command = [sys.executable, "-m", "redline", "serve", "--policy", str(POLICY), *self.args]
        self.log = Path(self.env["HOME"]) / "serve.log"
        with open(self.log, "a", encoding="utf-8") as err:
            self.proc = subprocess.Popen(
                command, env=self.env, stdin=subprocess.DEVNULL, stdout=err, stderr=err
            )
        eventually(self._ready, START_TIMEOUT_S, "the service to start")
        return self

    def _ready(self) -> bool:
        if self.proc is not None and self.proc.poll() is not None:
            err = self.log.read_text(encoding="utf-8")
            raise AssertionError(f"the service exited: {err}")
        try:
            status, _ = exchange(self.paths.hook_socket, "GET", "/v1/health", timeout=5)
        except Exception:  # noqa: BLE001 - not up yet
            return False
        return status == 200

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=30)

    def owner(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        return exchange(self.paths.owner_socket, method, path, body, timeout=60)

    def pending(self) -> list[dict[str, Any]]:
        status, reply = self.owner("GET", "/v1/pending")
        assert status == 200, reply
        rows: list[dict[str, Any]] = reply["pending"]
        return rows

    def wait_pending(self, count: int) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = eventually(
            lambda: (rows := self.pending()) and len(rows) >= count and rows,
            what=f"{count} held calls",
        )
        return rows


def reachable(path: str) -> bool:
    try:
        exchange(path, "GET", "/v1/health", timeout=5)
    except Unreachable:
        return False
    return True


def hook_payload(command: str, session: str = "s1", **extra: Any) -> dict[str, Any]:
    payload = {"tool": "Bash", "args": {"command": command}, "cwd": PROJECT, "session": session}
    payload.update(extra)
    return payload


class HookProcess:
    """`redline hook generic --service` as its own process, still waiting."""

    live: ClassVar[list[HookProcess]] = []
    """Started and not yet read: `finish_all` ends them after each test."""

    @classmethod
    def finish_all(cls) -> None:
        """End the hooks a test left waiting and close their pipes (else they
        are closed by the garbage collector, in whatever test runs then)."""
        while cls.live:
            proc = cls.live.pop().proc
            if proc.poll() is None:
                proc.kill()
            proc.communicate(timeout=30)

    def __init__(self, env: Mapping[str, str], payload: Any, *flags: str) -> None:
        HookProcess.live.append(self)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "redline", "hook", "generic", "--service", *flags],
            env=dict(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(payload))
        self.proc.stdin.close()
        self.proc.stdin = None  # written and closed: `communicate` only reads

    def result(self, timeout: float = 300.0) -> tuple[int, dict[str, Any], str]:
        out, err = self.proc.communicate(timeout=timeout)
        if self in HookProcess.live:
            HookProcess.live.remove(self)
        return self.proc.returncode, json.loads(out), err

    def running(self) -> bool:
        return self.proc.poll() is None


def run_hook(env: Mapping[str, str], payload: Any, *flags: str) -> tuple[int, dict[str, Any]]:
    code, decision, _ = HookProcess(env, payload, *flags).result()
    return code, decision


def outcomes(env: Mapping[str, str], url: str | None = None) -> list[Any]:
    from redline.audit.recorder import open_log
    from redline.audit.store import Query

    store = open_log(url, environ=env)
    try:
        return [e.record for e in store.query(Query(kind="outcome"))]
    finally:
        store.close()


def make_env(tmp: Path, **extra: str) -> Env:
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    env = {
        "REDLINE_HOME": str(tmp / "redline"),
        "HOME": str(home),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    }
    env.update(extra)
    return env
