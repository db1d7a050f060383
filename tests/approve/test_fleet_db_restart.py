"""PostgreSQL drops every connection of a running service (as a restart of the
server does): calls fail closed meanwhile, and the service recovers by itself,
with no restart, its log chain intact."""

from __future__ import annotations

import uuid
from pathlib import Path

import psycopg
from servicekit import ServiceProcess, eventually, hook_payload, make_env, run_hook

from redline.audit.store import open_store, verify_store


def _drop_connections(pg_url: str, name: str, pid: int) -> int:
    base = pg_url.partition("?")[0]
    with psycopg.connect(base, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE application_name = %s OR application_name LIKE %s",
            (name, f"%:{pid}:%"),
        ).fetchall()
    return len(rows)


def test_the_service_recovers_when_postgresql_drops_its_connections(
    tmp_path: Path, pg_url: str
) -> None:
    name = f"redline-test-{uuid.uuid4().hex[:8]}"
    env = make_env(tmp_path, PGAPPNAME=name)
    service = ServiceProcess(env, "--store", pg_url, "--workers", "1").start()
    try:
        assert run_hook(env, hook_payload("ls -la", session="d1"))[1]["verdict"] == "allow"
        assert service.proc is not None
        assert _drop_connections(pg_url, name, service.proc.pid) >= 2
        seen = []

        def allowed_again() -> bool:
            decision = run_hook(env, hook_payload("ls -la", session="d1"))[1]
            seen.append((decision["verdict"], decision["code"]))
            return decision["verdict"] == "allow"

        eventually(allowed_again, timeout=60, what="the service to recover")
        # Whatever came before the recovery failed closed.
        assert all(verdict in ("allow", "deny") for verdict, _ in seen)
        assert all(code != "" for verdict, code in seen if verdict == "deny"), seen
        # And a held call still works end to end afterwards.
        assert service.pending() == []
    finally:
        service.stop()
    store = open_store(pg_url)
    try:
        assert verify_store(store).ok
    finally:
        store.close()
