"""The launch an enforcing hook writes itself (`sandbox.direct`): the same
sandbox as `redline run`'s, the exit status and signals passed through, and
nothing runs when a piece of it is missing. Run as the agent's shell runs
it, `bash -c TEXT`; every command here is harmless."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from redline.sandbox import direct
from redline.sandbox.level import NAMESPACES, Level, probe

pytestmark = pytest.mark.skipif(probe().name != NAMESPACES, reason="needs the namespace sandbox")
TIMEOUT_S = 60


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE-KEY-MATERIAL")
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "REDLINE_HOME": str(tmp_path / "redline"),
        "ORDINARY": "plain",
        "DEPLOY_TOKEN": "canary-token",
    }


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    (path / ".git").mkdir(parents=True)
    return path


def shell(text: str, ws: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", text], cwd=ws, env={**env, "LATER_TOKEN": "exported-later"},
        capture_output=True, text=True, timeout=TIMEOUT_S, check=False,
    )  # fmt: skip


def launch(command: str, ws: Path, env: dict[str, str]) -> str:
    text = direct.launch_text(command, str(ws), env)
    assert text is not None
    return text


def test_the_command_runs_sandboxed_with_the_scrubbed_environment(
    ws: Path, env: dict[str, str]
) -> None:
    script = (
        "echo ${ORDINARY:-absent} ${DEPLOY_TOKEN:-absent} ${LATER_TOKEN:-absent} > out; "
        'cat "$HOME/.ssh/id_ed25519" > key 2>/dev/null; '
        "ls /proc | grep -c '^[0-9]' > pids; exit 3"
    )
    done = shell(launch(script, ws, env), ws, env)
    assert done.returncode == 3, done.stderr
    assert (ws / "out").read_text() == "plain absent absent\n"
    assert "PRIVATE" not in (ws / "key").read_text()
    assert int((ws / "pids").read_text()) <= 5  # a PID namespace of its own (bwrap, bash, ls, grep)


def test_a_signal_is_passed_through_as_a_shell_reports_it(ws: Path, env: dict[str, str]) -> None:
    assert shell(launch("kill -TERM $$", ws, env), ws, env).returncode == 128 + 15


def test_nothing_runs_when_the_filter_file_is_gone(ws: Path, env: dict[str, str]) -> None:
    text = launch("touch ran", ws, env)
    os.unlink(direct.seccomp_file(env["REDLINE_HOME"]))
    assert shell(text, ws, env).returncode != 0
    assert not (ws / "ran").exists()


def test_nothing_runs_when_the_cgroup_is_gone(ws: Path, env: dict[str, str]) -> None:
    text = launch("touch ran", ws, env)
    if "echo 0 > " not in text:
        pytest.skip("the process bound here is not a cgroup")
    joined = text.split("echo 0 > ", 1)[1].split(" ", 1)[0]
    assert joined.endswith(("/tasks", "/cgroup.procs"))
    cgroup = os.path.dirname(joined)
    os.rmdir(cgroup)
    assert shell(text, ws, env).returncode != 0
    assert not (ws / "ran").exists()


def test_redline_run_is_used_without_namespaces_or_with_enforce_off(
    ws: Path, env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text("version: 1\nenforce: off\n")
    assert direct.launch_text("true", str(ws), {**env, "REDLINE_POLICY": str(policy)}) is None
    monkeypatch.setattr(direct, "probe", lambda: Level("landlock", "forced"))
    assert direct.launch_text("true", str(ws), env) is None


def test_the_judge_reads_the_command_inside_a_launch() -> None:
    """An agent that copies the launch's shape is judged by what it runs."""
    from redline.command import check_command

    text = "( exec /usr/bin/bwrap --ro-bind / / --clearenv --setenv A B -- bash -c 'rm -rf /' )"
    assert check_command(text).rule_ids == ("fs.delete-root",)
