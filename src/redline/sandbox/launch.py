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

import os
import signal
import sys
from collections.abc import Callable, Mapping

from redline.sandbox.level import LANDLOCK, NAMESPACES
from redline.sandbox.programs import env_with_default_signal

TYPE_CHECKING = False  # `plan` loads the policy's model: not before a run's launch is spawned
if TYPE_CHECKING:
    from redline.sandbox.level import Level
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


def default_signals(command: list[str]) -> list[str]:
    """`command`, started with the forwarded signals at their defaults."""
    env = env_with_default_signal()
    if env is not None and "=" not in command[0]:
        return [env, "--default-signal=INT,TERM,HUP,QUIT", "--", *command]
    return [sys.executable, "-c", _SHIM, *command]


def sandboxed_argv(
    command: list[str], plan: Plan, level: Level, seccomp_fd: int | None = None
) -> list[str]:
    if level.name == NAMESPACES and level.bwrap is not None:
        from redline.sandbox.bwrap import argv

        return argv(level.bwrap, plan, default_signals(command), seccomp_fd)
    return command


def foreground_tty() -> int | None:
    """0 when redline holds the terminal's foreground (it hands it over)."""
    try:
        if os.isatty(0) and os.tcgetpgrp(0) == os.getpgrp():
            return 0
    except OSError:
        pass
    return None


def give_terminal(fd: int, pgid: int) -> None:
    old = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    try:
        os.tcsetpgrp(fd, pgid)
    except OSError:
        return
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
    if level.name == NAMESPACES and level.bwrap is not None:
        from redline.sandbox import spawn

        return spawn.start(command, level, bound).run(plan, env)
    return _launch_forked(command, plan, level, env, bound)


def _launch_forked(
    command: list[str], plan: Plan, level: Level, env: Mapping[str, str], bound: Bound
) -> int:
    """Landlock, or no kernel sandbox: the child sets itself up between fork
    and exec (the ruleset, the filter, the bound, the terminal)."""
    import subprocess

    from redline.sandbox import seccomp

    ruleset: int | None = None
    filter_bytes = seccomp.program() if seccomp.supported() else None
    if level.name == LANDLOCK:
        from redline.sandbox import landlock

        try:
            ruleset = landlock.build_ruleset(plan, level.landlock_abi)
        except OSError as error:
            raise SandboxFailed(f"the Landlock ruleset cannot be made: {error}") from None
    tty = foreground_tty()
    # `preexec_fn` (so a fork, not a vfork): this process runs one thread.
    preexec = _child_setup(bound, tty, ruleset, filter_bytes)
    # Forwarding is in place before the command starts: a signal that comes
    # while it starts is kept and passed on once its process group exists.
    forward = Forwarder()
    previous = {sig: signal.signal(sig, forward) for sig in FORWARDED}
    try:
        proc = subprocess.Popen(
            command,
            env=dict(env),
            cwd=plan.cwd,
            process_group=0,
            preexec_fn=preexec,
        )
    except (OSError, subprocess.SubprocessError) as error:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        bound.close()
        raise SandboxFailed(f"the command cannot be started in the sandbox: {error}") from None
    finally:
        if ruleset is not None:
            os.close(ruleset)
    if tty is not None:
        give_terminal(tty, proc.pid)
    forward.start(proc.pid)
    try:
        code = wait(proc.pid, tty)
        proc.returncode = code
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if tty is not None:
            give_terminal(tty, os.getpgrp())
        signal_group(proc.pid, signal.SIGKILL)  # no PID namespace here to end the leftovers
        bound.close()
    return code


def signal_group(pgid: int, sig: int) -> bool:
    """Send `sig` to a process group; False when it is gone. (Not
    `contextlib.suppress`: `contextlib` is not loaded on a run's start.)"""
    try:
        os.killpg(pgid, sig)
    except OSError:
        return False
    return True


def wait(pid: int, tty: int | None) -> int:
    """The command's status. When it is stopped (Ctrl-Z), redline stops too,
    as a shell's job does, and on `fg` gives the terminal back and resumes it."""
    while True:
        _, status = os.waitpid(pid, os.WUNTRACED)
        if os.WIFSTOPPED(status):
            if tty is not None:
                give_terminal(tty, os.getpgrp())
            os.kill(os.getpid(), signal.SIGSTOP)
            if tty is not None:
                give_terminal(tty, pid)
            signal_group(pid, signal.SIGCONT)
            continue
        code = os.waitstatus_to_exitcode(status)
        return 128 - code if code < 0 else code


class Forwarder:
    """A signal handler that passes signals on to the command's process
    group, keeping those that come before the group exists."""

    def __init__(self) -> None:
        self.pgid: int | None = None
        self.early: list[int] = []

    def __call__(self, sig: int, _frame: object) -> None:
        if self.pgid is None:
            self.early.append(sig)
            return
        signal_group(self.pgid, sig)

    def start(self, pgid: int) -> None:
        self.pgid = pgid
        for sig in self.early:
            signal_group(pgid, sig)
        self.early.clear()


def _child_setup(
    bound: Bound, tty: int | None, ruleset: int | None, filter_bytes: bytes | None
) -> Callable[[], None]:
    def setup() -> None:
        bound.enter()
        if tty is not None:
            give_terminal(tty, os.getpgrp())
        if ruleset is not None:
            from redline.sandbox.landlock import enforce

            enforce(ruleset)
            if filter_bytes is not None:
                from redline.sandbox.seccomp import load

                load(filter_bytes)

    return setup
