"""The namespace sandbox's launch, started before the verdict (issue #14,
latency): the process that will become bwrap is spawned while redline is
still loading and judging, does the slow part of its setup then, and waits.

Joining the run's pids cgroup moves a process between cgroups, and on cgroup
v2 without `favordynmods` (and v1 through `cgroup.procs`) the kernel waits
for an RCU grace period to do that: ~10 ms here, as long as the rest of the
launch. Python's `preexec_fn` would also make it a fork of the whole
interpreter with Python running in the child. Instead, `start` spawns a small shell (`posix_spawn`,
no Python in the child) in a process group of its own, which

1. ignores SIGINT/SIGTERM/SIGHUP/SIGQUIT (bwrap inherits that; the command
   gets them back at their defaults through `env --default-signal`),
2. joins the run's cgroup (`Bound.join_file`: on cgroup v1 its `tasks`, as
   the shell runs one thread), while for the rlimit bound redline sets the
   shell's `RLIMIT_NPROC` itself (`prlimit`: `ulimit -u` is not `/bin/sh`'s
   option everywhere; dash calls it `-p`), and
3. waits for the line `go` on descriptor 4; on anything else (redline
   refused the command, failed, or died: end of file) it exits 125 and
   nothing runs;
4. then becomes `bwrap --args 4 -- sh GATE COMMAND`: bwrap reads its
   options (the plan's binds, the scrubbed environment, `--seccomp 9`,
   `--chdir`) from the rest of descriptor 4, which redline writes after
   `go` and then ends, and builds the sandbox;
5. inside it, the gate (a shell, `GATE`) waits for a second `go` on
   descriptor 5, closes it and only then becomes the command (through `env
   --default-signal`); on anything else it exits 125 and the command never
   starts.

Two steps, so the sandbox can be built while the command is judged
(`prepare`, the first go: only the places and the environment need be
known, which a run judged by the service knows before the verdict), and the
command released once the verdict is logged and verified (`run`, the second
go). Nothing of the command runs before the second go: the gate is
redline's own few lines, and the command's argv is fixed when the shell
starts.

Descriptors 4, 5 and 9 are ends of socket pairs, not pipes or memory files:
any process of the same user can open another's pipe or memory file through
`/proc/PID/fd/N` (and so say go, or change bwrap's options or filter, before
any verdict); a socket cannot be opened that way.

The command, its argv fixed when the shell starts, is what redline judges;
the options depend on the policy, so they come after it. `run` hands over
the terminal, says the last go, forwards signals and waits, as `launch`
does.
"""

from __future__ import annotations

import fcntl
import os
import signal
from collections.abc import Mapping, Sequence

from redline.sandbox.launch import (
    FORWARDED,
    Forwarder,
    SandboxFailed,
    default_signals,
    foreground_tty,
    give_terminal,
    signal_group,
    wait,
)
from redline.sandbox.level import NAMESPACES, probe
from redline.sandbox.pids import RLIMIT, Bound, sweep
from redline.sandbox.programs import shell_argv

TYPE_CHECKING = False  # a run spawns this before loading the judge: only what it needs
if TYPE_CHECKING:
    from redline.sandbox.level import Level
    from redline.sandbox.plan import Plan

GO_FD, GATE_FD, SECCOMP_FD = 4, 5, 9
SHELL = "/bin/sh"
# Inside the sandbox: the command starts on the second go only.
GATE = 'IFS= read -r go <&5 || exit 125\n[ "$go" = go ] || exit 125\nexec 5<&-\nexec "$@"\n'
# $1: the cgroup's file to join (`Bound.join_file`) or empty; then bwrap's argv.
SCRIPT = (
    "trap '' INT TERM HUP QUIT\n"
    '[ -z "$1" ] || echo 0 > "$1" || exit 125\n'
    "IFS= read -r go <&4 || exit 125\n"
    '[ "$go" = go ] || exit 125\n'
    "shift\n"
    'exec "$@"\n'
)
FAILED = 125


