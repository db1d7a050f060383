"""Where sensitive files live, by family: the agent's own config, ssh,
credentials, shell and tool startup files, autostart, system config, a
project's `.env` and `config.yaml` (`rules.sensitive` judges their writes)."""

from __future__ import annotations

from redline.rules.secrets import SSH_DIR, is_project_env
from redline.shell import paths
from redline.shell.lazy_regex import lazy_regex

_AGENT_FILES = (
    "~/.hermes/.env", "~/.hermes/config.yaml", "~/.hermes/shell-hooks-allowlist.json",
    "~/.hermes/shell-hooks-allowlist.json.lock", "~/.claude/settings.json",
    "~/.claude/settings.local.json", "~/.claude/.credentials.json", "~/.codex/config.toml",
    "~/.codex/auth.json", "~/.gemini/settings.json", "~/.gemini/.env",
    "~/.gemini/oauth_creds.json",
)  # fmt: skip
_AGENT_DIRS = ("~/.hermes/agent-hooks", "~/.hermes/approval", "~/.hermes/scripts", "~/.redline")
# Project-level agent settings (hooks live there): `.claude/settings.json` anywhere; and
# the lists of MCP servers agents start (each entry is a command the agent runs):
# `.mcp.json`, `.cursor/mcp.json`, `.vscode/mcp.json`, Windsurf's, Claude's user file.
_AGENT_PROJECT = lazy_regex(
    r"(?:\A|/)(?:\.claude/settings(?:\.local)?\.json|\.gemini/settings\.json"
    r"|\.hermes/(?:\.env|config\.yaml)|\.mcp\.json|\.(?:cursor|vscode|roo)/mcp\.json"
    r"|\.codeium/windsurf/mcp_config\.json|\.claude\.json"
    r"|(?:Claude|claude)/claude_desktop_config\.json)\Z"
)
# The file names `_AGENT_PROJECT` can end with: others need not compile it.
_AGENT_PROJECT_NAMES = frozenset({"settings.json", "settings.local.json", ".env", "config.yaml",
                                  ".mcp.json", "mcp.json", "mcp_config.json", ".claude.json",
                                  "claude_desktop_config.json"})  # fmt: skip
_CREDENTIAL_FILES = (
    "~/.netrc", "~/.docker/config.json", "~/.kube/config", "~/.git-credentials", "~/.pgpass",
    "~/.npmrc", "~/.pypirc", "~/.config/gh/hosts.yml",
    # pip's user config: its `index-url` chooses where every install comes from
    "~/.pip/pip.conf", "~/.config/pip/pip.conf", "~/Library/Application Support/pip/pip.conf",
)  # fmt: skip
_CREDENTIAL_DIRS = ("~/.aws", "~/.gnupg", "~/.password-store", "~/.config/gcloud", "~/.azure")
_HOME_RC = frozenset({".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
                      ".zshrc", ".zprofile", ".zshenv", ".zlogin", ".zlogout", ".kshrc",
                      ".login", ".mkshrc", ".cshrc", ".tcshrc", ".xprofile", ".xinitrc",
                      ".inputrc",
                      # PAM's login environment; the usual names of `PYTHONSTARTUP`'s
                      # file, run by every interactive Python
                      ".pam_environment", ".pythonrc", ".pythonrc.py", ".pythonstartup",
                      # git runs what its config names (aliases with `!`, core.sshCommand,
                      # credential helpers, hooksPath): a startup file in all but name.
                      ".gitconfig"})  # fmt: skip
_SYSTEM_RC = ("/etc/profile", "/etc/bash.bashrc", "/etc/bashrc", "/etc/zshrc", "/etc/zshenv",
              "/etc/zprofile", "/etc/environment", "/etc/csh.cshrc", "/etc/csh.login")  # fmt: skip
_RC_DIRS = ("~/.config/fish", "/etc/profile.d", "/etc/zsh", "/etc/fish", "~/.config/git")
_AUTOSTART = ("~/.config/systemd/user", "~/.config/autostart", "~/Library/LaunchAgents",
              "~/.config/environment.d")  # fmt: skip
_SYSTEM = ("/etc", "/private/etc", "/private/var", "/usr/lib/systemd", "/lib/systemd", "/boot",
           "/var/spool/cron", "/Library/LaunchDaemons", "/Library/LaunchAgents",
           "/usr/local/etc")  # fmt: skip


def _under(path: str, roots: tuple[str, ...]) -> bool:
    return any(paths.is_under(path, root) for root in roots)


def family_of(path: str, project_root: bool = False) -> str | None:
    """The sensitive family a canonical path belongs to, most specific first."""
    name = path.rsplit("/", 1)[-1]
    if (
        path in _AGENT_FILES
        or _under(path, _AGENT_DIRS)
        or (name in _AGENT_PROJECT_NAMES and _AGENT_PROJECT.search(path))
    ):
        return "agent-config"
    if paths.is_under(path, SSH_DIR):
        return "ssh"
    if path in _CREDENTIAL_FILES or _under(path, _CREDENTIAL_DIRS):
        return "credentials"
    if (path == "~/" + name and name in _HOME_RC) or path in _SYSTEM_RC or _under(path, _RC_DIRS):
        return "shell-rc"
    if _under(path, _AUTOSTART):
        return "autostart"
    if _under(path, _SYSTEM):
        return "system-config"
    if is_project_env(name):
        return "project-env"
    if project_root and name == "config.yaml":
        return "project-config"
    return None
