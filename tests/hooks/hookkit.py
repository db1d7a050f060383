"""Helpers for hook tests: the hook run in-process or as a real subprocess,
the decision the gate itself gives for a call, and the log's entries."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Mapping
from typing import Any

from redline.decision import Decision
from redline.hooks.base import HookReply, Settings, handle

Env = dict[str, str]
PROJECT = "/work/project"


def adapter(host: str) -> Any:
    from redline.cli.hook import adapter_for

    return adapter_for(host)


def run_inproc(
    host: str, payload: Any, env: Mapping[str, str], settings: Settings | None = None
) -> HookReply:
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    chosen = settings or Settings.from_environ(env)
    return handle(adapter(host), io.BytesIO(data), chosen, env)


def run_process(
    host: str, payload: Any, env: Mapping[str, str], *flags: str
) -> subprocess.CompletedProcess[str]:
    data = payload if isinstance(payload, str) else json.dumps(payload)
    return subprocess.run(
        [sys.executable, "-m", "redline", "hook", host, *flags],
        input=data,
        capture_output=True,
        text=True,
        env=dict(env),
        timeout=120,
        check=False,
    )


def gate_decision(
    env: Mapping[str, str], tool: str, args: Mapping[str, Any], cwd: str | None = PROJECT
) -> Decision:
    from redline.gate.actions import ToolCall
    from redline.gatekeeper import Gate

    return Gate.from_environ(env).check(ToolCall(tool, args, cwd))


def log_entries(env: Mapping[str, str]) -> list[Any]:
    from redline.audit.recorder import open_log
    from redline.audit.store import Query

    store = open_log(environ=env)
    try:
        return list(store.query(Query()))
    finally:
        store.close()