def _high(fd: int) -> int:
    """A close-on-exec copy of `fd` above the descriptors the child gets, so
    no `dup2` of the spawn overwrites another's source."""
    try:
        return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    finally:
        os.close(fd)


class Started:
    """A launch waiting for `run` (go) or `cancel`; one of the two must follow.
    `prepare` may come first: the sandbox is built, the command still waits."""

    def __init__(
        self, pid: int, bound: Bound, go: int, gate: int, command: list[str], filtered: bool
    ) -> None:
        self.pid = pid
        self.bound = bound
        self.command = command
        self.filtered = filtered
        self._go: int | None = go
        self._gate: int | None = gate
        self.built: tuple[Plan, dict[str, str]] | None = None
        """The plan and environment the sandbox was built with (`prepare`)."""
        self.built_for: tuple[object, ...] | None = None
        """What the plan was made from (`sandbox.run.execute` compares it)."""

    def prepare(
        self, plan: Plan, env: Mapping[str, str], made_from: tuple[object, ...] | None = None
    ) -> None:
        """Build the sandbox: bwrap's options, and the first go. The command
        does not start. Raises `SandboxFailed` when the launch is gone."""
        from redline.sandbox.bwrap import options

        go, self._go = self._go, None
        if go is None:
            raise SandboxFailed("the sandbox's launch is gone (ended, or prepared once already)")
        words = options(plan, SECCOMP_FD if self.filtered else None, env)
        data = b"".join(os.fsencode(word) + b"\0" for word in words)
        try:
            _write_all(go, b"go\n" + data)  # the shell reads the line, bwrap the rest
        except OSError as error:
            self.cancel()
            raise SandboxFailed(f"the sandbox's launch is gone: {error}") from None
        finally:
            os.close(go)  # the end of bwrap's options
        self.built = (plan, dict(env))
        self.built_for = made_from

    def run(self, plan: Plan, env: Mapping[str, str]) -> int:
        """Build the sandbox (unless `prepare` did), say the last go, and pass
        everything through until the command ends: its exit status. Raises
        `SandboxFailed` when the waiting launch is gone (nothing ran)."""
        if self.built is None:
            self.prepare(plan, env)
        elif self.built != (plan, dict(env)):
            self.cancel()
            raise ValueError("the sandbox was built for another plan")
        gate, self._gate = self._gate, None
        if gate is None:
            raise ValueError("a launch runs once")
        tty = foreground_tty()
        forward = Forwarder()
        previous = {sig: signal.signal(sig, forward) for sig in FORWARDED}
        try:
            try:
                if tty is not None:  # before go: the command starts in the foreground
                    give_terminal(tty, self.pid)
                _write_all(gate, b"go\n")
            except OSError as error:
                self._end()
                raise SandboxFailed(f"the sandbox's launch is gone: {error}") from None
            finally:
                os.close(gate)
            forward.start(self.pid)
            sweep()  # bounds left by launches whose redline died before go; while it starts
            return wait(self.pid, tty)
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            if tty is not None:
                give_terminal(tty, os.getpgrp())
            self.bound.close()

    def cancel(self) -> None:
        """Nothing runs: the waiting launch is ended and the bound removed."""
        if self._gate is None:
            return
        for fd in (self._go, self._gate):
            if fd is not None:
                os.close(fd)
        self._go = self._gate = None
        self._end()
        self.bound.close()

    def _end(self) -> None:
        """The waiting shell (its own process group) killed and reaped."""
        signal_group(self.pid, signal.SIGKILL)
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            return


