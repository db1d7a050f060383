"""Per-session approval state, in memory: what was approved for the session
and what was rejected (F-GATE-6, F-GATE-7). Each session's state is its own;
one lock guards the table, so threads and tasks of other sessions never see
or change it.

A store can tell a listener of every change (`Change`), and give and take a
whole `snapshot`: the approval service keeps its judging workers' copies
the same as its own this way.
"""

import enum
from _thread import allocate_lock  # `threading.Lock`, without loading `threading`
from collections.abc import Callable, Iterable

from redline.fasttuple import NamedTuple
from redline.gate.effects import Subject
from redline.gate.memory import Fingerprint, Outcome, RejectionMemory

Grant = tuple[str, Subject]


class Scope(enum.StrEnum):
    ONCE = "once"
    SESSION = "session"
    ALWAYS = "always"


class _State:
    __slots__ = ("grants", "memory")

    def __init__(self) -> None:
        self.grants: set[Grant] = set()
        self.memory = RejectionMemory()


class SessionView(NamedTuple):
    """A snapshot of one session's state, safe to read without the lock."""

    grants: frozenset[Grant]
    memory: RejectionMemory


Change = tuple[str, tuple[object, ...]]
"""A change as the name of the `SessionStore` method that made it and its
arguments: `("grant", (session, grants))`, `("remember", (session, fp,
outcome))`, `("forget", (session, fp))` or `("end", (session,))`."""

Snapshot = dict[str, tuple[frozenset[Grant], RejectionMemory]]


class SessionStore:
    def __init__(self) -> None:
        self._lock = allocate_lock()
        self._sessions: dict[str, _State] = {}
        self.listener: Callable[[Change], None] | None = None
        """Told of every change, after it is made (under the lock, so in order)."""

    def _tell(self, change: Change) -> None:
        if self.listener is not None:
            self.listener(change)

    def apply(self, change: Change) -> None:
        """Make a change another store reported."""
        name, args = change
        if name not in ("grant", "remember", "forget", "end"):
            raise ValueError(f"unknown session change `{name}`")
        getattr(self, name)(*args)

    def snapshot(self) -> Snapshot:
        with self._lock:
            return {
                name: (frozenset(state.grants), state.memory.copy())
                for name, state in self._sessions.items()
            }

    def restore(self, snapshot: Snapshot) -> None:
        """Replace every session's state with `snapshot`'s."""
        with self._lock:
            self._sessions.clear()
            for name, (grants, memory) in snapshot.items():
                state = self._sessions[name] = _State()
                state.grants.update(grants)
                state.memory = memory.copy()

    def view(self, session: str) -> SessionView:
        with self._lock:
            state = self._sessions.get(session)
            if state is None:
                return SessionView(frozenset(), RejectionMemory())
            return SessionView(frozenset(state.grants), state.memory.copy())

    def grant(self, session: str, grants: Iterable[Grant]) -> None:
        with self._lock:
            grants = tuple(grants)
            self._sessions.setdefault(session, _State()).grants.update(grants)
            self._tell(("grant", (session, grants)))

    def remember(self, session: str, fp: Fingerprint, outcome: Outcome) -> None:
        with self._lock:
            self._sessions.setdefault(session, _State()).memory.remember(fp, outcome)
            self._tell(("remember", (session, fp, outcome)))

    def forget(self, session: str, fp: Fingerprint) -> None:
        with self._lock:
            state = self._sessions.get(session)
            if state is not None:
                state.memory.forget(fp)
            self._tell(("forget", (session, fp)))

    def end(self, session: str) -> None:
        """Drop a finished session's approvals and memory."""
        with self._lock:
            self._sessions.pop(session, None)
            self._tell(("end", (session,)))

    def sessions(self) -> tuple[str, ...]:
        with self._lock:
            return tuple(self._sessions)
