"""`redline install` / `uninstall`: merged into existing config files with
other hooks present, backed up, idempotent, and taken back out exactly."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hookkit import Env

from redline.hooks.install import Options, hook_command, install, uninstall
from redline.hooks.install.files import ConfigError
from redline.hooks.install.hermes import command as hermes_command

# The hook answers 5 s before the host's 30 s timeout.
DEADLINE = ["--deadline", "25"]
THEIRS = {"type": "command", "command": "/usr/local/bin/audit-bash.sh", "timeout": 5}


def write(path: Path, data: Any) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=4) if not isinstance(data, str) else data
    path.write_text(text)
    return text


def backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(path.name + ".redline-backup*"))


CLAUDE_BEFORE = {
    "permissions": {"allow": ["Bash(npm test)"], "deny": ["Read(./.env)"]},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [THEIRS]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
    "model": "opus",
}


def test_claude_code_round_trip(env: Env, tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = home / ".claude" / "settings.json"
    original = write(path, CLAUDE_BEFORE)
    changes = install("claude-code", home=str(home), environ=env)
    # theirs is another PreToolUse hook: a warning
    assert [(c.path, c.changed) for c in changes] == [(str(path), True), (str(path), False)]
    assert [b.read_text() for b in backups(path)] == [original]
    data = json.loads(path.read_text())
    command = hook_command("claude-code", DEADLINE, environ=env)
    assert data["hooks"]["PreToolUse"] == [
        {"matcher": "Bash", "hooks": [THEIRS]},
        {"matcher": "*", "hooks": [{"type": "command", "command": command, "timeout": 30}]},
    ]
    assert {k: v for k, v in data.items() if k != "hooks"} == {
        "permissions": CLAUDE_BEFORE["permissions"],
        "model": "opus",
    }
    assert data["hooks"]["Stop"] == CLAUDE_BEFORE["hooks"]["Stop"]  # type: ignore[index]

    again = install("claude-code", home=str(home), environ=env)
    assert (again[0].changed, again[0].summary) == (False, "already installed")
    assert len(backups(path)) == 1

    installed = path.read_text()
    removed = uninstall("claude-code", home=str(home), environ=env)
    assert [c.changed for c in removed] == [True]
    assert json.loads(path.read_text()) == CLAUDE_BEFORE
    assert [b.read_text() for b in backups(path)] == [installed]  # one backup, the latest
    nothing = uninstall("claude-code", home=str(home), environ=env)
    assert [c.summary for c in nothing] == ["redline was not installed here"]


def test_claude_code_project_scope_and_post_tool_use(env: Env, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    install("claude-code", project=str(project), options=Options(record_outcomes=True), environ=env)
    data = json.loads((project / ".claude" / "settings.json").read_text())
    assert sorted(data["hooks"]) == ["PostToolUse", "PreToolUse"]
    uninstall("claude-code", project=str(project), environ=env)
    assert not (project / ".claude" / "settings.json").exists()


def test_reinstall_with_other_options_replaces_ours(env: Env, tmp_path: Path) -> None:
    home = str(tmp_path / "home")
    install("claude-code", home=home, environ=env)
    install("claude-code", home=home, options=Options(allow_explicit=True), environ=env)
    data = json.loads((tmp_path / "home" / ".claude" / "settings.json").read_text())
    commands = [h["command"] for g in data["hooks"]["PreToolUse"] for h in g["hooks"]]
    assert commands == [hook_command("claude-code", [*DEADLINE, "--allow-explicit"], environ=env)]


def test_a_hook_installed_in_the_older_m_form_is_replaced_and_removed(
    env: Env, tmp_path: Path
) -> None:
    # Earlier versions installed `python -m redline hook AGENT`.
    home = tmp_path / "home"
    path = home / ".claude" / "settings.json"
    old = f"{shlex.quote(sys.executable)} -m redline hook claude-code || {{ exit 2; }}"
    write(path, {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"command": old}]}]}})
    install("claude-code", home=str(home), environ=env)
    data = json.loads(path.read_text())
    commands = [h["command"] for g in data["hooks"]["PreToolUse"] for h in g["hooks"]]
    assert commands == [hook_command("claude-code", DEADLINE, environ=env)]
    write(path, {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"command": old}]}]}})
    uninstall("claude-code", home=str(home), environ=env)
    assert not path.exists()


def test_codex_round_trip_with_permission_request(env: Env, tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = home / ".codex" / "hooks.json"
    before = {"hooks": {"PreToolUse": [{"matcher": "^Bash$", "hooks": [THEIRS]}]}}
    write(path, before)
    install("codex", home=str(home), options=Options(defer_ask=True), environ=env)
    data = json.loads(path.read_text())
    assert data["hooks"]["PreToolUse"][1] == {
        "hooks": [
            {
                "type": "command",
                "command": hook_command("codex", [*DEADLINE, "--defer-ask"], environ=env),
                "timeout": 30,
            }
        ]
    }
    assert data["hooks"]["PermissionRequest"] == [
        {
            "hooks": [
                {
                    "type": "command",
                    "command": hook_command(
                        "codex", [*DEADLINE, "--event", "permission-request"], environ=env
                    ),
                    "timeout": 30,
                }
            ]
        }
    ]
    uninstall("codex", home=str(home), environ=env)
    assert json.loads(path.read_text()) == before


def test_gemini_round_trip(env: Env, tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = home / ".gemini" / "settings.json"
    before = {
        "theme": "GitHub",
        "hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [THEIRS]}]},
    }
    write(path, before)
    install("gemini", home=str(home), environ=env)
    ours = json.loads(path.read_text())["hooks"]["BeforeTool"][1]
    assert ours == {
        "hooks": [
            {
                "type": "command",
                "command": hook_command("gemini", DEADLINE, environ=env),
                "timeout": 30000,
                "name": "redline",
                "description": "redline approval gate",
            }
        ]
    }
    uninstall("gemini", home=str(home), environ=env)
    assert json.loads(path.read_text()) == before


def test_a_broken_config_is_left_alone(env: Env, tmp_path: Path) -> None:
    path = tmp_path / "home" / ".claude" / "settings.json"
    write(path, '{"hooks": ')
    with pytest.raises(ConfigError, match="is not valid JSON"):
        install("claude-code", home=str(tmp_path / "home"), environ=env)
    assert path.read_text() == '{"hooks": ' and backups(path) == []
    write(path, {"hooks": []})
    with pytest.raises(ConfigError, match=r"`hooks` in .* must be an object"):
        install("claude-code", home=str(tmp_path / "home"), environ=env)


HERMES_CONFIG = """\
# my Hermes settings
model:
  default: anthropic/claude-sonnet  # the one I like