def _closes(keep: set[int | None]) -> list[tuple[int, ...]]:
    """Close every other descriptor redline could pass on (as `Popen`'s
    `close_fds` does): the command gets stdin, stdout and stderr only."""
    try:
        names = os.listdir("/proc/self/fd")
    except OSError as error:
        raise SandboxFailed(f"the open descriptors cannot be listed: {error}") from None
    actions: list[tuple[int, ...]] = []
    for name in names:
        fd = int(name)
        if fd > 2 and fd not in keep:
            try:
                inherited = os.get_inheritable(fd)
            except OSError:  # the listing's own descriptor, closed by now
                continue
            if inherited:
                actions.append((os.POSIX_SPAWN_CLOSE, fd))
    return actions


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def start(command: list[str], level: Level, bound: Bound) -> Started:
    """Spawn the launch of `command` under the namespace sandbox, waiting for
    go. Raises `SandboxFailed` (the bound is removed) when it cannot start."""
    from redline.sandbox import seccomp

    if level.bwrap is None:
        raise ValueError("the namespace sandbox needs bwrap")
    join = bound.join_file() or ""
    go_read = go_write = gate_read = gate_write = filter_read = None
    try:
        go_read, go_write = (_high(end) for end in seccomp.socket_pair())
        gate_read, gate_write = (_high(end) for end in seccomp.socket_pair())
        actions: list[tuple[int, ...]] = [
            (os.POSIX_SPAWN_DUP2, go_read, GO_FD),
            (os.POSIX_SPAWN_DUP2, gate_read, GATE_FD),
        ]
        bwrap = [level.bwrap, "--args", str(GO_FD)]
        if seccomp.supported():
            filter_read = _high(seccomp.pipe_with_program())
            actions.append((os.POSIX_SPAWN_DUP2, filter_read, SECCOMP_FD))
        actions += _closes(keep={go_read, go_write, gate_read, gate_write, filter_read})
        inside = [SHELL, "-c", GATE, "redline-gate", *default_signals(command)]
        argv = [SHELL, "-c", SCRIPT, "redline-launch", join, *bwrap, "--", *inside]
        pid = os.posix_spawn(
            SHELL,
            argv,
            {"PATH": os.defpath},
            file_actions=actions,
            setpgroup=0,
            setsigmask=(),
            setsigdef=(signal.SIGPIPE, signal.SIGXFSZ),  # Python ignores these
        )
    except OSError as error:
        for fd in (go_write, gate_write):
            if fd is not None:
                os.close(fd)
        bound.close()
        raise SandboxFailed(f"the command cannot be started in the sandbox: {error}") from None
    finally:
        for fd in (go_read, gate_read, filter_read):
            if fd is not None:
                os.close(fd)
    started = Started(pid, bound, go_write, gate_write, command, filter_read is not None)
    if bound.mechanism == RLIMIT:
        _bound_nproc(started, bound.limit)
    return started


def _bound_nproc(started: Started, limit: int) -> None:
    """The waiting shell's `RLIMIT_NPROC`, soft and hard (so nothing inside can
    raise it), set before go: bwrap and the command inherit it. Raises
    `SandboxFailed` (the launch ended) when it cannot be set."""
    import resource

    try:
        resource.prlimit(started.pid, resource.RLIMIT_NPROC, (limit, limit))
    except OSError as error:
        started.cancel()
        raise SandboxFailed(f"the process bound cannot be set: {error}") from None


def start_early(
    command: Sequence[str] | str, force_level: str | None, max_procs: int
) -> tuple[Level, Started | None]:
    """The sandbox level, and where it is the namespace sandbox, the launch
    of `command` spawned already (`sandbox.spawn`): its slow setup (joining
    the process bound) then overlaps the judging. It runs nothing until
    `sandbox.run.execute` says go; `Started.cancel` ends it."""
    from redline.sandbox.pids import make_bound

    level = probe(force_level)
    if level.name != NAMESPACES or level.bwrap is None:
        return level, None
    argv = shell_argv(command) if isinstance(command, str) else list(command)
    try:
        return level, start(argv, level, make_bound(max_procs))
    except SandboxFailed:  # `execute` tries again, and says why if it fails
        return level, None
