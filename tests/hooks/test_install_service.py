"""`redline install AGENT --service`: the hook asks the service with its key
pinned, the agent waits longer than a held call can, and `uninstall` takes
exactly that back out of existing config files."""

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

from redline.approve.client import GRACE_S
from redline.approve.defaults import HOLD_TIMEOUT_S
from redline.approve.install_secrets import hook_token_path, read_hook_token
from redline.approve.paths import ServicePaths
from redline.approve.signing import Signer, encode_public
from redline.hooks.install import Options, hook_command, install, uninstall
from redline.hooks.install.files import ConfigError

THEIRS = {"type": "command", "command": "/usr/local/bin/audit-bash.sh", "timeout": 5}
SERVICE = Options(service=True)
BEFORE: dict[str, tuple[str, dict[str, Any]]] = {
    "claude-code": (
        ".claude/settings.json",
        {"model": "opus", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [THEIRS]}]}},
    ),
    "codex": (".codex/hooks.json", {"hooks": {"PreToolUse": [{"hooks": [THEIRS]}]}}),
    "gemini": (
        ".gemini/settings.json",
        {"theme": "GitHub", "hooks": {"BeforeTool": [{"matcher": "x", "hooks": [THEIRS]}]}},
    ),
}
EVENT = {"claude-code": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool"}
UNIT = {"claude-code": 1, "codex": 1, "gemini": 1000}


def service_key(env: Env) -> str:
    """Start-of-service key material, as `redline serve` leaves it."""
    signer = Signer.load_or_create(ServicePaths(env["REDLINE_HOME"]))
    return encode_public(signer.public_raw)


def ours(data: dict[str, Any], event: str) -> list[dict[str, Any]]:
    return [
        h for g in data["hooks"][event] for h in g["hooks"] if "redline.__main__" in h["command"]
    ]


def test_the_host_timeout_outlasts_the_hold_and_the_grace() -> None:
    assert SERVICE.timeout_s() == 300 > HOLD_TIMEOUT_S + GRACE_S
    assert Options(service=True, hold_timeout_s=600).timeout_s() == 660
    assert Options().timeout_s() == 30  # a local hook decides at once
    with pytest.raises(ConfigError, match="positive"):
        Options(service=True, hold_timeout_s=0).timeout_s()


@pytest.mark.parametrize("host", sorted(BEFORE))
def test_json_hosts_round_trip_with_the_key_pinned(host: str, env: Env, tmp_path: Path) -> None:
    key = service_key(env)
    relative, before = BEFORE[host]
    path = tmp_path / "home" / relative
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(before, indent=4))
    install(host, home=str(tmp_path / "home"), options=SERVICE, environ=env)
    data = json.loads(path.read_text())
    [handler] = ours(data, EVENT[host])
    flags = ["--service", "--service-key", key, "--deadline", "295"]
    assert handler["command"] == hook_command(host, flags, environ=env)
    assert handler["timeout"] == 300 * UNIT[host]
    assert data["hooks"][EVENT[host]][0] == before["hooks"][EVENT[host]][0]  # theirs kept

    uninstall(host, home=str(tmp_path / "home"), environ=env)
    assert json.loads(path.read_text()) == before


def test_a_local_install_is_replaced_by_the_service_one_and_back(env: Env, tmp_path: Path) -> None:
    service_key(env)
    home = str(tmp_path / "home")
    path = tmp_path / "home" / ".claude" / "settings.json"
    install("claude-code", home=home, environ=env)
    install("claude-code", home=home, options=SERVICE._replace(hold_timeout_s=900), environ=env)
    [handler] = ours(json.loads(path.read_text()), "PreToolUse")
    assert "--service" in handler["command"] and handler["timeout"] == 960
    install("claude-code", home=home, environ=env)
    [handler] = ours(json.loads(path.read_text()), "PreToolUse")
    assert "--service" not in handler["command"] and handler["timeout"] == 30


def test_post_tool_use_also_goes_to_the_service(env: Env, tmp_path: Path) -> None:
    key = service_key(env)
    options = SERVICE._replace(record_outcomes=True)
    install("codex", home=str(tmp_path / "home"), options=options, environ=env)
    data = json.loads((tmp_path / "home" / ".codex" / "hooks.json").read_text())
    [after] = ours(data, "PostToolUse")
    assert after["command"] == hook_command(
        "codex", ["--service", "--service-key", key, "--deadline", "295"], environ=env
    )


