"""Starting an agent in a mode that runs no hooks, or switching its hooks off.

Each client has documented switches that skip every hook, the owner's
(redline's) among them: `claude --bare` and `CLAUDE_CODE_SIMPLE=1`;
`codex --disable hooks`, `codex features disable hooks`, `codex -c
features.hooks=false` (joined as `-cfeatures...` too); `hermes --safe-mode`
and `HERMES_SAFE_MODE=1`; and `HOME=...` before any agent, which moves every
config directory (and the gate's default home) at once.
"""

from __future__ import annotations

from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex

# Options that start the agent with no hooks at all.
_NO_HOOK_OPTIONS = {
    "claude": ("--bare",),
    "claude-code": ("--bare",),
    "hermes": ("--safe-mode", "--safe"),
}
# Environment variables that switch a client's hooks off, or move HOME (and
# with it every client's config dir): `HOME=/tmp/h claude`, `env -u HOME codex`.
_OFF_VARIABLES = lazy_regex(
    r"(?<![\w-])(?:CLAUDE_CODE_SIMPLE|HERMES_SAFE_MODE|HOME|XDG_CONFIG_HOME)\s*="
    r"|(?:\B-u\s*|--unset[= ]\s*|\bunset\s+)(?:HOME|XDG_CONFIG_HOME)\b"
)
_CODEX_FEATURE_VERBS = frozenset({"disable", "enable", "set", "unset", "reset"})


def _hook_feature(value: str) -> bool:
    lowered = value.lower()
    return "hook" in lowered or "feature" in lowered


def _codex_switch(values: list[str]) -> str | None:
    """`codex --disable hooks`, `--disable=codex_hooks`, `features disable
    hooks`, `-cfeatures.hooks=false`: in any position."""
    for k, value in enumerate(values):
        following = values[k + 1] if k + 1 < len(values) else ""
        if value in ("--disable", "--enable") and _hook_feature(following):
            return f"`codex {value} {following}` switches its hooks"
        if value.startswith(("--disable=", "--enable=")) and _hook_feature(value):
            return f"`codex {value}` switches its hooks"
        joined = value.startswith("-c") and not value.startswith("--") and len(value) > 2
        if joined and (_hook_feature(value[2:]) or "trust" in value.lower()):
            return f"`codex {value}` overrides its hooks"
        if value == "features" and following.lower() in _CODEX_FEATURE_VERBS:
            return f"`codex features {following}` changes which features (hooks) run"
    return None


def switches_hooks_off(inv: Invocation, name: str, text: str) -> str | None:
    """Why agent `name` started as `inv` (within command line `text`) runs
    without its hooks, or `None`."""
    values = list(inv.values)
    for option in _NO_HOOK_OPTIONS.get(name, ()):
        if any(v == option or v.startswith(option + "=") for v in values):
            return f"`{name} {option}` starts it without hooks"
    if name == "codex":
        why = _codex_switch(values)
        if why:
            return why
    if "HOME" in text or "SIMPLE" in text or "SAFE_MODE" in text:
        match = _OFF_VARIABLES.search(text)
        if match:
            return f"`{match.group(0).strip()}` starts {name} without the owner's hooks"
    return None
