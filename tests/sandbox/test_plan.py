"""The sandbox's places for a run, bubblewrap's command line, and the level."""

from __future__ import annotations

from pathlib import Path

import pytest

from redline.policy.model import RunSettings
from redline.sandbox import plan as plan_module
from redline.sandbox.bwrap import argv
from redline.sandbox.level import NONE, Level, probe
from redline.sandbox.plan import Plan, make_plan, workspace_of


def make_home(root: Path) -> dict[str, str]:
    home = root / "home"
    for folder in (".ssh", ".aws", ".cache", ".claude"):
        (home / folder).mkdir(parents=True)
    for name in ("id_rsa", "id_rsa.pub", "known_hosts", "config"):
        (home / ".ssh" / name).write_text("x")
    (home / ".netrc").write_text("machine x password y")
    (home / ".claude" / "settings.json").write_text("{}")
    (root / "rl").mkdir()
    repo = root / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text("{}")
    (root / "tmp").mkdir()
    return {"HOME": str(home), "REDLINE_HOME": str(root / "rl")}


def test_the_plan_for_a_run_in_a_git_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = make_home(tmp_path)
    monkeypatch.setattr(plan_module, "_account_home", lambda: env["HOME"])
    home, repo = tmp_path / "home", tmp_path / "repo"
    settings = RunSettings(writable=("~/.gradle", str(tmp_path / "tmp")), network=False)
    plan = make_plan(str(repo / "src"), env, settings, temp_dirs=(), max_procs=64)
    assert plan._replace(sockets=()) == Plan(
        cwd=str(repo / "src"),
        workspace=str(repo),
        writable=(str(repo), str(home / ".cache"), str(tmp_path / "tmp")),
        hidden=(
            (str(home / ".ssh" / "id_rsa"), False),
            (str(home / ".aws"), True),
            (str(home / ".netrc"), False),
            (str(tmp_path / "rl"), True),
        ),
        read_only=(
            str(home / ".claude" / "settings.json"),
            *(str(repo / name) for name in (".claude", ".codex", ".gemini", ".hermes")),
            str(repo / ".git" / "hooks"),
        ),
        network=False,
        max_procs=64,
    )


def test_the_workspace_is_the_cwd_outside_a_repository(tmp_path: Path) -> None:
    assert workspace_of(str(tmp_path)) == str(tmp_path)


def test_bubblewrap_command_line() -> None:
    plan = Plan("/w/src", "/w", ("/w", "/tmp"), (("/h/.aws", True), ("/h/.netrc", False)),
                ("/h/.claude/settings.json",), network=False)  # fmt: skip
    assert argv("/bin/bwrap", plan, ["make", "test"]) == [
        "/bin/bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
        "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
        "--unshare-cgroup-try", "--disable-userns", "--die-with-parent", "--cap-drop", "ALL",
        "--unshare-net",
        "--bind", "/w", "/w", "--bind", "/tmp", "/tmp",
        "--ro-bind", "/h/.claude/settings.json", "/h/.claude/settings.json",
        "--tmpfs", "/h/.aws", "--remount-ro", "/h/.aws",
        "--ro-bind", "/dev/null", "/h/.netrc",
        "--chdir", "/w/src", "--", "make", "test",
    ]  # fmt: skip


def test_forcing_no_sandbox_says_why() -> None:
    assert probe("none") == Level(NONE, "forced to none")


def test_the_accounts_own_home_is_hidden_whatever_home_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = make_home(tmp_path)
    account = tmp_path / "account"
    (account / ".aws").mkdir(parents=True)
    (account / ".redline").mkdir()
    monkeypatch.setattr(plan_module, "_account_home", lambda: str(account))
    hidden = make_plan(str(tmp_path / "repo"), env, temp_dirs=()).hidden
    assert hidden[-2:] == ((str(account / ".aws"), True), (str(account / ".redline"), True))


def test_hidden_paths_are_resolved_through_symlinks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = make_home(tmp_path)
    monkeypatch.setattr(plan_module, "_account_home", lambda: env["HOME"])
    real = tmp_path / "vault"
    real.mkdir()
    (tmp_path / "home" / ".azure").symlink_to(real)
    hidden = make_plan(str(tmp_path / "repo"), env, temp_dirs=()).hidden
    assert (str(real), True) in hidden
