"""Session approval state that outlives a hook process.

A hook is a new process for every tool call, while the gate keeps a session's
approvals and remembered rejections in memory (`Gate.sessions`). This module
keeps them on disk, one JSON file per host session under
`$REDLINE_HOME/sessions/`: loaded into the gate before a call is judged, and
written back (under a lock, by temp file and rename) when an outcome changes
them. It also notes which calls were asked, so that a later post-tool-use
event can record the approval against the logged decision.

A file that cannot be read is set aside (`NAME.corrupt-TIMESTAMP`) and the
session starts empty: that loses approvals (so more is asked), never adds any.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from redline import jsoncodec
from redline.digest import short_digest

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    from redline.deadline import Deadline
    from redline.gate.actions import ToolCall
    from redline.gate.sessions import Grant
    from redline.gatekeeper import Gate

FORMAT_VERSION = 1
DIRECTORY = "sessions"
MAX_ASKS = 256
LOCK_TIMEOUT_S = 10.0

if TYPE_CHECKING:
    T = TypeVar("T")
    Data = dict[str, Any]


def _empty() -> Data:
    return {"version": FORMAT_VERSION, "grants": [], "memory": [], "asks": {}}


def session_path(home: str, host: str, session: str) -> str:
    """A file name that is safe whatever the host's session id looks like."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in session)[:80]
    tail = short_digest(session.encode("utf-8", "surrogatepass"))
    return os.path.join(home, DIRECTORY, f"{host}-{safe}-{tail}.json")


class SessionFile:
    """One host session's state on disk."""

    def __init__(self, path: str, deadline: Deadline | None = None) -> None:
        self.path = path
        self.warnings: list[str] = []
        self.deadline = deadline

    @classmethod
    def of(
        cls, home: str, host: str, session: str, deadline: Deadline | None = None
    ) -> SessionFile:
        """`deadline`: how long `update` may wait for the session's lock."""
        return cls(session_path(home, host, session), deadline)

    def read(self) -> Data:
        try:
            with open(self.path, encoding="utf-8") as source:
                data = jsoncodec.load(source)
        except FileNotFoundError:
            return _empty()
        except (OSError, ValueError) as error:
            return self._set_aside(str(error))
        if not _valid(data):
            return self._set_aside("unexpected structure")
        return data  # type: ignore[no-any-return]

    def _set_aside(self, problem: str) -> Data:
        aside = f"{self.path}.corrupt-{time.strftime('%Y%m%dT%H%M%S')}"
        try:
            os.replace(self.path, aside)
            kept = f"kept aside as `{aside}`"
        except OSError as error:
            kept = f"could not be moved aside ({error.strerror})"
        self.warnings.append(
            f"session state `{self.path}` is unreadable ({problem}); {kept}; "
            "the session's approvals start empty"
        )
        return _empty()

    def update(self, change: Callable[[Data], T]) -> T:
        """Read, change and write the state under the session's lock."""
        fd = self._lock()
        try:
            data = self.read()
            result = change(data)
            self._write(data)
            return result
        finally:
            os.close(fd)  # closing the descriptor releases the lock

    def _lock(self) -> int:
        """An open descriptor holding the session's lock (close it to release)."""
        import fcntl

        os.makedirs(os.path.dirname(self.path), mode=0o700, exist_ok=True)
        fd = os.open(self.path + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            wait = LOCK_TIMEOUT_S if self.deadline is None else self.deadline.wait_s(LOCK_TIMEOUT_S)
            deadline = time.monotonic() + wait
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    return fd
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise self._locked() from None
                    time.sleep(0.005)
        except BaseException:
            os.close(fd)
            raise

    def _locked(self) -> Exception:
        if self.deadline is None:
            return TimeoutError(f"session state `{self.path}` is locked")
        from redline.deadline import DeadlinePassed

        return DeadlinePassed(f"the lock of session state `{self.path}`", self.deadline)

    def _write(self, data: Data) -> None:
        tmp = f"{self.path}.{os.getpid()}.tmp"
        try:
            with open(tmp, "w", encoding="utf-8") as out:
                jsoncodec.dump(data, out, separators=(",", ":"))
            os.replace(tmp, self.path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise


def _valid(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and data.get("version") == FORMAT_VERSION
        and isinstance(data.get("grants"), list)
        and isinstance(data.get("memory"), list)
        and isinstance(data.get("asks"), dict)
    )


def apply(data: Data, gate: Gate, session: str) -> None:
    """Put a session's saved approvals and rejections into the gate."""
    from redline.gate.memory import Fingerprint, Outcome

    grants: list[Grant] = []
    for entry in data["grants"]:
        key, subject = entry
        grants.append((str(key), tuple(str(s) for s in subject)))
    if grants:
        gate.sessions.grant(session, grants)
    for entry in data["memory"]:
        fp = Fingerprint(
            frozenset((str(a), str(b)) for a, b in entry["atoms"]),
            frozenset(str(p) for p in entry["writes"]),
            frozenset(str(p) for p in entry["reads"]),
            str(entry["summary"]),
            tuple(str(t) for t in entry.get("texts", ())),
        )
        gate.sessions.remember(session, fp, Outcome(entry["outcome"]))


def capture(data: Data, gate: Gate, session: str) -> None:
    """Copy the gate's view of a session back into `data`."""
    view = gate.sessions.view(session)
    data["grants"] = sorted([key, list(subject)] for key, subject in view.grants)
    entries = view.memory.entries
    data["memory"] = [
        {
            "outcome": str(e.outcome),
            "atoms": sorted([a, b] for a, b in e.fingerprint.atoms),
            "writes": sorted(e.fingerprint.writes),
            "reads": sorted(e.fingerprint.reads),
            "summary": e.fingerprint.summary,
            "texts": list(e.fingerprint.texts),
        }
        for e in entries
    ]


def note_ask(data: Data, tool_use_id: str, seq: int | None, call: ToolCall) -> None:
    asks: dict[str, Any] = data["asks"]
    asks[tool_use_id] = {
        "seq": seq,
        "tool": call.tool,
        "args": dict(call.args),
        "cwd": call.cwd,
        "context": call.context,
    }
    while len(asks) > MAX_ASKS:
        del asks[next(iter(asks))]


def record_outcome(
    gate: Gate,
    file: SessionFile,
    session: str,
    call: ToolCall,
    outcome: str,
    scope: str = "once",
) -> tuple[Grant, ...]:
    """Record what the human answered for `call`, so that later hook
    processes of the session see it (approvals for `session` scope, and the
    rejection memory). `always` also writes the allowlist, through the gate."""

    def change(data: Data) -> tuple[Grant, ...]:
        gate.sessions.end(session)
        apply(data, gate, session)
        grants = gate.record_outcome(session, call, outcome, scope)
        capture(data, gate, session)
        return grants

    return file.update(change)
