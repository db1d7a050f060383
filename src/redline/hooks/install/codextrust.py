"""Codex runs only the hooks it trusts: redline's hook, trusted at install.

Codex lists every hook in `hooks.json` with a `currentHash`, and runs it only
when the user's `config.toml` holds the same hash for it:
`[hooks.state."<hooks.json path>:<event>:<group>:<handler>"] trusted_hash =
"sha256:..."`. An untrusted hook is skipped without a word (`codex exec` ran
a hard line that way). The hash is Codex's `version_for_toml` of the hook's
normalized identity: the SHA-256 of the compact JSON, keys sorted, of
`{"event_name": "pre_tool_use", "matcher": ..., "hooks": [{"type":
"command", "command": ..., "timeout": SECONDS, "async": false}]}` (fields
that are not set are left out). Only the user's `config.toml` can hold trust,
also for a project's `hooks.json`.

`trust` writes those tables (replacing any earlier one for the same key) and
reads the file back; `untrust` removes the tables that hold redline's hash.
Whether Codex agrees is what `redline doctor` asks Codex itself
(`codex app-server`, `hooks/list`), see `codexlist`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tomllib
from collections.abc import Mapping
from typing import Any

from redline.hooks.install import Change, is_ours, user_home
from redline.hooks.install.files import (
    ConfigError,
    backup,
    read_json_object,
    read_text,
    write_atomic,
)

EVENT_KEYS = {
    "PreToolUse": "pre_tool_use",
    "PermissionRequest": "permission_request",
    "PostToolUse": "post_tool_use",
}
DEFAULT_TIMEOUT_S = 600
MARK = "# redline: Codex runs only hooks it trusts; the hash Codex computes for redline's hook"
_HEADER = re.compile(r"^\s*\[\s*hooks\s*\.\s*state\s*\.\s*(\"(?:[^\"\\]|\\.)*\")\s*\]\s*(#.*)?$")


def config_toml(home: str | None, environ: Mapping[str, str] | None = None) -> str:
    return os.path.join(user_home(home, environ), ".codex", "config.toml")


def hook_hash(event: str, matcher: str | None, handler: Mapping[str, Any]) -> str:
    """Codex's `currentHash` of one command hook."""
    timeout = handler.get("timeout", handler.get("timeoutSec", DEFAULT_TIMEOUT_S))
    normal: dict[str, Any] = {
        "type": "command",
        "command": handler["command"],
        "timeout": max(int(timeout), 1),
        "async": bool(handler.get("async", False)),
    }
    if handler.get("statusMessage") is not None:
        normal["statusMessage"] = handler["statusMessage"]
    identity: dict[str, Any] = {"event_name": EVENT_KEYS[event], "hooks": [normal]}
    if matcher is not None:
        identity["matcher"] = matcher
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def ours(hooks_json: str) -> dict[str, str]:
    """{state key: hash} for redline's handlers in `hooks_json`."""
    data = read_json_object(hooks_json) or {}
    hooks = data.get("hooks")
    found: dict[str, str] = {}
    if not isinstance(hooks, dict):
        return found
    for event, groups in hooks.items():
        if event not in EVENT_KEYS or not isinstance(groups, list):
            continue
        for g, group in enumerate(groups):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for h, handler in enumerate(handlers if isinstance(handlers, list) else []):
                command = handler.get("command") if isinstance(handler, dict) else None
                if isinstance(command, str) and is_ours(command, "codex"):
                    key = f"{hooks_json}:{EVENT_KEYS[event]}:{g}:{h}"
                    found[key] = hook_hash(event, group.get("matcher"), handler)
    return found


def recorded(config: str) -> dict[str, Any]:
    """The `hooks.state` table of `config` ({} when there is none)."""
    text = read_text(config)
    if text is None:
        return {}
    try:
        state = tomllib.loads(text).get("hooks", {}).get("state", {})
    except (tomllib.TOMLDecodeError, AttributeError) as error:
        raise ConfigError(f"`{config}` is not valid TOML ({error})") from None
    return state if isinstance(state, dict) else {}


