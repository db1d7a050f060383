"""A seccomp filter that refuses the two terminal ioctls a sandboxed command
could use to act outside it: `TIOCSTI` (push keystrokes into the terminal, so
the owner's shell runs them after the command ends) and `TIOCLINUX`.

The command keeps the owner's terminal (Ctrl-C and job control need it), so
the filter is what stops it from typing there. It is a hand-assembled
classic BPF program (as Flatpak's): the native architecture and its 32-bit
compat one are checked (x32 system calls are refused whole), any other
architecture is refused. bubblewrap loads it with `--seccomp FD`; the
Landlock fallback loads it itself, after `no_new_privs`.
"""

from __future__ import annotations

import os
import struct

TIOCSTI, TIOCLINUX = 0x5412, 0x541C
_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06
_RET_ALLOW, _RET_EPERM = 0x7FFF0000, 0x00050000 | 1
_ARCH_OFF, _NR_OFF, _ARG1_OFF = 4, 0, 24  # seccomp_data: nr, arch, ip, args[6]; little-endian
_X32_BIT = 0x40000000
# machine: (native audit arch, native ioctl, compat audit arch, compat ioctl)
_ARCHES = {
    "x86_64": (0xC000003E, 16, 0x40000003, 54),
    "aarch64": (0xC00000B7, 29, 0x40000028, 54),
}
_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2


def supported() -> bool:
    return os.uname().machine in _ARCHES


def program() -> bytes:
    """The filter as `struct sock_filter[]` bytes."""
    machine = os.uname().machine
    native, ioctl, compat, compat_ioctl = _ARCHES[machine]
    # (code, jump-if-true label, jump-if-false label, k); labels resolved below.
    code: list[tuple[int, str | None, str | None, int] | str] = [
        (_LD_W_ABS, None, None, _ARCH_OFF),
        (_JEQ_K, "native", None, native),
        (_JEQ_K, "compat", "deny", compat),
        "native",
        (_LD_W_ABS, None, None, _NR_OFF),
    ]
    if machine == "x86_64":
        code.append((_JGE_K, "deny", None, _X32_BIT))
    code += [
        (_JEQ_K, "arg", "allow", ioctl),
        "compat",
        (_LD_W_ABS, None, None, _NR_OFF),
        (_JEQ_K, "arg", "allow", compat_ioctl),
        "arg",
        (_LD_W_ABS, None, None, _ARG1_OFF),
        (_JEQ_K, "deny", None, TIOCSTI),
        (_JEQ_K, "deny", "allow", TIOCLINUX),
        "allow",
        (_RET_K, None, None, _RET_ALLOW),
        "deny",
        (_RET_K, None, None, _RET_EPERM),
    ]
    labels: dict[str, int] = {}
    position = 0
    for item in code:
        if isinstance(item, str):
            labels[item] = position
        else:
            position += 1
    out = b""
    position = 0
    for item in code:
        if isinstance(item, str):
            continue
        op, true, false, k = item
        jt = labels[true] - position - 1 if true else 0
        jf = labels[false] - position - 1 if false else 0
        out += struct.pack("=HBBI", op, jt, jf, k)
        position += 1
    return out


def load(filter_bytes: bytes) -> None:
    """Load the filter into this process (which must have `no_new_privs`).
    `ctypes` loads here only: the namespace sandbox never needs it (~2 ms)."""
    import ctypes

    class _Filter(ctypes.Structure):
        _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.c_void_p))

    libc = ctypes.CDLL(None, use_errno=True)
    buffer = ctypes.create_string_buffer(filter_bytes, len(filter_bytes))
    prog = _Filter(len(filter_bytes) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"seccomp: {os.strerror(errno)}")


def pipe_with_program() -> int:
    """A read end holding the program, for `bwrap --seccomp FD`: a socket,
    which no other process can open through `/proc/PID/fd` (a pipe can be:
    drained and refilled with another filter before bwrap reads it)."""
    data = program()
    read, write = socket_pair()
    try:
        os.write(write, data)  # a few hundred bytes: within any socket's buffer
    finally:
        os.close(write)
    return read


def socket_pair() -> tuple[int, int]:
    """Two connected stream sockets' descriptors, close-on-exec."""
    import _socket  # not `socket`: kept off a run's start

    first, second = _socket.socketpair(_socket.AF_UNIX, _socket.SOCK_STREAM)
    return first.detach(), second.detach()
