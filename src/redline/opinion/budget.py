"""`max_calls_per_hour`, shared by every process that consults the model.

Each hook is its own short process, so the count lives on disk: one small
SQLite file in `$REDLINE_HOME` (`opinion-budget.sqlite`), one row per call
made, taken under SQLite's write lock so two hooks never both take the last
slot. A file that cannot be used spends nothing: the call is not made, and
the deterministic verdict stands (fail closed, never open).
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable

FILE_NAME = "opinion-budget.sqlite"
WINDOW_S = 3600.0


class Budget:
    def __init__(self, path: str, per_hour: int, clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self.per_hour = per_hour
        self.clock = clock

    @classmethod
    def in_home(cls, home: str, per_hour: int) -> Budget:
        return cls(os.path.join(home, FILE_NAME), per_hour)

    def take(self) -> bool:
        """One call's slot in the last hour's budget; `False` if none is left
        (or the budget file cannot be used)."""
        if self.per_hour <= 0:
            return False
        now = self.clock()
        try:
            from redline.home import private_file

            private_file(self.path)
            db = sqlite3.connect(self.path, timeout=2.0, isolation_level=None)
        except (OSError, sqlite3.Error):
            return False
        try:
            # A count lost to a crash costs a few calls too many, never a
            # wrong verdict: no need to wait for the disk.
            db.execute("PRAGMA synchronous=OFF")
            db.execute("CREATE TABLE IF NOT EXISTS calls (at REAL NOT NULL)")
            db.execute("BEGIN IMMEDIATE")
            db.execute("DELETE FROM calls WHERE at <= ?", (now - WINDOW_S,))
            used = int(db.execute("SELECT count(*) FROM calls").fetchone()[0])
            if used >= self.per_hour:
                db.execute("ROLLBACK")
                return False
            db.execute("INSERT INTO calls (at) VALUES (?)", (now,))
            db.execute("COMMIT")
            return True
        except sqlite3.Error:
            return False
        finally:
            db.close()

    def used(self) -> int:
        try:
            db = sqlite3.connect(self.path, timeout=2.0)
        except sqlite3.Error:
            return 0
        try:
            row = db.execute(
                "SELECT count(*) FROM calls WHERE at > ?", (self.clock() - WINDOW_S,)
            ).fetchone()
            return int(row[0])
        except sqlite3.Error:
            return 0
        finally:
            db.close()
