"""Places the gate protects that belong to others: where the agents load
their hooks from, and where the owner's browsers keep their sessions (F-GATE-3).

Data only; `redline.gate.protected.build_table` makes them entries. A hook
added where an agent loads hooks runs after redline's allow and may change
the call (`updatedInput`), or turn the gate off (`disableAllHooks`); a
browser's cookies hold the owner's login on the approval page.
"""

from __future__ import annotations

from redline.fasttuple import NamedTuple


class Place(NamedTuple):
    """`{claude}` and `{codex}` stand for those agents' config homes."""

    path: str
    what: str
    tree: bool = False
    suffix: bool = False
    samples: tuple[str, ...] = ()


_CC = "Claude Code's settings"
HOOK_PLACES = (
    Place("{claude}/hooks", "Claude Code's hooks", tree=True),
    # Sourced before every Bash call: an alias or `PATH` there changes what
    # each later, separately judged call runs.
    Place("{claude}/shell-snapshots", "Claude Code's shell snapshots", tree=True),
    Place("{claude}/plugins", "Claude Code's plugins and their hooks", tree=True),
    Place("{claude}/settings*.json", _CC, samples=("{claude}/settings.json",)),
    Place("~/.claude.json", "Claude Code's own config"),
    Place(".claude/settings*.json", _CC, suffix=True,
          samples=("/.claude/settings.json", "/.claude/settings.local.json")),
    Place("hooks/hooks.json", "a plugin's hooks", suffix=True),
    Place("/etc/claude-code", "Claude Code's managed settings", tree=True),
    Place("/library/application support/claudecode", "Claude Code's managed settings", tree=True),
    Place("{codex}/config.toml", "the Codex config"),
    Place("{codex}/hooks.json", "the Codex hooks"),
    Place(".codex/config.toml", "the Codex config", suffix=True),
    Place(".codex/hooks.json", "the Codex hooks", suffix=True),
    Place("/etc/codex", "the Codex managed config", tree=True),
    Place(".gemini/settings.json", "the Gemini CLI settings", suffix=True),
    Place("~/.gemini/extensions", "the Gemini CLI extensions", tree=True),
    Place("/etc/gemini-cli", "the Gemini CLI system settings", tree=True),
)  # fmt: skip

BROWSER_PROFILES = (
    "~/.config/google-chrome", "~/.config/chromium", "~/.config/bravesoftware",
    "~/.config/microsoft-edge", "~/snap/chromium", "~/.mozilla/firefox",
    "~/library/application support/google/chrome", "~/library/application support/firefox",
    "~/library/cookies",
)  # fmt: skip
# The files of a profile that hold sessions and saved logins (lower case).
BROWSER_SECRETS = ("cookies*", "login data*", "key4.db", "logins.json", "local state",
                   "*.binarycookies")  # fmt: skip
