"""What the never-run checks may look up on the machine, asked lazily.

The gate is pure: it judges the call it is given. A few facts that keep the
gate alive are not in the call, though: the port the approval service really
listens on, which processes are the gate, what a script about to run says,
and the names this machine answers to. The gate asks a `World` for them, and
only when a call needs one (a kill, a loopback address, a script run by
path). This one knows nothing; `redline.machine.LocalWorld` reads the
machine, and tests give their own.
"""

from __future__ import annotations

from redline.fasttuple import NamedTuple


class Process(NamedTuple):
    """A running process of the gate or the gateway."""

    pid: int
    group: int
    name: str
    command_line: str


class World:
    """Knows nothing: no service port beyond the policy's, no gate process,
    no script text, no other name for this machine."""

    def service_ports(self) -> frozenset[int]:
        """Ports the approval service listens on now (besides the policy's)."""
        return frozenset()

    def loopback_names(self) -> frozenset[str]:
        """Host names that reach this machine: its own name, and names the
        hosts file maps to a loopback address (lower case)."""
        return frozenset()

    def gate_processes(self) -> tuple[Process, ...]:
        """The running processes of the gate and the agent's gateway."""
        return ()

    def resolve(self, path: str) -> str | None:
        """`path` (an absolute directory) with its symbolic links followed,
        if it exists; `None` otherwise."""
        return None

    def read_script(self, path: str) -> str | None:
        """The start of the file at `path` (absolute), if it is a readable
        regular file; `None` otherwise."""
        return None

    def expand(self, pattern: str) -> tuple[str, ...]:
        """The first few files a glob (an absolute path) names, as the shell
        would expand it; `()` when none or unknown."""
        return ()

    def archive_members(self, path: str) -> tuple[str, ...] | None:
        """The member names of the archive at `path` (absolute: tar, cpio,
        zip), if it is a readable regular file of a size the gate reads;
        `None` otherwise."""
        return None


NOWHERE = World()
