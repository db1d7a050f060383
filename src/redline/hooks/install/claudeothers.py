"""Claude Code: other `PreToolUse` hooks that could rewrite a call redline
allowed.

A `PreToolUse` hook may answer `updatedInput`, and Claude Code then runs the
rewritten call. redline judged the call as it was, so a hook that rewrites it
(Claude Code runs the matching hooks of every settings file and plugin)
can make something run that redline never saw. `install claude-code` names
each such hook it finds, so the owner can check what it does.
"""

from __future__ import annotations

import glob
import os

from redline.hooks.install import Change, is_ours, user_home
from redline.hooks.install.files import ConfigError, read_json_object

MANAGED = "/etc/claude-code/managed-settings.json"
_SHOWN = 80


def settings_files(home: str | None, project: str | None) -> list[str]:
    """The settings and hook files Claude Code reads for this user (and project)."""
    root = user_home(home)
    files = [os.path.join(root, ".claude", "settings.json"), MANAGED]
    if project:
        folder = os.path.join(os.path.abspath(os.path.expanduser(project)), ".claude")
        files += [
            os.path.join(folder, "settings.json"),
            os.path.join(folder, "settings.local.json"),
        ]
    plugins = os.path.join(root, ".claude", "plugins")
    files += sorted(
        glob.glob(os.path.join(glob.escape(plugins), "**", "hooks.json"), recursive=True)
    )
    return files


def other_hooks(path: str) -> list[str]:
    """The commands of `PreToolUse` hooks in `path` that are not redline's."""
    try:
        data = read_json_object(path)
    except ConfigError:
        return []
    hooks = data.get("hooks") if data else None
    groups = hooks.get("PreToolUse") if isinstance(hooks, dict) else None
    found: list[str] = []
    for group in groups if isinstance(groups, list) else []:
        handlers = group.get("hooks") if isinstance(group, dict) else None
        for handler in handlers if isinstance(handlers, list) else []:
            if not isinstance(handler, dict):
                continue
            command = handler.get("command")
            what = command if isinstance(command, str) else f"a `{handler.get('type')}` hook"
            if isinstance(command, str) and is_ours(command, "claude-code"):
                continue
            found.append(what)
    return found


def warnings(home: str | None, project: str | None) -> list[Change]:
    """One warning per other `PreToolUse` hook found."""
    found: list[Change] = []
    for path in settings_files(home, project):
        for command in other_hooks(path):
            shown = command if len(command) <= _SHOWN else command[: _SHOWN - 1] + "…"
            found.append(
                Change(
                    path,
                    False,
                    None,
                    f"warning: another PreToolUse hook runs here (`{shown}`); if it answers "
                    "`updatedInput`, Claude Code runs the rewritten call, which redline never "
                    "judged (see docs/hooks.md, Claude Code)",
                )
            )
    return found