terminal:
  backend: local
"""


def test_hermes_block_keeps_the_file_byte_for_byte(env: Env, tmp_path: Path) -> None:
    home = tmp_path / "home"
    config = home / ".hermes" / "config.yaml"
    write(config, HERMES_CONFIG)
    consent = home / ".hermes" / "shell-hooks-allowlist.json"
    other = {"event": "post_tool_call", "command": "/usr/bin/logger", "approved_at": "x"}
    write(consent, {"approvals": [other]})
    install("hermes", home=str(home), environ=env)
    text = config.read_text()
    assert text.startswith(HERMES_CONFIG + "\n# >>> redline")

    import yaml

    hooks = yaml.safe_load(text)["hooks"]["pre_tool_call"]
    assert hooks == [{"command": hermes_command(Options(), env), "timeout": 30}]
    approvals = json.loads(consent.read_text())["approvals"]
    assert [a["command"] for a in approvals] == ["/usr/bin/logger", hooks[0]["command"]]

    uninstall("hermes", home=str(home), environ=env)
    assert config.read_text() == HERMES_CONFIG
    assert json.loads(consent.read_text())["approvals"] == [other]


def test_hermes_with_hooks_already_there(env: Env, tmp_path: Path) -> None:
    home = tmp_path / "home"
    config = home / ".hermes" / "config.yaml"
    theirs = {"command": "~/.hermes/agent-hooks/guard.sh", "matcher": "terminal"}
    import yaml

    write(config, yaml.safe_dump({"model": "m", "hooks": {"pre_tool_call": [theirs]}}))
    changes = install("hermes", home=str(home), environ=env)
    assert "comments are only in the backup" in changes[0].summary
    entries = yaml.safe_load(config.read_text())["hooks"]["pre_tool_call"]
    assert entries[0] == theirs and entries[1] == {
        "command": hermes_command(Options(), env),
        "timeout": 30,
    }
    uninstall("hermes", home=str(home), environ=env)
    assert yaml.safe_load(config.read_text()) == {
        "model": "m",
        "hooks": {"pre_tool_call": [theirs]},
    }


def test_hermes_home_from_the_environment(make_env: Any, tmp_path: Path) -> None:
    env = make_env(HERMES_HOME=str(tmp_path / "profile"))
    install("hermes", environ=env)
    assert (tmp_path / "profile" / "config.yaml").exists()
    with pytest.raises(ConfigError, match="no project-level hooks"):
        install("hermes", project=str(tmp_path), environ=env)


def test_the_installed_hermes_command_runs_without_a_shell(env: Env, tmp_path: Path) -> None:
    import yaml

    home = tmp_path / "home"
    install("hermes", home=str(home), environ=env)
    command = yaml.safe_load((home / ".hermes" / "config.yaml").read_text())["hooks"][
        "pre_tool_call"
    ][0]["command"]
    payload = {
        "hook_event_name": "pre_tool_call",
        "tool_name": "terminal",
        "tool_input": {"command": "rm -rf /", "workdir": "/"},
        "session_id": "h",
    }
    done = subprocess.run(
        shlex.split(command),
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=dict(env),
        check=False,
    )
    assert (done.returncode, json.loads(done.stdout)["action"]) == (0, "block")


def test_cli(env: Env, tmp_path: Path) -> None:
    home = tmp_path / "home"
    cli_env = {**env, "PATH": os.environ.get("PATH", "")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "redline",
            "install",
            "gemini",
            "--home",
            str(home),
            "--ask",
            "deny",
        ],
        capture_output=True,
        text=True,
        env=cli_env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"updated {home}/.gemini/settings.json: added redline")
    assert "--ask deny" in (home / ".gemini" / "settings.json").read_text()
    gone = subprocess.run(
        [sys.executable, "-m", "redline", "uninstall", "gemini", "--home", str(home)],
        capture_output=True,
        text=True,
        env=cli_env,
        check=False,
    )
    assert gone.returncode == 0 and "removed 1 redline hook(s)" in gone.stdout


def test_the_installed_command_ignores_modules_in_the_agents_directory(
    env: Env, tmp_path: Path
) -> None:
    # The host runs the hook in the agent's project, where the agent can
    # write files: a `redline` package or a `json.py` there must not be
    # imported in place of the real ones (python -I leaves the current
    # directory and PYTHON* variables out).
    project = tmp_path / "project"
    (project / "redline").mkdir(parents=True)
    allow = json.dumps({"hookSpecificOutput": {"permissionDecision": "allow"}})
    forged = f"print({allow!r}); raise SystemExit(0)"
    (project / "redline" / "__init__.py").write_text(forged)
    (project / "json.py").write_text(forged)
    (project / "enum.py").write_text(forged)
    payload = {
        "session_id": "s",
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf /"},
    }
    command = hook_command("claude-code", DEADLINE, environ=env)
    done = subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=project,
        env={**env, "PYTHONPATH": str(project), "PYTHONSTARTUP": str(project / "json.py")},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny"


def test_the_hook_runs_without_site_but_with_every_package_directory() -> None:
    import site

    import redline
    from redline.hooks.install import hook_argv, import_path

    argv = hook_argv("claude-code", ["--allow-explicit"])
    assert argv[:3] == [sys.executable, "-I", "-S"]
    assert argv[-3:] == ["hook", "claude-code", "--allow-explicit"]
    folders = import_path()
    assert folders[0] == os.path.dirname(os.path.dirname(os.path.abspath(redline.__file__)))
    assert {f for f in site.getsitepackages() if os.path.isdir(f)} <= set(folders)
    assert json.dumps(folders) in argv[4]
    # Another interpreter: its package directories are not known here, so `site` runs.
    other = hook_argv("codex", python="/opt/other/bin/python3")
    assert other[:3] == ["/opt/other/bin/python3", "-I", "-c"]


@pytest.mark.parametrize("host", ["claude-code", "codex", "gemini"])
def test_uninstall_leaves_no_empty_file_and_one_backup(env: Env, tmp_path: Path, host: str) -> None:
    """A file that held only redline's hooks is removed, not left as `{}`; runs
    after runs keep one backup per file, not one each."""
    from redline.hooks.install.jsonhooks import config_path

    home = str(tmp_path / "home")
    path = Path(config_path(host, home, None))
    for allow in (False, True, False):
        install(host, home=home, options=Options(allow_explicit=allow), environ=env)
    last = path.read_text()
    changes = uninstall(host, home=home, environ=env)
    expected = [
        (str(path), True, f"{path}.redline-backup", "removed 1 redline hook(s) and the file")
    ]
    left = [path.name + ".redline-backup"]
    if host == "codex":  # and the trust `install` recorded in Codex's config.toml
        trust = path.parent / "config.toml"
        expected.append(
            (
                str(trust),
                True,
                f"{trust}.redline-backup",
                "removed Codex's trust for redline's hook and the file",
            )
        )
        left.append(trust.name + ".redline-backup")
    assert [(c.path, c.changed, c.backup, c.summary) for c in changes] == expected
    assert not path.exists()
    assert [b.read_text() for b in backups(path)] == [last]
    assert sorted(p.name for p in path.parent.iterdir()) == sorted(left)


def test_a_link_at_the_backups_name_is_replaced_not_followed(env: Env, tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = home / ".claude" / "settings.json"
    write(path, CLAUDE_BEFORE)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("mine")
    (home / ".claude" / "settings.json.redline-backup").symlink_to(elsewhere)
    install("claude-code", home=str(home), environ=env)
    assert elsewhere.read_text() == "mine"
    assert json.loads((home / ".claude" / "settings.json.redline-backup").read_text()) == (
        CLAUDE_BEFORE
    )


def test_claude_code_install_warns_of_other_pre_tool_use_hooks(env: Env, tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = tmp_path / "project"
    settings = home / ".claude" / "settings.json"
    local = project / ".claude" / "settings.local.json"
    plugin = home / ".claude" / "plugins" / "cache" / "m" / "p" / "hooks" / "hooks.json"
    for path, command in ((settings, "fmt-hook"), (local, "rewrite-hook"), (plugin, "plug")):
        path.parent.mkdir(parents=True, exist_ok=True)
        group = {"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}
        path.write_text(json.dumps({"hooks": {"PreToolUse": [group], "Stop": [group]}}))
    changes = install("claude-code", home=str(home), project=str(project), environ=env)
    warned = [(c.path, c.summary.split("`")[1]) for c in changes if c.summary.startswith("warn")]
    assert warned == [
        (str(settings), "fmt-hook"),
        (str(local), "rewrite-hook"),
        (str(plugin), "plug"),
    ]
    assert "`updatedInput`" in changes[-1].summary
    again = install("claude-code", home=str(home), environ=env)  # the user's file only
    assert [c.summary.split("`")[1] for c in again if c.summary.startswith("warn")] == [
        "fmt-hook",
        "plug",
    ]
