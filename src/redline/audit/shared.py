"""One log per process, opened on first use and kept open.

A process that records call after call (a hook process, an agent's in-process
plugin) keeps its log open instead of opening and closing it per call. For a
hook process this is most of what recording costs: closing SQLite's last
connection checkpoints the write-ahead log into the database and deletes it
(~1.5 ms), and the next process recreates it. A hook process ends with
`os._exit` once its answer is out, so nothing is closed at all: every append
is committed before the answer is written, and a committed transaction in the
write-ahead log survives the process (the next opener reads it). Since each
opener reads the whole write-ahead log, a kept store folds it into the
database and empties it past `WAL_LIMIT_BYTES` (every few dozen calls).

A kept SQLite log is checked against its path before each use: a log file
moved or deleted underneath (rotation, a test's temporary home) is reopened
rather than written to where nobody would read it.
"""

from __future__ import annotations

import os
from _thread import allocate_lock  # `threading.Lock`, without loading `threading`
from collections.abc import Mapping

from redline.audit.store import open_store, resolve_url

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from redline.audit.protocol import Store
    from redline.deadline import Deadline

WAL_LIMIT_BYTES = 1 << 20
"""A kept SQLite log folds and empties its write-ahead log past this size:
each process that opens the log reads all of it (~1.5 M instructions a MB)."""

_lock = allocate_lock()
# (pid, url, the file's identity or None, store): at most one at a time.
_kept: list[tuple[int, str, tuple[int, int] | None, Store]] = []


def _identity(store: Store) -> tuple[int, int] | None:
    from redline.audit.sqlite import SqliteStore

    if not isinstance(store, SqliteStore):
        return None  # a server's database does not move underneath a connection
    try:
        status = os.stat(store.path)
    except OSError:
        return (-1, -1)  # gone: never equal to what was kept
    return (status.st_dev, status.st_ino)


def shared_log(environ: Mapping[str, str], deadline: Deadline | None = None) -> Store:
    """The log `environ` names (see `resolve_url`), kept open for this process;
    `deadline` bounds opening it.

    Do not close it; call `drop_shared_log` after a `LogUnavailable` from it."""
    url = resolve_url(None, environ)
    pid = os.getpid()
    with _lock:
        if _kept:
            kept_pid, kept_url, identity, store = _kept[0]
            if kept_pid == pid and kept_url == url and _identity(store) == identity:
                return store
            _forget(pid)
        store = open_store(url, deadline=deadline)
        identity = _identity(store)
        if identity is not None:  # SQLite, never closed: keep its WAL short
            store.wal_limit = WAL_LIMIT_BYTES  # type: ignore[attr-defined]
        _kept.append((pid, url, identity, store))
        return store


def drop_shared_log() -> None:
    """Close the kept log (after an error from it, or to release the file)."""
    with _lock:
        _forget(os.getpid())


def _forget(pid: int) -> None:
    if not _kept:
        return
    kept_pid, _, _, store = _kept.pop()
    if kept_pid == pid:  # a forked child never closes its parent's connection
        from contextlib import suppress

        with suppress(Exception):  # a broken connection is being dropped anyway
            store.close()
