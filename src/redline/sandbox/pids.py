"""The bound on processes that stops a fork bomb inside the sandbox.

Mechanisms, first that works:

1. `cgroup`: a pids cgroup of the run's own (`pids.max`), made beside the
   cgroup redline runs in, where that is writable (root, or a delegated
   cgroup v2 subtree). It counts every process and thread of the run,
   whatever their user, and the run's leftovers are killed through it.
2. `rlimit`: `RLIMIT_NPROC` when redline does not run as root. It counts the
   user's processes, and the kernel never applies it to root (a user
   namespace does not change that: its root is still the host's uid 0).
3. none: said in the run's enforcement level.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable

from redline.fasttuple import NamedTuple

CGROUP, RLIMIT, NONE = "cgroup", "rlimit", "none"
DEFAULT_MAX_PROCS = 4096
_ROOT = "/sys/fs/cgroup"


class Bound(NamedTuple):
    mechanism: str
    limit: int
    path: str | None = None
    """The run's cgroup directory (`cgroup` only)."""

    def join_file(self) -> str | None:
        """The file a single-threaded process writes `0` into to join the
        cgroup (`cgroup` only). On cgroup v1 it is `tasks`: moving only the
        writing thread skips the wait for an RCU grace period that moving a
        whole process (`cgroup.procs`) costs (~6-14 ms here; Linux 6.0 and
        later). For a process of one thread it is the same move: the process
        and everything it starts after are in the cgroup. cgroup v2 has no
        `tasks`: `cgroup.procs` there."""
        if self.mechanism != CGROUP or self.path is None:
            return None
        tasks = os.path.join(self.path, "tasks")
        return tasks if os.path.exists(tasks) else os.path.join(self.path, "cgroup.procs")

    def enter(self) -> None:
        """In the child before exec (one thread, after the fork): join the
        cgroup, or set the rlimit."""
        join = self.join_file()
        if join is not None:
            with open(join, "w") as file:
                file.write("0")
        elif self.mechanism == RLIMIT:
            import resource

            resource.setrlimit(resource.RLIMIT_NPROC, (self.limit, self.limit))

    def close(self, wait_s: float = 2.0) -> None:
        """Kill what is left of the run in the cgroup and remove it (bounded)."""
        if self.mechanism != CGROUP or self.path is None:
            return
        if _quietly(os.rmdir, self.path):  # usually empty already: the PID namespace ended
            return
        deadline = time.monotonic() + wait_s
        pause = 0.0005  # the sandbox's last processes are usually gone within a millisecond
        while True:
            left = _members(self.path)
            for pid in left:
                _quietly(os.kill, pid, signal.SIGKILL)
            if _quietly(os.rmdir, self.path):
                return
            if time.monotonic() > deadline:
                return
            time.sleep(pause)
            pause = min(pause * 2, 0.01)


def _quietly(call: Callable[..., object], *args: object) -> bool:
    """`call(*args)`; False when it raised `OSError` (not `contextlib`, which
    a run's start does not load)."""
    try:
        call(*args)
    except OSError:
        return False
    return True


def _members(path: str) -> list[int]:
    try:
        with open(os.path.join(path, "cgroup.procs")) as file:
            return [int(line) for line in file if line.strip()]
    except (OSError, ValueError):
        return []


def _own_cgroup_dirs() -> list[str]:
    """Candidate parents: the pids hierarchy (v1), else the unified one (v2)."""
    try:
        with open("/proc/self/cgroup") as file:
            lines = file.read().splitlines()
    except OSError:
        return []
    out: list[str] = []
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "pids" in controllers.split(","):
            out.append(os.path.join(_ROOT, "pids", path.lstrip("/")))
    for line in lines:
        if line.startswith("0::"):
            out.append(os.path.join(_ROOT, line[3:].lstrip("/")))
    return out


PREFIX = "redline-run-"


def sweep(older_than_s: float = 600.0, most: int = 64) -> None:
    """Remove the runs' cgroups that were left behind, empty, by launches a
    hook wrote (`sandbox.direct`: nobody waits for those to end) and by a
    `redline run` killed before its launch went (`sandbox.spawn`). A cgroup
    made less than `older_than_s` ago may be about to be joined: kept."""
    now = time.time()
    for parent in _own_cgroup_dirs():
        try:
            names = [n for n in os.listdir(parent) if n.startswith(PREFIX)][:most]
        except OSError:
            continue
        for name in names:
            path = os.path.join(parent, name)
            try:
                stale = os.stat(path).st_mtime < now - older_than_s
            except OSError:
                continue
            if stale and not _members(path):
                _quietly(os.rmdir, path)


def make_bound(limit: int, name: str | None = None) -> Bound:
    """The bound for one run: a fresh cgroup, else an rlimit, else none."""
    name = name or f"{PREFIX}{os.getpid()}-{time.monotonic_ns()}"
    for parent in _own_cgroup_dirs():
        path = os.path.join(parent, name)
        try:
            os.mkdir(path, 0o755)
        except OSError:
            continue
        try:
            with open(os.path.join(path, "pids.max"), "w") as file:
                file.write(str(limit))
        except OSError:
            _quietly(os.rmdir, path)
            continue
        return Bound(CGROUP, limit, path)
    if os.geteuid() != 0:
        return Bound(RLIMIT, limit)
    return Bound(NONE, limit)
