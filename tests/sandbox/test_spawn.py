"""The namespace sandbox's launch spawned before the verdict
(`sandbox.spawn`): it runs nothing until told to, a cancelled one leaves no
process bound behind, and the command gets no descriptor of redline's
beyond stdin, stdout and stderr. Every command here is harmless."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from redline.sandbox import spawn
from redline.sandbox.level import NAMESPACES, probe
from redline.sandbox.pids import RLIMIT, Bound, make_bound
from redline.sandbox.plan import make_plan

LEVEL = probe()
pytestmark = pytest.mark.skipif(LEVEL.name != NAMESPACES, reason="needs the namespace sandbox")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "home").mkdir()
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path / "home"),
        "REDLINE_HOME": str(tmp_path / "redline"),
    }


def test_a_cancelled_launch_runs_nothing_and_removes_its_bound(tmp_path: Path) -> None:
    bound = make_bound(64)
    started = spawn.start(["touch", str(tmp_path / "ran")], LEVEL, bound)
    started.cancel()
    assert not (tmp_path / "ran").exists()
    assert bound.path is None or not os.path.exists(bound.path)
    with pytest.raises(ChildProcessError):
        os.waitpid(started.pid, os.WNOHANG)  # reaped


def test_the_command_gets_only_stdin_stdout_and_stderr(tmp_path: Path, env: dict[str, str]) -> None:
    leaked = os.open(os.devnull, os.O_RDONLY)
    os.set_inheritable(leaked, True)  # as a host's descriptor may be
    try:
        out = tmp_path / "fds"
        command = ["sh", "-c", f"ls /proc/self/fd > {out}; exit 3"]
        started = spawn.start(command, LEVEL, make_bound(64))
        plan = make_plan(str(tmp_path), env, temp_dirs=(str(tmp_path),))
        assert started.run(plan, env) == 3
    finally:
        os.close(leaked)
    # the shell's own `ls` opens one more: the directory it lists
    assert sorted(int(fd) for fd in out.read_text().split()) == [0, 1, 2, 3]


@pytest.mark.parametrize("fd", [spawn.GO_FD, spawn.GATE_FD, spawn.SECCOMP_FD])
def test_no_other_process_can_say_go_or_change_the_options(tmp_path: Path, fd: int) -> None:
    """Another process of the same user (an agent's, outside the sandbox) can
    open a pipe or memory file of the waiting launch through `/proc/PID/fd`:
    say go, or change bwrap's options or filter, before any verdict. The
    launch's descriptors are sockets, which cannot be opened that way."""
    started = spawn.start(["touch", str(tmp_path / "ran")], LEVEL, make_bound(64))
    try:
        if fd == spawn.SECCOMP_FD and not os.path.exists(f"/proc/{started.pid}/fd/{fd}"):
            pytest.skip("no seccomp filter here")
        with pytest.raises(OSError):
            os.open(f"/proc/{started.pid}/fd/{fd}", os.O_WRONLY)
    finally:
        started.cancel()
    assert not (tmp_path / "ran").exists()


def test_the_command_runs_inside_the_runs_cgroup(tmp_path: Path, env: dict[str, str]) -> None:
    """The launch joins through `tasks` on cgroup v1 (one thread moved, no
    grace period): the processes it starts must still count in the cgroup."""
    bound = make_bound(64)
    if bound.path is None:
        pytest.skip("the process bound here is not a cgroup")
    out = tmp_path / "current"
    started = spawn.start(["sh", "-c", f"cat {bound.path}/pids.current > {out}"], LEVEL, bound)
    plan = make_plan(str(tmp_path), env, temp_dirs=(str(tmp_path),))
    assert started.run(plan, env) == 0
    assert int(out.read_text()) >= 3  # bwrap, its init inside, the shell (and `cat`)


def test_an_rlimit_bound_is_set_before_the_command_starts(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """Soft and hard, whatever `/bin/sh` is (dash has no `ulimit -u`)."""
    out = tmp_path / "limits"
    command = ["sh", "-c", f"grep 'Max processes' /proc/self/limits > {out}"]
    started = spawn.start(command, LEVEL, Bound(RLIMIT, 50))
    plan = make_plan(str(tmp_path), env, temp_dirs=(str(tmp_path),))
    assert started.run(plan, env) == 0
    assert out.read_text().split()[2:4] == ["50", "50"]


def test_a_sandbox_built_before_the_verdict_runs_nothing_until_the_last_go(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """`prepare` lets bwrap build the sandbox while the command is judged; the
    gate inside holds the command until `run`, and `cancel` ends it unrun."""
    plan = make_plan(str(tmp_path), env, temp_dirs=(str(tmp_path),))
    refused = spawn.start(["touch", str(tmp_path / "refused")], LEVEL, make_bound(64))
    refused.prepare(plan, env)
    time.sleep(0.3)  # time enough for bwrap to build it and reach the gate
    refused.cancel()
    assert not (tmp_path / "refused").exists()
    allowed = spawn.start(["sh", "-c", f"touch {tmp_path}/allowed; exit 4"], LEVEL, make_bound(64))
    allowed.prepare(plan, env)
    assert allowed.run(plan, env) == 4
    assert (tmp_path / "allowed").exists()


def test_a_sandbox_built_for_other_places_is_never_used(
    tmp_path: Path, env: dict[str, str]
) -> None:
    plan = make_plan(str(tmp_path), env, temp_dirs=(str(tmp_path),))
    other = make_plan(str(tmp_path), env, temp_dirs=(str(tmp_path),), network=False)
    assert other != plan
    started = spawn.start(["touch", str(tmp_path / "ran")], LEVEL, make_bound(64))
    started.prepare(plan, env)
    with pytest.raises(ValueError, match="another plan"):
        started.run(other, env)
    assert not (tmp_path / "ran").exists()
