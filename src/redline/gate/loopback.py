"""Commands sent over `ssh` to this same machine (`ssh localhost CMD`,
`ssh 127.0.0.1 CMD`) run here: the never-run checks judge them as local.

The shell analysis marks everything `ssh` launches as remote; this module
finds the `ssh` invocations that launched a remote one and says whether all
of them log in to a loopback address.
"""

from __future__ import annotations

from redline.rules import argv
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation

_SSH = frozenset({"ssh", "autossh"})
# Options of ssh that take a value (`-p 22`, `-i KEY`, `-p22`).
_VALUED = "BbcDEeFIiJLlmOopQRSWw"
# `0.0.0.0` (and `0`) as a destination reach this machine.
_LOOPBACK_NAMES = frozenset(
    {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback", "0", "0.0.0.0"}  # noqa: S104
)
# Launchers that reach another machine or a container: never this one.
_ELSEWHERE = frozenset({"docker", "podman", "nerdctl", "kubectl", "oc", "lxc", "incus", "ctr"})


def ssh_host(inv: Invocation) -> str | None:
    """The host an `ssh` invocation logs in to, as written (no user, no port)."""
    rest = argv.parse(inv.values, _VALUED, (), stop_at_operand=True).rest
    if not rest:
        return None
    host = rest[0].removeprefix("ssh://").rsplit("@", 1)[-1]
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    if host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host


def remote_command(inv: Invocation) -> tuple[str, ...]:
    """The words after an `ssh` invocation's host: its remote command."""
    rest = argv.parse(inv.values, _VALUED, (), stop_at_operand=True).rest
    return tuple(rest[1:])


def is_loopback(host: str | None, names: frozenset[str] = frozenset()) -> bool:
    """`host` is this machine: a loopback or unspecified address in any
    spelling the resolver accepts (`127.1`, `2130706433`, `0x7f000001`,
    `[::1]`, `::ffff:127.0.0.1`), `localhost` (and `*.localhost`), or one of
    `names` (the machine's own names)."""
    if not host:
        return False
    host = host.lower().strip("[]").rstrip(".")
    if host in _LOOPBACK_NAMES or host in names or host.endswith(".localhost"):
        return True
    if host[:1].isdigit():
        value = ipv4_value(host)
        if value is not None:
            return value >> 24 == 127 or value == 0
    if ":" not in host:
        return False
    import ipaddress  # here, not at the top: most calls name no address (~2 ms to import)

    try:
        address = ipaddress.IPv6Address(host.split("%", 1)[0])
    except ValueError:
        return False
    mapped = address.ipv4_mapped
    if mapped is not None:
        return mapped.is_loopback or mapped.is_unspecified
    return address.is_loopback or address.is_unspecified


def ipv4_value(text: str) -> int | None:
    """An IPv4 address as `inet_aton` reads it: one to four parts, each
    decimal, octal (`0177`) or hex (`0x7f`), the last filling the rest."""
    parts = text.split(".")
    if not 1 <= len(parts) <= 4:
        return None
    numbers: list[int] = []
    for part in parts:
        try:
            if part[:2] in ("0x", "0X"):
                numbers.append(int(part[2:] or "0", 16))
            elif len(part) > 1 and part[0] == "0":
                numbers.append(int(part[1:], 8))
            else:
                numbers.append(int(part, 10))
        except ValueError:
            return None
    *head, last = numbers
    if any(n > 255 for n in head) or last >= 1 << (8 * (4 - len(head))):
        return None
    value = 0
    for n in head:
        value = value << 8 | n
    return value << (8 * (4 - len(head))) | last


def launchers(inv: Invocation, analysis: Analysis) -> tuple[Invocation, ...]:
    """The `ssh` invocations whose remote command holds `inv`, outermost first."""
    start, end = inv.span.start, inv.span.end
    return tuple(
        other
        for other in analysis.invocations
        if other.index < inv.index
        and other.name in _SSH
        and other.span.start <= start
        and end <= other.span.end
    )


def runs_here(inv: Invocation, analysis: Analysis) -> bool:
    """Whether the invocation runs on this machine: not remote, or only sent
    over ssh to a loopback address."""
    if not inv.remote:
        return True
    if any(label.split(" ", 1)[0] in _ELSEWHERE for label in inv.via):
        return False
    found = launchers(inv, analysis)
    return bool(found) and all(is_loopback(ssh_host(s)) for s in found)
