"""Which sandbox this machine gives a run, and why: `namespaces` (bubblewrap),
`landlock`, or `none`. `redline run --explain` and `redline doctor` print it,
each run's log entry carries it, and the policy's `enforce` decides whether
a run may go ahead without one.
"""

from __future__ import annotations

import os
import sys

from redline.fasttuple import NamedTuple

NAMESPACES, LANDLOCK, NONE = "namespaces", "landlock", "none"
LEVELS = (NAMESPACES, LANDLOCK, NONE)
REPAIR = (
    "install redline with pip on Linux x86_64/aarch64 (it brings bubblewrap) or install the "
    "system's `bubblewrap`, and allow user namespaces (`sysctl kernel.unprivileged_userns_clone=1`"
    "; on Ubuntu `kernel.apparmor_restrict_unprivileged_userns=0`); or a kernel with Landlock"
)


class Level(NamedTuple):
    name: str
    why: str
    bwrap: str | None = None
    landlock_abi: int = 0

    def line(self) -> str:
        return f"{self.name} ({self.why})"


def _read(path: str) -> str | None:
    try:
        with open(path) as file:
            return file.read().strip()
    except OSError:
        return None


def userns_problem() -> str | None:
    """Why user namespaces cannot be used here, or `None` when they can."""
    if _read("/proc/sys/user/max_user_namespaces") == "0":
        return "user namespaces are off (`user.max_user_namespaces` is 0)"
    if os.geteuid() != 0:
        if _read("/proc/sys/kernel/unprivileged_userns_clone") == "0":
            return "unprivileged user namespaces are off (`kernel.unprivileged_userns_clone`)"
        if _read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1":
            return "AppArmor restricts unprivileged user namespaces"
    return None


def probe(force: str | None = None) -> Level:
    """The best sandbox available; `force` (`landlock` or `none`) skips the
    better ones, for tests and for machines where bwrap misbehaves."""
    if not sys.platform.startswith("linux"):
        return Level(NONE, f"no kernel sandbox on {sys.platform} yet (see docs/enforce.md)")
    reasons: list[str] = []
    if force in (None, NAMESPACES):
        from redline.sandbox.bwrap import bwrap_path

        bwrap = bwrap_path()
        problem = userns_problem()
        if bwrap is not None and problem is None:
            return Level(NAMESPACES, f"bubblewrap at {bwrap}", bwrap=bwrap)
        reasons.append(problem or "no bubblewrap (`bwrap`) found")
    else:
        reasons.append(f"forced to {force}")
    if force in (None, NAMESPACES, LANDLOCK):
        from redline.sandbox.landlock import abi_version

        abi = abi_version()
        if abi > 0:
            signals = "signals scoped" if abi >= 6 else "signals not scoped before ABI 6"
            why = "; ".join([*reasons, f"Landlock ABI {abi}, {signals}"])
            return Level(LANDLOCK, why, landlock_abi=abi)
        reasons.append("the kernel has no Landlock")
    return Level(NONE, "; ".join(reasons))
