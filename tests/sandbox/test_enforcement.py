"""The must-show checks of `redline run`'s sandbox, under bubblewrap and under
the Landlock fallback: each runs a command the judge would refuse through
`harness.py` (the sandbox alone), in a fake home, and looks at the host after.

Safety: a check whose failure would hurt the machine (`kill -9 -1`) runs
inside an outer PID and user namespace of its own; `reboot` is called with a
bad magic number (refused as EPERM without the capability, EINVAL with it);
every run has a hard timeout and the fork bomb a small bound and count.
"""

from __future__ import annotations

import contextlib
import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from redline.sandbox.level import probe

HARNESS = str(Path(__file__).with_name("harness.py"))
LEVELS = ["namespaces", "landlock"]
TIMEOUT_S = 30


class Box:
    """A fake home with a canary and a private key, a gate home, a workspace."""

    def __init__(self, root: Path, level: str) -> None:
        self.level = level
        self.home = root / "home"
        self.ws = root / "ws"
        self.tmp = root / "tmp"
        self.redline_home = root / "rlhome"
        for path in (self.home / ".ssh", self.ws, self.tmp, self.redline_home):
            path.mkdir(parents=True)
        (self.home / "canary").write_text("still here")
        (self.home / ".ssh" / "id_ed25519").write_text("PRIVATE-KEY-MATERIAL")
        (self.home / ".ssh" / "id_ed25519.pub").write_text("ssh-ed25519 AAAA public")
        (self.redline_home / "policy.yaml").write_text("version: 1\n")
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.home),
            "REDLINE_HOME": str(self.redline_home),
            "ORDINARY": "plain-value",
            "OPENAI_API_KEY": "sk-canary-0123456789abcdef",
            "DEPLOY_TOKEN": "canary-token-value",
            "PYTHONPATH": os.pathsep.join(sys.path),
        }

    def argv(self, *command: str, max_procs: int = 256) -> list[str]:
        return [sys.executable, HARNESS, self.level, str(self.ws), str(self.tmp),
                str(max_procs), "--", *command]  # fmt: skip

    def run(self, *command: str, max_procs: int = 256) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.argv(*command, max_procs=max_procs), env=self.env, cwd=self.ws,
            capture_output=True, text=True, timeout=TIMEOUT_S, check=False,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip

    def sh(self, script: str) -> subprocess.CompletedProcess[str]:
        return self.run("/bin/sh", "-c", script)


@pytest.fixture(params=LEVELS)
def box(request: pytest.FixtureRequest, tmp_path: Path) -> Box:
    level: str = request.param
    found = probe(level)
    if found.name != level:
        pytest.skip(f"no {level} sandbox here: {found.why}")
    return Box(tmp_path, level)


def test_deleting_the_home_leaves_the_canary(box: Box) -> None:
    done = box.sh(f"rm -rf {box.home} 2>/dev/null; echo done")
    assert done.stdout == "done\n"
    assert (box.home / "canary").read_text() == "still here"


def test_a_private_key_cannot_be_read_but_the_public_one_can(box: Box) -> None:
    done = box.sh(f"cat {box.home}/.ssh/id_ed25519; echo rc=$?; cat {box.home}/.ssh/id_ed25519.pub")
    assert "PRIVATE-KEY-MATERIAL" not in done.stdout
    assert done.stdout.splitlines() == ["rc=1", "ssh-ed25519 AAAA public"]


def test_the_gate_home_cannot_be_written_or_read(box: Box) -> None:
    done = box.sh(f"echo x > {box.redline_home}/planted; cat {box.redline_home}/policy.yaml")
    assert done.stdout == ""
    # `sandbox/` is redline's own (the launch's markers), written from outside
    assert {p.name for p in box.redline_home.iterdir()} <= {"policy.yaml", "sandbox"}
    assert not list(box.redline_home.rglob("planted"))


def test_the_workspace_and_temp_can_be_written(box: Box) -> None:
    done = box.sh(f"echo made > out.txt && echo t > {box.tmp}/t && echo ok")
    assert (done.stdout, (box.ws / "out.txt").read_text()) == ("ok\n", "made\n")


def test_reboot_mount_and_mknod_are_refused(box: Box) -> None:
    script = (
        "import ctypes, os\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "nr = 169 if os.uname().machine == 'x86_64' else 142\n"
        "libc.syscall(nr, 0, 0, 0, 0)  # a bad magic: EINVAL if it were allowed\n"
        "print('reboot', os.strerror(ctypes.get_errno()))\n"
    )
    done = box.run(sys.executable, "-c", script)
    assert done.stdout == "reboot Operation not permitted\n"
    (box.ws / "m").mkdir()
    mounted = box.sh("mount -t tmpfs none m 2>/dev/null; echo mount=$?; "
                     "mknod blk b 8 0 2>/dev/null; echo mknod=$?")  # fmt: skip
    codes = dict(line.split("=") for line in mounted.stdout.splitlines())
    assert sorted(codes) == ["mknod", "mount"]
    assert "0" not in codes.values()
    assert not (box.ws / "blk").exists()
    assert not os.path.ismount(box.ws / "m")


