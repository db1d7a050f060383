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


def is_loopback(host: str | None) -> bool:
    if not host:
        return False
    host = host.lower().rstrip(".")
    if host in _LOOPBACK_NAMES:
        return True
    import ipaddress  # here, not at the top: most calls name no address (~2 ms to import)

    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


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
