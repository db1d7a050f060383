"""The fallback sandbox where user namespaces are not available: Landlock,
through the kernel's own system calls (no extra dependency).

Landlock only ever grants: a ruleset lists what may be done beneath which
directories, and everything else it handles is refused. So the ruleset here
grants writing beneath the plan's writable places, and reading everywhere
except the hidden paths, by granting every sibling on the way down to each
hidden path and never the path itself (a directory on that way can be
entered but not listed). From ABI 6 on, signals to processes outside the
sandbox and connections to their abstract Unix sockets are refused too. A
path socket (tmux's, the SSH agent's) is not a thing Landlock can refuse a
`connect` to: only their variables are removed (`secrets`). Applied in the
child between fork and exec, with every capability dropped (`no_new_privs`, an empty bounding set).

What it cannot do (the namespace sandbox can): give a private PID
namespace (`ps` shows the host's processes), a minimal `/dev`, or end the
command's background children with it (the run kills them by process
bound instead); before ABI 6, a `kill -1` reaches the owner's processes.
"""

from __future__ import annotations

import ctypes
import os
import struct
from collections.abc import Iterable

from redline.sandbox.plan import Plan

# System call numbers: the same on x86_64 and aarch64 (the generic table).
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_VERSION = 1 << 0  # LANDLOCK_CREATE_RULESET_VERSION
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS, _PR_CAPBSET_DROP = 38, 24
_SCOPE_ABSTRACT_UNIX, _SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_WRITE_DIR = sum(1 << bit for bit in range(4, 13))  # remove, make char/dir/reg/sock/fifo/block/sym
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_FILE_ONLY = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def abi_version() -> int:
    """The Landlock ABI the kernel reports; 0 when it has none (or it is off)."""
    try:
        version = int(_libc.syscall(_CREATE_RULESET, None, 0, _VERSION))
    except OSError:
        return 0
    return max(version, 0)


def handled_access(abi: int) -> int:
    access = EXECUTE | WRITE_FILE | READ_FILE | READ_DIR | _WRITE_DIR
    if abi >= 2:
        access |= REFER
    if abi >= 3:
        access |= TRUNCATE
    if abi >= 5:
        access |= IOCTL_DEV
    return access


READ = EXECUTE | READ_FILE | READ_DIR


def rules(plan: Plan) -> list[tuple[str, int]]:
    """(path, granted access) pairs: read everywhere but the hidden paths,
    everything beneath the writable places (but the hidden paths) and the
    terminal devices."""
    everything = -1  # masked by what the ABI handles
    hidden = [os.path.normpath(path) for path, _ in plan.hidden]
    out = list(_around("/", hidden, READ))
    for path in (*plan.writable, "/dev/null", "/dev/zero", "/dev/tty", "/dev/pts", "/dev/ptmx"):
        if os.path.lexists(path) and not any(_under(path, h) for h in hidden):
            out.extend(_around(path, hidden, everything))
    return out


def _around(start: str, hidden: list[str], access: int) -> Iterable[tuple[str, int]]:
    """`access` beneath `start`, but not to the hidden paths: each entry on
    the way down to one is granted instead of the directory holding it."""
    if not any(_under(h, start) for h in hidden):
        yield start, access
        return
    pending = [start]
    while pending:
        directory = pending.pop()
        try:
            names = os.listdir(directory)
        except OSError:
            continue
        for name in names:
            path = os.path.join(directory, name)
            if path in hidden:
                continue
            if any(_under(h, path) for h in hidden):
                if os.path.isdir(path) and not os.path.islink(path):
                    pending.append(path)
                continue
            yield path, access


def _under(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent.rstrip("/") + "/")


class LandlockError(OSError):
    pass


def _check(result: int, what: str) -> int:
    if result < 0:
        errno = ctypes.get_errno()
        raise LandlockError(errno, f"landlock {what}: {os.strerror(errno)}")
    return result


def build_ruleset(plan: Plan, abi: int) -> int:
    """A ruleset file descriptor for `plan` (made in the parent: the child
    only has to enforce it)."""
    handled = handled_access(abi)
    # From ABI 6: no signal and no abstract Unix socket (X11's, some buses')
    # reaches a process outside the sandbox.
    scoped = _SCOPE_SIGNAL | _SCOPE_ABSTRACT_UNIX if abi >= 6 else 0
    if abi >= 6:
        attr = struct.pack("QQQ", handled, 0, scoped)
    elif abi >= 4:
        attr = struct.pack("QQ", handled, 0)
    else:
        attr = struct.pack("Q", handled)
    buffer = ctypes.create_string_buffer(attr, len(attr))
    fd = _check(int(_libc.syscall(_CREATE_RULESET, buffer, len(attr), 0)), "create_ruleset")
    try:
        for path, access in rules(plan):
            _add_rule(fd, path, access & handled)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _add_rule(ruleset: int, path: str, access: int) -> None:
    try:
        target = os.open(path, os.O_PATH | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return  # gone since it was listed: nothing to grant
    try:
        if not os.path.isdir(path) or os.path.islink(path):
            access &= _FILE_ONLY
        if not access:
            return
        attr = ctypes.create_string_buffer(struct.pack("=Qi", access, target), 12)
        result = int(_libc.syscall(_ADD_RULE, ruleset, _RULE_PATH_BENEATH, attr, 0))
        if result < 0 and ctypes.get_errno() not in (22,):  # EINVAL: an odd file type
            _check(result, f"add_rule `{path}`")
    finally:
        os.close(target)


def enforce(ruleset: int) -> None:
    """In the child, just before exec: no new privileges, no capabilities,
    then the ruleset. Raises `LandlockError` (the child does not run)."""
    _check(_libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    drop_capabilities()
    _check(int(_libc.syscall(_RESTRICT_SELF, ruleset, 0)), "restrict_self")


def drop_capabilities() -> None:
    """An empty bounding set (exec cannot bring any back) and no effective,
    permitted or inheritable capabilities: no reboot, mount, mknod, kexec."""
    last = _last_cap()
    if os.geteuid() == 0 or _has_setpcap():
        for cap in range(last + 1):
            _libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = (ctypes.c_uint32 * 6)()
    _check(int(_libc.syscall(126 if _x86_64() else 91, header, data)), "capset")


def _last_cap() -> int:
    try:
        with open("/proc/sys/kernel/cap_last_cap") as file:
            return int(file.read())
    except (OSError, ValueError):
        return 63


def _has_setpcap() -> bool:
    try:
        with open("/proc/self/status") as file:
            for line in file:
                if line.startswith("CapEff:"):
                    return bool(int(line.split()[1], 16) & (1 << 8))
    except OSError:
        pass
    return False


def _x86_64() -> bool:
    return os.uname().machine == "x86_64"