def test_hermes_round_trip_keeps_the_file_byte_for_byte(env: Env, tmp_path: Path) -> None:
    import yaml

    key = service_key(env)
    config = tmp_path / "home" / ".hermes" / "config.yaml"
    config.parent.mkdir(parents=True)
    original = "# my profile\nmodel: m  # the model\n"
    config.write_text(original)
    install("hermes", home=str(tmp_path / "home"), options=SERVICE, environ=env)
    [entry] = yaml.safe_load(config.read_text())["hooks"]["pre_tool_call"]
    assert set(entry) == {"command", "timeout"} and entry["timeout"] == 300
    assert f"--service --service-key {key}" in shlex.split(entry["command"])[2]
    consent = json.loads((config.parent / "shell-hooks-allowlist.json").read_text())
    assert [a["command"] for a in consent["approvals"]] == [entry["command"]]

    uninstall("hermes", home=str(tmp_path / "home"), environ=env)
    assert config.read_text() == original
    consent = json.loads((config.parent / "shell-hooks-allowlist.json").read_text())
    assert consent["approvals"] == []


def test_before_the_service_made_a_key_the_hook_reads_it_at_run_time(
    env: Env, tmp_path: Path
) -> None:
    install("gemini", home=str(tmp_path / "home"), options=SERVICE, environ=env)
    data = json.loads((tmp_path / "home" / ".gemini" / "settings.json").read_text())
    [handler] = ours(data, "BeforeTool")
    flags = ["--service", "--deadline", "295"]
    assert handler["command"] == hook_command("gemini", flags, environ=env)


def test_an_unusable_key_file_or_defer_ask_is_refused(env: Env, tmp_path: Path) -> None:
    paths = ServicePaths(env["REDLINE_HOME"])
    paths.prepare()
    Path(paths.public_key).write_text("not a key\n")
    with pytest.raises(ConfigError, match="cannot be used"):
        install("claude-code", home=str(tmp_path / "home"), options=SERVICE, environ=env)
    with pytest.raises(ConfigError, match="--defer-ask"):
        options = SERVICE._replace(defer_ask=True, service_key="a" * 44)
        install("codex", home=str(tmp_path / "home"), options=options, environ=env)
    assert not (tmp_path / "home" / ".claude").exists()


def test_the_installed_command_asks_the_service_and_fails_closed(env: Env, tmp_path: Path) -> None:
    service_key(env)  # a pinned key, but no service listening
    home = tmp_path / "home"
    install("claude-code", home=str(home), options=SERVICE, environ=env)
    [handler] = ours(json.loads((home / ".claude" / "settings.json").read_text()), "PreToolUse")
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "session_id": "s",
        "cwd": str(tmp_path),
    }
    done = subprocess.run(
        ["/bin/sh", "-c", handler["command"]],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=dict(env),
        check=False,
    )
    assert "gate-unreachable" in done.stdout + done.stderr
    assert '"allow"' not in done.stdout


def test_cli_prints_the_pinned_key_and_the_timeout(env: Env, tmp_path: Path) -> None:
    service_key(env)
    signer = Signer.load_or_create(ServicePaths(env["REDLINE_HOME"]))
    home = tmp_path / "home"
    cli_env = {**env, "PATH": os.environ.get("PATH", "")}
    command = [sys.executable, "-m", "redline", "install", "gemini", "--home", str(home)]
    done = subprocess.run(
        [*command, "--service", "--hold-timeout", "120"],
        capture_output=True,
        text=True,
        env=cli_env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert f"trusts only key {signer.key_id}" in done.stdout
    assert "the agent lets the hook run 180 s (held calls wait 120 s)" in done.stdout
    wrong = subprocess.run(
        [*command, "--hold-timeout", "120"],
        capture_output=True,
        text=True,
        env=cli_env,
        check=False,
    )
    assert wrong.returncode != 0 and "go with --service" in wrong.stderr


def test_install_writes_the_hook_token_owner_only_and_never_on_the_command_line(
    env: Env, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    install("claude-code", home=str(home), options=SERVICE, environ=env)
    paths = ServicePaths(env["REDLINE_HOME"])
    token_file = Path(hook_token_path(paths))
    token = read_hook_token(paths)
    assert token is not None and len(token) == 43
    assert (token_file.stat().st_mode & 0o777, Path(paths.owner_dir).stat().st_mode & 0o777) == (
        0o600,
        0o700,
    )
    settings = (home / ".claude" / "settings.json").read_text()
    assert token not in settings
    # Installed again (another agent, or the same one), the token stays the same.
    install("codex", home=str(home), options=SERVICE, environ=env)
    assert read_hook_token(paths) == token


def test_a_local_install_makes_no_hook_token(env: Env, tmp_path: Path) -> None:
    install("claude-code", home=str(tmp_path / "home"), environ=env)
    assert read_hook_token(ServicePaths(env["REDLINE_HOME"])) is None
