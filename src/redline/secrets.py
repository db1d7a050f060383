"""The scrubbed environment a command runs with (F-SECRETS-1). Pure.

A variable is removed when it falls in one of four tiers:

- `platform`: the agent platforms' and model providers' keys and the gate's
  own settings and secrets (`OPENAI_API_KEY`, bot tokens, `REDLINE_*`...);
- `cloud`: cloud credentials (`AWS_SECRET_ACCESS_KEY`, `AZURE_*`...);
- `name`: a secret-like name (`*_TOKEN`, `*_SECRET`, `*_KEY`, `*PASSWORD*`)
  or a URL with a password in it;
- `value`: a value in a known token format, whatever its name (the
  redaction detectors of `audit.redact`);
- `socket`: the address of one of the owner's local services, each a command
  channel out of the sandbox (`SSH_AUTH_SOCK`, `TMUX`, the session bus,
  `DISPLAY`, Docker, terminal remote control...; `is_socket_name`).

The policy's passthrough list (`env: {pass: [...]}`) lets a name of the other
tiers through, and the run's log says so; it can never pass a
`platform` name: that one is still removed (and `redline policy lint` warns).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping

from redline.fasttuple import NamedTuple

PLATFORM, CLOUD, NAME, VALUE, SOCKET = "platform", "cloud", "name", "value", "socket"
TIERS = (PLATFORM, CLOUD, NAME, VALUE, SOCKET)

# Where the owner's local services listen: through them a command runs
# outside the sandbox (`tmux send-keys`, `systemd-run --user`, `docker run`,
# X11 input, a terminal's or an editor's remote control) or uses a key it
# cannot read (the SSH and GPG agents).
_SOCKET_NAMES = frozenset(
    {
        "SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO", "TMUX", "TMUX_PANE", "STY",
        "DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS", "XDG_RUNTIME_DIR", "DISPLAY",
        "WAYLAND_DISPLAY", "XAUTHORITY", "DOCKER_HOST", "CONTAINER_HOST", "PODMAN_HOST",
        "KITTY_LISTEN_ON", "KITTY_WINDOW_ID", "WEZTERM_UNIX_SOCKET", "ALACRITTY_SOCKET",
        "NVIM", "NVIM_LISTEN_ADDRESS", "VSCODE_IPC_HOOK_CLI", "VSCODE_IPC_HOOK",
        "SWAYSOCK", "I3SOCK", "HYPRLAND_INSTANCE_SIGNATURE", "ZELLIJ", "ZELLIJ_SESSION_NAME",
        "CLAUDE_CODE_SSE_PORT", "EMACS_SOCKET_NAME",
    }
)  # fmt: skip

_PLATFORM_NAMES = frozenset(
    {
        "OPENAI_API_KEY", "OPENAI_ORG_ID", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_OAUTH_TOKEN", "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_API_KEY",
        "OPENROUTER_API_KEY", "MISTRAL_API_KEY", "GROQ_API_KEY", "DEEPSEEK_API_KEY",
        "XAI_API_KEY", "COHERE_API_KEY", "CO_API_KEY", "TOGETHER_API_KEY", "FIREWORKS_API_KEY",
        "PERPLEXITY_API_KEY", "REPLICATE_API_TOKEN", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN",
        "HUGGINGFACE_HUB_TOKEN", "AZURE_OPENAI_API_KEY", "CODEX_API_KEY", "NOUS_API_KEY",
        "TELEGRAM_BOT_TOKEN", "DISCORD_BOT_TOKEN", "SLACK_BOT_TOKEN", "SLACK_APP_TOKEN",
    }
)  # fmt: skip
_PLATFORM_PREFIXES = ("REDLINE_", "HERMES_API", "TELEGRAM_", "DISCORD_TOKEN", "SLACK_TOKEN")
_PLATFORM_SUFFIXES = ("_BOT_TOKEN",)

_CLOUD_NAMES = frozenset(
    {
        "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN",
        "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_AUTHORIZATION_TOKEN",
        "GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_OAUTH_ACCESS_TOKEN", "CLOUDSDK_AUTH_ACCESS_TOKEN",
        "GOOGLE_CREDENTIALS", "DIGITALOCEAN_TOKEN", "DIGITALOCEAN_ACCESS_TOKEN", "HCLOUD_TOKEN",
        "LINODE_TOKEN", "CLOUDFLARE_API_TOKEN", "CLOUDFLARE_API_KEY", "VAULT_TOKEN",
        "KUBECONFIG", "DOCKER_AUTH_CONFIG",
    }
)  # fmt: skip
_CLOUD_PREFIXES = ("AZURE_", "ARM_CLIENT", "ARM_ACCESS", "OS_PASSWORD", "ALIBABA_CLOUD_ACCESS")

# `scheme://user:password@host`: the password part is what makes it secret.
_URL_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s:@]*:[^/\s@]+@", re.IGNORECASE)


class Removed(NamedTuple):
    """A variable left out of the command's environment, and why."""

    name: str
    tier: str


