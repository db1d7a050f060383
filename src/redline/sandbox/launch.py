"""Running one command in the sandbox and passing everything through: its
exit status, stdin/stdout/stderr (inherited as they are), the terminal, and
SIGINT/SIGTERM/SIGHUP/SIGQUIT.

The command runs in a process group of its own. When redline holds the
terminal's foreground, it hands the foreground to that group (as a shell
does for a job) and takes it back after, so Ctrl-C reaches the command and
not redline. A signal sent to redline itself is forwarded to the group.
bubblewrap's own processes ignore these signals (bwrap would otherwise die
and SIGKILL the command); the command gets them back at their defaults
through `env --default-signal`, or a small Python shim where `env` lacks it.
A command stopped by Ctrl-Z stops redline too (the shell sees its job
stop); `fg` resumes both. A command killed by signal N gives 128+N, as a
shell reports it.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Mapping

from redline.sandbox.level import LANDLOCK, NAMESPACES, Level
from redline.sandbox.pids import Bound
from redline.sandbox.plan import Plan

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
_SHIM = (
    "import os, signal, sys\n"
    "for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):\n"
    "    signal.signal(s, signal.SIG_DFL)\n"
    "os.execvp(sys.argv[1], sys.argv[1:])\n"
)


class SandboxFailed(RuntimeError):
    """The sandbox could not be set up; the command did not run."""


@functools.lru_cache(maxsize=1)
def _env_with_default_signal() -> str | None:
    env = shutil.which("env")
    if env is None:
        return None
    probe = subprocess.run(
        [env, "--default-signal=INT", "true"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    return env if probe.returncode == 0 else None


def default_signals(command: list[str]) -> list[str]:
    """`command`, started with the forwarded signals at their defaults."""
    env = _env_with_default_signal()
    if env is not None and "=" not in command[0]:
        return [env, "--default-signal=INT,TERM,HUP,QUIT", *command]
    return [sys.executable, "-c", _SHIM, *command]


def sandboxed_argv(
    command: list[str], plan: Plan, level: Level, seccomp_fd: int | None = None
) -> list[str]:
    if level.name == NAMESPACES and level.bwrap is not None:
        from redline.sandbox.bwrap import argv

        return argv(level.bwrap, plan, default_signals(command), seccomp_fd)
    return command


def _foreground_tty() -> int | None:
    try:
        if os.isatty(0) and os.tcgetpgrp(0) == os.getpgrp():
            return 0
    except OSError:
        pass
    return None


def _give_terminal(fd: int, pgid: int) -> None:
    old = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    try:
        with contextlib.suppress(OSError):
            os.tcsetpgrp(fd, pgid)
    finally:
        signal.signal(signal.SIGTTOU, old)


def launch(
    command: list[str],
    plan: Plan,
    level: Level,
    env: Mapping[str, str],
    bound: Bound,
) -> int:
    """Run `command` under `level` and return its exit status. Raises
    `SandboxFailed` when the sandbox cannot be set up (nothing ran)."""
    from redline.sandbox import seccomp

    ruleset: int | None = None
    filter_bytes = seccomp.program() if seccomp.supported() else None
    seccomp_fd: int | None = None
    if level.name == LANDLOCK:
        from redline.sandbox import landlock

        try:
            ruleset = landlock.build_ruleset(plan, level.landlock_abi)
        except OSError as error:
            raise SandboxFailed(f"the Landlock ruleset cannot be made: {error}") from None
    elif level.name == NAMESPACES and filter_bytes is not None:
        seccomp_fd = seccomp.pipe_with_program()
    tty = _foreground_tty()
    ignore = level.name == NAMESPACES
    # `preexec_fn` (so a fork, not a vfork): this process runs one thread.
    preexec = _child_setup(bound, tty, ignore, ruleset, filter_bytes)
    # Forwarding is in place before the command starts: a signal that comes
    # while it starts is kept and passed on once its process group exists.
    forward = _Forwarder()
    previous = {sig: signal.signal(sig, forward) for sig in FORWARDED}
    try:
        proc = subprocess.Popen(
            sandboxed_argv(command, plan, level, seccomp_fd),
            env=dict(env),
            cwd=plan.cwd,
            process_group=0,
            pass_fds=() if seccomp_fd is None else (seccomp_fd,),
            preexec_fn=preexec,
        )
    except (OSError, subprocess.SubprocessError) as error:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        bound.close()
        raise SandboxFailed(f"the command cannot be started in the sandbox: {error}") from None
    finally:
        for fd in (ruleset, seccomp_fd):
            if fd is not None:
                os.close(fd)
    if tty is not None:
        _give_terminal(tty, proc.pid)
    forward.start(proc.pid)
    try:
        code = _wait(proc, tty)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if tty is not None:
            _give_terminal(tty, os.getpgrp())
        if level.name != NAMESPACES:  # bwrap's PID namespace already ended them
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)
        bound.close()
    return code


def _wait(proc: subprocess.Popen[bytes], tty: int | None) -> int:
    """The command's status. When it is stopped (Ctrl-Z), redline stops too,
    as a shell's job does, and on `fg` gives the terminal back and resumes it."""
    while True:
        _, status = os.waitpid(proc.pid, os.WUNTRACED)
        if os.WIFSTOPPED(status):
            if tty is not None:
                _give_terminal(tty, os.getpgrp())
            os.kill(os.getpid(), signal.SIGSTOP)
            if tty is not None:
                _give_terminal(tty, proc.pid)
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGCONT)
            continue
        code = os.waitstatus_to_exitcode(status)
        proc.returncode = code
        return 128 - code if code < 0 else code


class _Forwarder:
    """A signal handler that passes signals on to the command's process
    group, keeping those that come before the group exists."""

    def __init__(self) -> None:
        self.pgid: int | None = None
        self.early: list[int] = []

    def __call__(self, sig: int, _frame: object) -> None:
        if self.pgid is None:
            self.early.append(sig)
            return
        with contextlib.suppress(OSError):
            os.killpg(self.pgid, sig)

    def start(self, pgid: int) -> None:
        self.pgid = pgid
        for sig in self.early:
            with contextlib.suppress(OSError):
                os.killpg(pgid, sig)
        self.early.clear()


def _child_setup(
    bound: Bound, tty: int | None, ignore: bool, ruleset: int | None, filter_bytes: bytes | None
) -> Callable[[], None]:
    def setup() -> None:
        bound.enter()
        if tty is not None:
            _give_terminal(tty, os.getpgrp())
        if ignore:
            for sig in FORWARDED:
                signal.signal(sig, signal.SIG_IGN)
        if ruleset is not None:
            from redline.sandbox.landlock import enforce

            enforce(ruleset)
            if filter_bytes is not None:
                from redline.sandbox.seccomp import load

                load(filter_bytes)

    return setup
