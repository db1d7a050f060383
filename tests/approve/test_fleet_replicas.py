"""Two `redline serve` replicas on one PostgreSQL schema, each with its own
home (the same keys, as `docs/deploy.md` says to set them up): a call held
through one is answered on the other; grants and rejections made on one hold
on the other; one log chain, verified."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from servicekit import (
    Env,
    HookProcess,
    ServiceProcess,
    eventually,
    hook_payload,
    make_env,
    run_hook,
)

from redline.approve.paths import ServicePaths
from redline.audit.store import open_store, verify_store

HELD_COMMAND = "git push --force origin main"


def share_keys(source: Env, target: Env) -> None:
    """What an owner copies to a second replica: the signing key, the hook
    token and the pairing key (never the sockets or the pid file)."""
    src, dst = ServicePaths(source["REDLINE_HOME"]), ServicePaths(target["REDLINE_HOME"])
    shutil.copytree(
        src.service_dir,
        dst.service_dir,
        ignore=shutil.ignore_patterns("*.sock", "serve.json"),
        dirs_exist_ok=True,
    )


@pytest.fixture
def replicas(tmp_path: Path, pg_url: str) -> Iterator[tuple[ServiceProcess, ServiceProcess]]:
    env_a, env_b = make_env_dirs(tmp_path / "a"), make_env_dirs(tmp_path / "b")
    a = ServiceProcess(env_a, "--store", pg_url, "--timeout", "600").start()
    share_keys(env_a, env_b)
    b = ServiceProcess(env_b, "--store", pg_url, "--timeout", "600").start()
    yield a, b
    a.stop()
    b.stop()


def make_env_dirs(tmp: Path) -> Env:
    tmp.mkdir(parents=True, exist_ok=True)
    return make_env(tmp)


def test_an_answer_on_one_replica_reaches_the_hook_waiting_on_the_other(
    replicas: tuple[ServiceProcess, ServiceProcess], pg_url: str
) -> None:
    a, b = replicas
    hook = HookProcess(a.env, hook_payload(HELD_COMMAND, session="s-answer"))
    row = b.wait_pending(1)[0]
    assert row["shown"] == HELD_COMMAND
    status, _ = b.owner("POST", f"/v1/held/{row['id']}/approve", {"by": "owner"})
    assert status == 200
    _, decision, _ = hook.result(timeout=120)
    assert decision["code"] == "approved", decision
    # Settled once: the other replica refuses a second answer.
    again, reply = a.owner("POST", f"/v1/held/{row['id']}/reject", {})
    assert again == 409, reply
    assert a.pending() == [] and b.pending() == []
    store = open_store(pg_url)
    try:
        assert verify_store(store).ok
    finally:
        store.close()


def test_a_session_grant_made_on_one_replica_holds_on_the_other(
    replicas: tuple[ServiceProcess, ServiceProcess],
) -> None:
    a, b = replicas
    hook = HookProcess(b.env, hook_payload(HELD_COMMAND, session="s-grant"))
    row = a.wait_pending(1)[0]
    status, _ = a.owner("POST", f"/v1/held/{row['id']}/approve", {"scope": "session"})
    assert status == 200
    assert hook.result(timeout=120)[1]["code"] == "approved"

    def granted_on_b() -> bool:
        # The grant was made on A; B must know it.
        _, decision = run_hook(b.env, hook_payload(HELD_COMMAND, session="s-grant"))
        return decision["verdict"] == "allow"

    assert eventually(granted_on_b, what="the session grant on the other replica")


def test_a_rejection_on_one_replica_is_remembered_on_the_other(
    replicas: tuple[ServiceProcess, ServiceProcess],
) -> None:
    a, b = replicas
    hook = HookProcess(a.env, hook_payload(HELD_COMMAND, session="s-reject"))
    row = b.wait_pending(1)[0]
    status, _ = b.owner("POST", f"/v1/held/{row['id']}/reject", {"reason": "not today"})
    assert status == 200
    assert hook.result(timeout=120)[1]["code"] == "rejected"

    def remembered_on_a() -> dict[str, object] | None:
        _, decision = run_hook(a.env, hook_payload(HELD_COMMAND, session="s-reject"))
        return decision if decision["verdict"] == "deny" else None

    decision = eventually(remembered_on_a, what="the rejection on the other replica")
    assert "not today" in str(decision) or "reject" in str(decision).lower()