def _key_of(header: str) -> str | None:
    match = _HEADER.match(header)
    if not match:
        return None
    try:
        value = tomllib.loads(f"k = {match.group(1)}")["k"]
    except tomllib.TOMLDecodeError:
        return None
    return value if isinstance(value, str) else None


def _without(text: str, keys: set[str], only_hashes: Mapping[str, str] | None = None) -> str:
    """`text` without the `[hooks.state."KEY"]` tables of `keys` (and the
    mark line before them); with `only_hashes`, only tables holding that hash."""
    lines = text.splitlines(keepends=True)
    kept: list[str] = []
    i = 0
    while i < len(lines):
        key = _key_of(lines[i])
        if key in keys:
            end = i + 1
            while end < len(lines) and not lines[end].lstrip().startswith("["):
                end += 1
            table = "".join(lines[i:end])
            wanted = only_hashes is None or (only_hashes.get(key) or "\0") in table
            if wanted:
                if kept and kept[-1].strip() == MARK:
                    kept.pop()
                i = end
                continue
        kept.append(lines[i])
        i += 1
    return "".join(kept)


def manual_step(config: str, wanted: Mapping[str, str]) -> str:
    tables = " ".join(
        f"[hooks.state.{json.dumps(k)}] trusted_hash = {json.dumps(v)}" for k, v in wanted.items()
    )
    return (
        f"Codex will not run redline's hook until it is trusted: start `codex`, open `/hooks` "
        f"and trust it, or add to `{config}`: {tables}"
    )


def trust(hooks_json: str, home: str | None, environ: Mapping[str, str] | None = None) -> Change:
    """Record Codex's trust for redline's handlers in `hooks_json`."""
    config = config_toml(home, environ)
    wanted = ours(hooks_json)
    if not wanted:
        return Change(config, False, None, "no redline hook to trust")
    try:
        state = recorded(config)
    except ConfigError as error:
        return Change(config, False, None, f"NOT TRUSTED ({error}). {manual_step(config, wanted)}")
    if all(_hash_of(state.get(k)) == v for k, v in wanted.items()):
        return Change(config, False, None, "Codex trusts redline's hook already")
    text = read_text(config) or ""
    body = _without(text, set(wanted)).rstrip("\n")
    blocks = [
        f'{MARK}\n[hooks.state.{json.dumps(k, ensure_ascii=False)}]\ntrusted_hash = "{v}"\n'
        for k, v in wanted.items()
    ]
    new = (body + "\n\n" if body else "") + "\n".join(blocks)
    try:
        after = tomllib.loads(new).get("hooks", {}).get("state", {})
        ok = all(_hash_of(after.get(k)) == v for k, v in wanted.items())
    except (tomllib.TOMLDecodeError, AttributeError):
        ok = False
    if not ok:  # the file spells hooks.state some other way: leave it as it is
        return Change(config, False, None, f"NOT TRUSTED. {manual_step(config, wanted)}")
    saved = backup(config)
    write_atomic(config, new)
    return Change(config, True, saved, "recorded Codex's trust for redline's hook")


def untrust(
    keys: Mapping[str, str], home: str | None, environ: Mapping[str, str] | None = None
) -> Change | None:
    """Remove the trust tables `trust` wrote for `keys` (their hash unchanged)."""
    config = config_toml(home, environ)
    text = read_text(config)
    if text is None or not keys:
        return None
    new = _without(text, set(keys), keys)
    if new == text:
        return None
    saved = backup(config)
    if not new.strip():  # only redline's trust was there: leave no empty file
        os.remove(config)
        return Change(config, True, saved, "removed Codex's trust for redline's hook and the file")
    write_atomic(config, new)
    return Change(config, True, saved, "removed Codex's trust for redline's hook")


def _hash_of(state: Any) -> str | None:
    value = state.get("trusted_hash") if isinstance(state, dict) else None
    return value if isinstance(value, str) else None