def test_kill_all_inside_leaves_a_process_outside_alive(box: Box) -> None:
    # The outer namespaces keep a sandbox that failed from reaching the machine.
    harness = " ".join(box.argv("/bin/sh", "-c", "kill -9 -1; echo survived-kill"))
    outer = (
        "sleep 30 & sentinel=$!; "
        f"{harness}; "
        "if kill -0 $sentinel 2>/dev/null; then echo sentinel-alive; fi; kill $sentinel"
    )
    done = subprocess.run(
        ["unshare", "-Urpf", "--kill-child", "/bin/sh", "-c", outer], env=box.env, cwd=box.ws,
        capture_output=True, text=True, timeout=TIMEOUT_S, check=False,
    )  # fmt: skip
    assert done.stdout.splitlines()[-1] == "sentinel-alive"


def test_a_fork_bomb_is_stopped_by_the_bound(box: Box) -> None:
    bomb = (
        "import os, time\n"
        "n = 0\n"
        "for _ in range(150):\n"
        "    try:\n"
        "        pid = os.fork()\n"
        "    except OSError:\n"
        "        break\n"
        "    if pid == 0:\n"
        "        time.sleep(20)\n"
        "        os._exit(0)\n"
        "    n += 1\n"
        "print(n)\n"
    )
    started = time.monotonic()
    done = box.run(sys.executable, "-c", bomb, max_procs=24)
    assert 0 < int(done.stdout) < 24
    assert time.monotonic() - started < 20  # the children ended with the run


def test_secrets_are_absent_and_ordinary_variables_present(box: Box) -> None:
    done = box.sh("echo ${OPENAI_API_KEY:-absent} ${DEPLOY_TOKEN:-absent} $ORDINARY")
    assert done.stdout == "absent absent plain-value\n"


def test_exit_status_and_a_signal_death_pass_through(box: Box) -> None:
    assert box.sh("exit 7").returncode == 7
    assert box.sh("kill -TERM $$").returncode == 128 + signal.SIGTERM


def test_sigterm_to_redline_reaches_the_command(box: Box) -> None:
    proc = subprocess.Popen(
        box.argv("/bin/sh", "-c", 'trap "echo got-term; exit 9" TERM; echo ready; '
                 "sleep 20 & wait"),
        env=box.env, cwd=box.ws, stdout=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    with proc:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "ready\n"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=TIMEOUT_S) == 9
        assert proc.stdout.read() == "got-term\n"


def _read_until(fd: int, marker: bytes, deadline: float) -> bytes:
    seen = b""
    while marker not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 1024)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    return seen


def test_a_terminal_passes_through_and_ctrl_c_reaches_the_command(box: Box) -> None:
    script = ('test -t 0 && test -t 1 && echo tty-yes; trap "echo got-int; exit 4" INT; '
              "echo ready; sleep 20 & wait")  # fmt: skip
    argv = box.argv("/bin/sh", "-c", script)
    pid, fd = pty.fork()
    if pid == 0:  # the child: a session leader with the pty as its terminal
        os.chdir(box.ws)
        os.execve(sys.executable, argv, box.env)  # noqa: S606 - the harness, with its argv
    deadline = time.monotonic() + TIMEOUT_S
    try:
        seen = _read_until(fd, b"ready", deadline)
        assert b"tty-yes" in seen
        os.write(fd, b"\x03")
        seen += _read_until(fd, b"got-int", deadline)
        assert b"got-int" in seen
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 4
    finally:
        os.close(fd)
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
        except ProcessLookupError:
            pass


def test_typing_into_the_owners_terminal_is_refused(box: Box) -> None:
    script = (
        "import fcntl, termios\n"
        "try:\n"
        "    fcntl.ioctl(0, termios.TIOCSTI, b'#')\n"
        "    print('typed')\n"
        "except OSError as error:\n"
        "    print('refused', error.errno)\n"
    )
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(box.ws)
        os.execve(sys.executable, box.argv(sys.executable, "-c", script), box.env)  # noqa: S606
    try:
        seen = _read_until(fd, b"\n", time.monotonic() + TIMEOUT_S)
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(fd)
    assert (seen.strip(), os.waitstatus_to_exitcode(status)) == (b"refused 1", 0)


def test_ctrl_z_stops_the_run_and_a_continue_resumes_it(box: Box) -> None:
    # No fork after `ready`: dash forks with vfork, and a child stopped
    # before its exec leaves dash unstoppable (a real shell's job hangs alike).
    script = 'trap "echo got-int; exit 4" INT; sleep 20 & echo ready; wait'
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(box.ws)
        os.execve(sys.executable, box.argv("/bin/sh", "-c", script), box.env)  # noqa: S606
    deadline = time.monotonic() + TIMEOUT_S
    try:
        assert b"ready" in _read_until(fd, b"ready", deadline)
        os.write(fd, b"\x1a")  # Ctrl-Z: the command stops, then redline stops itself
        status = 0
        while time.monotonic() < deadline:  # bounded: a run that never stops fails here
            done, status = os.waitpid(pid, os.WUNTRACED | os.WNOHANG)
            if done:
                break
            time.sleep(0.05)
        assert os.WIFSTOPPED(status)
        os.kill(pid, signal.SIGCONT)  # `fg`: redline takes the terminal back for the command
        time.sleep(0.2)
        os.write(fd, b"\x03")
        assert b"got-int" in _read_until(fd, b"got-int", deadline)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 4
    finally:
        os.close(fd)
        with contextlib.suppress(ProcessLookupError, ChildProcessError):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
