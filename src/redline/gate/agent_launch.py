"""Starting an agent whose hooks are not the owner's (F-GATE-3, issue 17).

An agent may start another agent (`claude -p`, `codex exec`, `gemini -p`,
`hermes -z`): that one is gated too, as long as it loads the hooks the owner
installed. Started with settings of its own (`claude --settings FILE`,
`--setting-sources project`, `--plugin-dir DIR`, `codex -c hooks...`), or with
its config home moved (`CLAUDE_CONFIG_DIR=/tmp/x claude`, `CODEX_HOME=...`,
`HERMES_HOME=...`), it may load none, or hooks of the agent's choosing that
run after redline's allow: that start never runs.
"""

from __future__ import annotations

from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex

AGENTS = frozenset({"claude", "codex", "gemini", "hermes", "claude-code", "qwen", "opencode"})
# Options that choose where an agent loads its settings, plugins or hooks from.
_SETTINGS_OPTIONS = {
    "claude": ("--settings", "--setting-sources", "--plugin-dir"),
    "claude-code": ("--settings", "--setting-sources", "--plugin-dir"),
    "codex": ("--profile", "-p"),
    "gemini": ("--extensions", "-e"),
    "hermes": ("--config",),
}
# `codex -c KEY=VALUE` overrides any config key: the hooks' ones are never the agent's.
_CONFIG_OVERRIDE = ("-c", "--config")
# Environment variables that move an agent's config home.
_HOMES = lazy_regex(
    r"\b(?:CLAUDE_CONFIG_DIR|CODEX_HOME|HERMES_HOME|GEMINI_CLI_HOME|"
    r"GEMINI_CLI_SYSTEM_SETTINGS_PATH|GEMINI_CLI_SYSTEM_DEFAULTS_PATH)\s*="
)


def leaves_gate_out(inv: Invocation, text: str) -> str | None:
    """Why starting agent `inv` (within command line `text`) may leave the
    owner's hooks out, or `None`."""
    name = inv.name
    values = inv.values
    for option in _SETTINGS_OPTIONS.get(name, ()):
        for value in values:
            if value == option or value.startswith(option + "="):
                return f"`{name} {option}` chooses the settings it loads hooks from"
    if name == "codex":
        for k, value in enumerate(values):
            if value in _CONFIG_OVERRIDE and k + 1 < len(values):
                setting = values[k + 1].lower()
            elif value.startswith("--config="):
                setting = value.split("=", 1)[1].lower()
            else:
                continue
            if "hook" in setting or "feature" in setting or "trust" in setting:
                return f"`codex {value} {setting}` overrides its hooks"
    match = _HOMES.search(text)
    if match:
        return f"`{match.group(0).rstrip('= ')}` moves {name}'s config home away from its hooks"
    return None
