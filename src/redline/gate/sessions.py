"""Per-session approval state, in memory: what was approved for the session
and what was rejected (F-GATE-6, F-GATE-7). Each session's state is its own;
one lock guards the table, so threads and tasks of other sessions never see
or change it.
"""

import enum
from _thread import allocate_lock  # `threading.Lock`, without loading `threading`
from collections.abc import Iterable

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


class SessionStore:
    def __init__(self) -> None:
        self._lock = allocate_lock()
        self._sessions: dict[str, _State] = {}

    def view(self, session: str) -> SessionView:
        with self._lock:
            state = self._sessions.get(session)
            if state is None:
                return SessionView(frozenset(), RejectionMemory())
            return SessionView(frozenset(state.grants), state.memory.copy())

    def grant(self, session: str, grants: Iterable[Grant]) -> None:
        with self._lock:
            self._sessions.setdefault(session, _State()).grants.update(grants)

    def remember(self, session: str, fp: Fingerprint, outcome: Outcome) -> None:
        with self._lock:
            self._sessions.setdefault(session, _State()).memory.remember(fp, outcome)

    def forget(self, session: str, fp: Fingerprint) -> None:
        with self._lock:
            state = self._sessions.get(session)
            if state is not None:
                state.memory.forget(fp)

    def end(self, session: str) -> None:
        """Drop a finished session's approvals and memory."""
        with self._lock:
            self._sessions.pop(session, None)

    def sessions(self) -> tuple[str, ...]:
        with self._lock:
            return tuple(self._sessions)