class Scrub(NamedTuple):
    """The environment to run with, what was removed, and what the
    passthrough list let through that would otherwise have been removed."""

    env: dict[str, str]
    removed: tuple[Removed, ...]
    passed: tuple[Removed, ...]
    refused: tuple[str, ...]
    """Passthrough entries naming a `platform` variable: still removed."""


def tier_of(name: str, value: str) -> str | None:
    """The tier that removes `name=value`, or `None` when it may stay."""
    upper = name.upper()
    if (
        upper in _PLATFORM_NAMES
        or upper.startswith(_PLATFORM_PREFIXES)
        or upper.endswith(_PLATFORM_SUFFIXES)
    ):
        return PLATFORM
    if upper in _CLOUD_NAMES or upper.startswith(_CLOUD_PREFIXES):
        return CLOUD
    from redline.audit.redact import is_secret_name

    if is_secret_name(name) or _URL_PASSWORD.search(value):
        return NAME
    if value and _looks_secret(value):
        return VALUE
    return None


def is_socket_name(name: str) -> bool:
    """True for a variable that holds the address of one of the owner's local
    services (a pattern counts when it could name one)."""
    if any(c in name for c in "*?["):
        return any(fnmatch.fnmatchcase(sample, name.upper()) for sample in _SOCKET_NAMES)
    return name.upper() in _SOCKET_NAMES


def _looks_secret(value: str) -> bool:
    from redline.audit.redact import redact_text

    return redact_text(value) != value


def is_platform_name(name: str) -> bool:
    """True for a name no passthrough list may pass (a pattern counts when it
    could name one: `OPENAI_*`, `*_API_KEY`)."""
    if any(c in name for c in "*?["):
        samples = (*_PLATFORM_NAMES, *(p + "X" for p in _PLATFORM_PREFIXES))
        return any(fnmatch.fnmatchcase(sample, name.upper()) for sample in samples)
    return tier_of(name, "") == PLATFORM


def _passes(name: str, passthrough: Iterable[str]) -> bool:
    return any(name == entry or fnmatch.fnmatchcase(name, entry) for entry in passthrough)


def scrub(environ: Mapping[str, str], passthrough: Iterable[str] = ()) -> Scrub:
    """Split `environ` into what the command gets and what it does not."""
    allowed = tuple(passthrough)
    env: dict[str, str] = {}
    removed: list[Removed] = []
    passed: list[Removed] = []
    for name, value in environ.items():
        tier = tier_of(name, value) or (SOCKET if name.upper() in _SOCKET_NAMES else None)
        if tier is None:
            env[name] = value
        elif tier != PLATFORM and _passes(name, allowed):
            env[name] = value
            passed.append(Removed(name, tier))
        else:
            removed.append(Removed(name, tier))
    refused = tuple(entry for entry in allowed if is_platform_name(entry))
    return Scrub(env, tuple(sorted(removed)), tuple(sorted(passed)), refused)


def scrubbed_env(
    environ: Mapping[str, str], passthrough: Iterable[str] = ()
) -> tuple[dict[str, str], tuple[str, ...]]:
    """`(env, removed names)`: `environ` without its secrets (see the module doc)."""
    result = scrub(environ, passthrough)
    return result.env, tuple(r.name for r in result.removed)
