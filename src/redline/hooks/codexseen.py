"""What Codex itself sees of redline's hook: is it listed, enabled, trusted?

Codex skips a hook it does not trust without a word, so `redline doctor`
asks Codex: `codex app-server` answers the JSON-RPC `hooks/list` with each
hook's `trustStatus` (`trusted`, `untrusted`, `modified`, `managed`) and
`enabled`. Without a `codex` on PATH (or when it does not answer), the trust
that `config.toml` records is compared with the hash Codex would compute
(`install.codextrust`).
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import subprocess
import time
from collections.abc import Mapping
from typing import Any

from redline.hooks.install import is_ours
from redline.hooks.install.codextrust import config_toml, ours, recorded

TIMEOUT_S = 20.0
AGAIN = "run `redline install codex` again (it records Codex's trust), then restart Codex"


def _requests(cwd: str) -> bytes:
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"clientInfo": {"name": "redline-doctor", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [cwd]}},
    ]  # fmt: skip
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def listed(codex: str, cwd: str, environ: Mapping[str, str]) -> list[dict[str, Any]] | None:
    """The hooks `codex app-server` lists for `cwd`; None if it does not say."""
    try:
        process = subprocess.Popen(
            [codex, "app-server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=cwd,
            env=dict(environ),
        )
    except OSError:
        return None
    assert process.stdin is not None and process.stdout is not None  # noqa: S101 - pipes asked for
    try:
        process.stdin.write(_requests(cwd))
        process.stdin.flush()
        return _answer(process.stdout, time.monotonic() + TIMEOUT_S)
    except OSError:
        return None
    finally:
        process.kill()
        process.wait(timeout=5)
        process.stdin.close()
        process.stdout.close()


def _answer(stdout: Any, deadline: float) -> list[dict[str, Any]] | None:
    with selectors.DefaultSelector() as selector:
        selector.register(stdout, selectors.EVENT_READ)
        return _read_until_listed(selector, stdout, deadline)


def _read_until_listed(
    selector: selectors.BaseSelector, stdout: Any, deadline: float
) -> list[dict[str, Any]] | None:
    buffer = b""
    while time.monotonic() < deadline:
        if not selector.select(timeout=max(deadline - time.monotonic(), 0.01)):
            continue
        chunk = os.read(stdout.fileno(), 65536)
        if not chunk:
            return None
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        for line in lines:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict) and message.get("id") == 2:
                data = (message.get("result") or {}).get("data") or []
                return [h for entry in data for h in entry.get("hooks") or []]
    return None


def problems(
    hooks_json: str, home: str, cwd: str, environ: Mapping[str, str]
) -> tuple[list[str], str]:
    """(what keeps Codex from running redline's hooks in `hooks_json`, how it
    was checked)."""
    wanted = ours(hooks_json)
    codex = shutil.which("codex", path=environ.get("PATH"))
    seen = listed(codex, cwd, {**environ, "HOME": home}) if codex else None
    if seen is None:
        return _recorded(wanted, home, environ), "from config.toml (no `codex` answered)"
    mine = {h.get("key"): h for h in seen if is_ours(str(h.get("command") or ""), "codex")}
    found = []
    for key in wanted:
        hook = mine.get(key)
        if hook is None:
            found.append(f"Codex does not load redline's hook `{key}` (is the folder trusted?)")
        elif hook.get("enabled") is False:
            found.append(f"Codex has redline's hook `{key}` turned off; turn it on in `/hooks`")
        elif hook.get("trustStatus") not in ("trusted", "managed"):
            found.append(
                f"Codex lists redline's hook `{key}` as {hook.get('trustStatus')} and will "
                f"skip it; {AGAIN}"
            )
    return found, f"asked `{codex} app-server`"


def _recorded(wanted: Mapping[str, str], home: str, environ: Mapping[str, str]) -> list[str]:
    config = config_toml(home, environ)
    state = recorded(config)
    found = []
    for key, digest in wanted.items():
        entry = state.get(key)
        trusted = entry.get("trusted_hash") if isinstance(entry, dict) else None
        if isinstance(entry, dict) and entry.get("enabled") is False:
            found.append(f"`{config}` turns redline's hook `{key}` off")
        elif trusted is None:
            found.append(f"Codex does not trust redline's hook `{key}` and will skip it; {AGAIN}")
        elif trusted != digest:
            found.append(f"redline's hook `{key}` changed since Codex trusted it; {AGAIN}")
    return found
