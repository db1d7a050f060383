"""Claude Code, Codex and Gemini CLI: hooks in a JSON file.

All three nest the same way: `hooks.EVENT` is a list of matcher groups, each
with a list of command handlers. `install` removes any earlier redline
handler for the agent and appends one group of its own per event; `uninstall`
removes redline's handlers, and the groups, event lists and `hooks` object
that this leaves empty, and the file itself when nothing else is in it.
Everything else in the file is kept as it was.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from redline.fasttuple import NamedTuple
from redline.hooks.install import (
    Change,
    Options,
    hook_command,
    is_ours,
    user_home,
)
from redline.hooks.install.files import (
    ConfigError,
    backup,
    dump_json,
    read_json_object,
    write_atomic,
)


class JsonHost(NamedTuple):
    directory: str
    filename: str
    matcher: str | None
    timeout_unit: int
    """How many of the host's timeout units make a second."""
    handler: Mapping[str, Any]


TARGETS: Mapping[str, JsonHost] = {
    "claude-code": JsonHost(".claude", "settings.json", "*", 1, {}),
    "codex": JsonHost(".codex", "hooks.json", None, 1, {}),
    "gemini": JsonHost(
        ".gemini",
        "settings.json",
        None,
        1000,  # milliseconds
        {"name": "redline", "description": "redline approval gate"},
    ),
}


def config_path(host: str, home: str | None, project: str | None) -> str:
    target = TARGETS[host]
    root = os.path.abspath(os.path.expanduser(project)) if project else user_home(home)
    return os.path.join(root, target.directory, target.filename)


def events(host: str, options: Options) -> list[tuple[str, list[str]]]:
    """(event, hook flags) to install for `host`."""
    flags = options.flags()
    # PostToolUse: only where to ask and by when.
    after = [*options.service_flags(), *options.deadline_flags()]
    if host == "claude-code":
        wanted = [("PreToolUse", flags)]
        if options.record_outcomes:
            wanted.append(("PostToolUse", after))
        return wanted
    if host == "codex":
        if not options.defer_ask:
            wanted = [("PreToolUse", flags)]
        else:
            wanted = [
                ("PreToolUse", [*flags, "--defer-ask"]),
                ("PermissionRequest", [*flags, "--event", "permission-request"]),
            ]
        if options.record_outcomes:
            wanted.append(("PostToolUse", after))
        return wanted
    return [("BeforeTool", flags)]


def _is_ours(handler: Any, host: str) -> bool:
    if not isinstance(handler, dict):
        return False
    command = handler.get("command")
    return isinstance(command, str) and is_ours(command, host)


def _hooks_object(data: dict[str, Any], path: str, create: bool) -> dict[str, Any] | None:
    hooks = data.get("hooks")
    if hooks is None and create:
        hooks = data["hooks"] = {}
    if hooks is not None and not isinstance(hooks, dict):
        raise ConfigError(f"`hooks` in `{path}` must be an object")
    return hooks


def _remove_ours(hooks: dict[str, Any], host: str) -> int:
    """Remove redline's handlers for `host`; drop what that leaves empty."""
    removed = 0
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept_groups: list[Any] = []
        here = 0
        for group in groups:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list):
                kept_groups.append(group)
                continue
            kept = [h for h in handlers if not _is_ours(h, host)]
            mine = len(handlers) - len(kept)
            here += mine
            if mine and not kept:
                continue  # the group held only redline's handler
            if mine:
                group["hooks"] = kept
            kept_groups.append(group)
        if here:
            removed += here
            if kept_groups:
                hooks[event] = kept_groups
            else:
                del hooks[event]
    return removed


def _write(path: str, data: dict[str, Any], summary: str) -> Change:
    saved = backup(path)
    write_atomic(path, dump_json(data))
    return Change(path, True, saved, summary)


def install(
    host: str,
    *,
    home: str | None,
    project: str | None,
    options: Options,
    environ: Mapping[str, str] | None = None,
) -> list[Change]:
    target = TARGETS[host]
    path = config_path(host, home, project)
    data = read_json_object(path) or {}
    before = dump_json(data)
    hooks = _hooks_object(data, path, create=True)
    if hooks is None:  # pragma: no cover - created above
        raise ConfigError(f"`hooks` in `{path}` cannot be created")
    _remove_ours(hooks, host)
    added: list[str] = []
    for event, flags in events(host, options):
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise ConfigError(f"`hooks.{event}` in `{path}` must be a list")
        handler: dict[str, Any] = {
            "type": "command",
            "command": hook_command(host, flags, environ=environ),
            "timeout": options.timeout_s() * target.timeout_unit,
            **target.handler,
        }
        group: dict[str, Any] = {} if target.matcher is None else {"matcher": target.matcher}
        group["hooks"] = [handler]
        groups.append(group)
        added.append(event)
    if dump_json(data) == before:
        return [Change(path, False, None, "already installed")]
    return [_write(path, data, f"added redline to hooks.{', hooks.'.join(added)}")]


def uninstall(
    host: str,
    *,
    home: str | None,
    project: str | None,
    environ: Mapping[str, str] | None = None,
) -> list[Change]:
    path = config_path(host, home, project)
    data = read_json_object(path)
    if data is None:
        return [Change(path, False, None, "no such file")]
    hooks = _hooks_object(data, path, create=False)
    removed = _remove_ours(hooks, host) if hooks is not None else 0
    if not removed:
        return [Change(path, False, None, "redline was not installed here")]
    if hooks is not None and not hooks:
        del data["hooks"]
    if not data:  # only redline's hooks were in it: leave no empty `{}` behind
        saved = backup(path)
        os.unlink(path)
        return [Change(path, True, saved, f"removed {removed} redline hook(s) and the file")]
    return [_write(path, data, f"removed {removed} redline hook(s)")]


def installed(host: str, path: str) -> list[tuple[str, str]]:
    """(event, command) of redline's handlers in `path`."""
    data = read_json_object(path)
    hooks = data.get("hooks") if data else None
    found: list[tuple[str, str]] = []
    if not isinstance(hooks, dict):
        return found
    for event, groups in hooks.items():
        for group in groups if isinstance(groups, list) else []:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for handler in handlers if isinstance(handlers, list) else []:
                if _is_ours(handler, host):
                    found.append((event, handler["command"]))
    return found
