"""Replicas started at the same moment on an empty database all come up: the
service's tables are made under one advisory lock, not raced."""

from __future__ import annotations

import subprocess
import sys
import time

OPEN_ALL = """
import sys, time
start = float(sys.argv[2])
while time.time() < start:
    pass
from redline.approve.db import Database
from redline.approve.pending import PendingTable
from redline.approve.proposals import Proposals
from redline.audit.store import open_store
from redline.pairing import Pairing
url = sys.argv[1]
store = open_store(url)
db = Database(url)
PendingTable(db)
Proposals(db)
Pairing(db, b"k" * 32)
db.close()
store.close()
print("up")
"""


def test_replicas_started_together_on_an_empty_schema_all_come_up(pg_url: str) -> None:
    for _round in range(3):
        start = time.time() + 1.5
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", OPEN_ALL, f"{pg_url}{_round}", str(start)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(6)
        ]
        results = [p.communicate(timeout=60) for p in procs]
        failures = [err for (out, err) in results if out.strip() != "up"]
        assert not failures, failures[0]
