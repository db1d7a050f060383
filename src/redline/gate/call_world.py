"""The machine as one call sees it: each fact looked up once per call.

A long script written or run (a makefile's 2,000 recipe lines) names the
same folders and files again and again; every path's folder is resolved
through its links and every test runner's `conftest.py` is read from disk.
One call asks the machine once per distinct question: the answers cannot
change in a way the gate could use within the one judgement, and a new call
asks afresh (nothing is kept across calls: the disk changes between them).
"""

from __future__ import annotations

from redline.gate.world import Process, World

# A bound on what one call keeps: past it, answers are asked again.
_MAX_ENTRIES = 4096


class CallWorld(World):
    """`world`'s answers, each asked once for the call this lives for."""

    def __init__(self, world: World) -> None:
        self.world = world
        self._resolved: dict[str, str | None] = {}
        self._scripts: dict[str, str | None] = {}
        self._expanded: dict[str, tuple[str, ...]] = {}
        self._ports: frozenset[int] | None = None
        self._names: frozenset[str] | None = None
        self._processes: tuple[Process, ...] | None = None

    def service_ports(self) -> frozenset[int]:
        if self._ports is None:
            self._ports = self.world.service_ports()
        return self._ports

    def loopback_names(self) -> frozenset[str]:
        if self._names is None:
            self._names = self.world.loopback_names()
        return self._names

    def gate_processes(self) -> tuple[Process, ...]:
        if self._processes is None:
            self._processes = self.world.gate_processes()
        return self._processes

    def resolve(self, path: str) -> str | None:
        if path in self._resolved:
            return self._resolved[path]
        found = self.world.resolve(path)
        if len(self._resolved) < _MAX_ENTRIES:
            self._resolved[path] = found
        return found

    def read_script(self, path: str) -> str | None:
        if path in self._scripts:
            return self._scripts[path]
        found = self.world.read_script(path)
        if len(self._scripts) < _MAX_ENTRIES // 16:  # texts: fewer of them
            self._scripts[path] = found
        return found

    def archive_members(self, path: str) -> tuple[str, ...] | None:
        return self.world.archive_members(path)  # asked for an extraction only: not kept

    def expand(self, pattern: str) -> tuple[str, ...]:
        if pattern in self._expanded:
            return self._expanded[pattern]
        found = self.world.expand(pattern)
        if len(self._expanded) < _MAX_ENTRIES:
            self._expanded[pattern] = found
        return found


def for_call(world: World) -> World:
    """A memo of `world` for one call (the world itself when it knows nothing)."""
    if type(world) is World or isinstance(world, CallWorld):
        return world
    return CallWorld(world)
