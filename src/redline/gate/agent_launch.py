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

from redline.gate.hooks_off import switches_hooks_off
from redline.gate.program_names import AGENTS as AGENTS
from redline.gate.program_names import PACKAGERS as PACKAGERS
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex

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


# Subcommands that install what may carry hooks: plugins, extensions.
# `mcp add` registers a command the agent starts later, unjudged.
_INSTALLERS = {
    "claude": frozenset({"plugin", "plugins", "mcp"}),
    "claude-code": frozenset({"plugin", "plugins", "mcp"}),
    "gemini": frozenset({"extensions", "extension", "mcp"}),
    "hermes": frozenset({"plugins", "plugin", "hooks", "mcp"}),
    "codex": frozenset({"plugin", "plugins", "hooks", "mcp"}),
}
# `hermes config set approvals.mode off`: an agent's own CLI changing its settings.
_CONFIG_COMMANDS = frozenset({"config", "settings"})
_CONFIG_VERBS = frozenset({"set", "unset", "add", "remove", "rm", "edit", "reset", "delete"})
_INSTALL_VERBS = frozenset({"install", "add", "enable", "link", "update", "new", "marketplace",
                            "trust", "approve", "allow", "add-json", "add-from-claude-desktop",
                            "import", "login"})  # fmt: skip
# Verbs that turn a plugin or hook off: the gate may be one (Hermes loads it as a plugin).
_REMOVE_VERBS = frozenset({"disable", "remove", "uninstall", "rm", "delete", "unlink", "off"})
# The verbs of package managers (`PACKAGERS`) that change what is installed.
_PACKAGE_VERBS = frozenset({"install", "uninstall", "remove", "reinstall", "upgrade", "add",
                            "inject", "sync"})  # fmt: skip


_REQUIREMENT_END = lazy_regex(r"[\[=<>~!;@ ]")


def _names_redline(value: str) -> bool:
    """A requirement for redline (`redline`, `redline==1.2`, `redline[web]`),
    or a path or URL to a copy of it (`./redline`, `/tmp/evil-redline`)."""
    if "/" in value:
        return "redline" in value.rstrip("/").rsplit("/", 1)[-1]
    return _REQUIREMENT_END.split(value, 1)[0] == "redline"


def changes_gate_package(inv: Invocation) -> str | None:
    """`pip uninstall redline`, `pip install --force-reinstall ./redline-x`:
    the gate's own code changed (or gone, and a hook that cannot start lets
    calls through on some hosts)."""
    values = [v.lower() for v in inv.values]
    if not set(values) & _PACKAGE_VERBS:
        return None
    named = [v for v in values if not v.startswith("-") and _names_redline(v)]
    if named:
        program = inv.name.rsplit("/", 1)[-1]
        return f"`{program}` would change the gate's own code (`{named[0]}`)"
    return None


def leaves_gate_out(inv: Invocation, text: str) -> str | None:
    """Why starting agent `inv` (within command line `text`) may leave the
    owner's hooks out, or `None`."""
    name = inv.name.rsplit("/", 1)[-1]
    values = inv.values
    operands = [w.value.lower() for w in inv.options.operands]
    installer = bool(operands) and operands[0] in _INSTALLERS.get(name, ())
    if installer and set(operands[1:3]) & _INSTALL_VERBS:
        return f"`{name} {' '.join(operands[:2])}` installs what may carry hooks"
    if installer and set(operands[1:2]) & _REMOVE_VERBS:
        return f"`{name} {' '.join(operands[:2])}` turns off a plugin or hook (the gate may be one)"
    if operands[:1] and operands[0] in _CONFIG_COMMANDS and set(operands[1:2]) & _CONFIG_VERBS:
        return f"`{name} {' '.join(operands[:2])}` changes the agent's own settings"
    for option in _SETTINGS_OPTIONS.get(name, ()):
        for k, value in enumerate(values):
            if value == option or value.startswith(option + "="):
                given = value.partition("=")[2] if "=" in value else "".join(values[k + 1 : k + 2])
                if option == "--setting-sources" and "user" in given.split(","):
                    continue  # the user's settings, where the owner's hooks are, still load
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
    off = switches_hooks_off(inv, name, text)
    if off:
        return off
    match = _HOMES.search(text)
    if match:
        return f"`{match.group(0).rstrip('= ')}` moves {name}'s config home away from its hooks"
    return None
