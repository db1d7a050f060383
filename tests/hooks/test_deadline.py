"""A hook answers by its own deadline, below the host's timeout (issue 12 #5).

Claude Code, Codex and Gemini CLI run a call whose hook they killed, so a hook
that waits past the host's timeout fails open. Every wait is bounded by one
deadline: the log's write lock (SQLite, PostgreSQL), the service, and, behind
them, a watchdog for whatever else runs long. Past it the call is denied with
a code (`log-busy`, `gate-timeout`).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from hookkit import Env

from redline.cli.hook import UsageError, parse_args
from redline.deadline import Deadline, DeadlinePassed, below
from redline.hooks.base import Settings

PG_URL = os.environ.get("REDLINE_TEST_POSTGRES", "postgresql://root@127.0.0.1:5432/test")
DEADLINE_S = 2.0
# Time a hook process may take past its deadline: the interpreter's start
# comes before the deadline's, and the machine is shared.
MARGIN_S = 1.0
CALL = {"tool": "Bash", "args": {"command": "ls"}, "cwd": "/tmp", "session": "s1"}


def hook(env: Env, payload: Any, *flags: str) -> tuple[subprocess.CompletedProcess[str], float]:
    data = payload if isinstance(payload, str) else json.dumps(payload)
    began = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "redline", "hook", *flags],
        input=data,
        capture_output=True,
        text=True,
        env=dict(env),
        timeout=120,
        check=False,
    )
    return done, time.monotonic() - began


# -- the value carried through -------------------------------------------------


def test_the_deadline_counts_down_from_its_start_and_keeps_a_reserve() -> None:
    deadline = Deadline(10.0, start=time.monotonic() - 4.0)
    assert 5.9 < deadline.left() <= 6.0
    assert 5.4 < deadline.wait_s() <= 5.6  # less the time to write the deny
    assert deadline.wait_s(cap=1.0) == 1.0
    deadline.check("judging")
    with pytest.raises(DeadlinePassed) as passed:
        Deadline(1.0, start=time.monotonic() - 5.0).check("the policy")
    assert str(passed.value) == "the policy did not finish within the hook's deadline of 1 s"


def test_the_deadline_comes_from_the_flag_the_environment_or_the_host_timeout() -> None:
    assert below(30) == 25.0 and below(3) == 1.0
    assert Settings().deadline_for().total == 25.0
    assert Settings.from_environ({"REDLINE_HOOK_DEADLINE": "7.5"}).deadline_s == 7.5
    _, settings = parse_args(["codex", "--deadline", "12"], Settings())
    assert settings.deadline_s == 12.0
    for bad in ("0", "-1", "nan", "inf", "soon"):
        with pytest.raises(UsageError, match="`--deadline` takes a positive number"):
            parse_args(["codex", f"--deadline={bad}"], Settings())


def test_a_bad_deadline_in_the_environment_blocks(env: Env) -> None:
    done, _ = hook({**env, "REDLINE_HOOK_DEADLINE": "later"}, CALL, "generic")
    assert done.returncode == 2
    assert "REDLINE_HOOK_DEADLINE" in done.stderr and "blocked this call" in done.stderr


# -- the log's write lock, held by another process -------------------------------

SQLITE_HOLDER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("held", flush=True)
time.sleep(60)
"""
PG_HOLDER = """
import sys, time, psycopg
conn = psycopg.connect(sys.argv[1])
conn.execute(f"LOCK TABLE {sys.argv[2]}.entries IN EXCLUSIVE MODE".encode())
print("held", flush=True)
time.sleep(60)
"""


def hold(script: str, *args: str) -> subprocess.Popen[str]:
    """A process holding the log's write lock for 60 s (killed by the caller)."""
    holder = subprocess.Popen(
        [sys.executable, "-c", script, *args], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None
    assert holder.stdout.readline() == "held\n"
    return holder


def first_record(env: Env) -> None:
    """Make the log (and its tables) with one call, before the lock is taken."""
    done, _ = hook(env, CALL, "generic")
    assert json.loads(done.stdout)["verdict"] == "allow"


@pytest.fixture
def pg_schema() -> Iterator[str]:
    try:
        psycopg.connect(PG_URL, connect_timeout=3).close()
    except psycopg.Error:
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL at `{PG_URL}` is unreachable and CI is set")
        pytest.skip(f"PostgreSQL at `{PG_URL}` is unreachable")
    schema = f"redline_test_{uuid.uuid4().hex[:16]}"
    yield schema
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE".encode())


def held_log(request: pytest.FixtureRequest, env: Env) -> tuple[Env, subprocess.Popen[str]]:
    if request.param == "sqlite":
        first_record(env)
        path = str(Path(env["REDLINE_HOME"]) / "log.sqlite3")
        return env, hold(SQLITE_HOLDER, path)
    schema = request.getfixturevalue("pg_schema")
    env = {**env, "REDLINE_STORE": f"{PG_URL}?schema={schema}"}
    first_record(env)
    return env, hold(PG_HOLDER, PG_URL, schema)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def locked(request: pytest.FixtureRequest, env: Env) -> Iterator[Env]:
    env, holder = held_log(request, env)
    try:
        yield env
    finally:
        holder.kill()
        holder.wait()
        assert holder.stdout is not None
        holder.stdout.close()


@pytest.mark.slow
def test_a_held_log_lock_is_a_log_busy_deny_within_the_deadline(locked: Env) -> None:
    done, took = hook(locked, CALL, "generic", "--deadline", str(DEADLINE_S))
    answer = json.loads(done.stdout)
    assert (done.returncode, answer["verdict"], answer["code"]) == (4, "deny", "log-busy")
    assert answer["reason"].startswith("the approval log is busy, so the call cannot be recorded")
    assert "Traceback" not in done.stderr
    assert DEADLINE_S - 1.0 < took < DEADLINE_S + MARGIN_S


@pytest.mark.slow
def test_claude_code_gets_the_log_busy_deny_as_its_answer(locked: Env) -> None:
    payload = {
        "session_id": "s1",
        "cwd": "/tmp",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
    }
    done, took = hook(locked, payload, "claude-code", "--deadline", str(DEADLINE_S))
    out = json.loads(done.stdout)["hookSpecificOutput"]
    assert (done.returncode, out["permissionDecision"]) == (0, "deny")
    assert out["permissionDecisionReason"].startswith(
        "redline refused this call (`log-busy`): the approval log is busy"
    )
    assert took < DEADLINE_S + MARGIN_S


# -- the watchdog: whatever no wait bounds --------------------------------------


@pytest.mark.slow
def test_a_policy_that_never_loads_is_a_gate_timeout_deny(env: Env, tmp_path: Path) -> None:
    # A named pipe nobody writes: opening it to read the policy waits forever.
    policy = tmp_path / "policy.yaml"
    os.mkfifo(policy)
    env = {**env, "REDLINE_POLICY": str(policy)}
    done, took = hook(env, CALL, "generic", "--deadline", str(DEADLINE_S))
    answer = json.loads(done.stdout)
    assert (done.returncode, answer["verdict"], answer["code"]) == (4, "deny", "gate-timeout")
    assert answer["reason"].startswith(
        "redline blocked this call: the gate did not decide within the hook's deadline of 2 s"
    )
    assert took < DEADLINE_S + MARGIN_S


# -- the service: a socket that accepts and never answers ------------------------


@pytest.fixture
def silent_service(env: Env) -> Iterator[Env]:
    from redline.approve.paths import ServicePaths

    path = ServicePaths(env["REDLINE_HOME"]).hook_socket
    os.makedirs(os.path.dirname(path), exist_ok=True)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(8)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])  # read nothing, answer nothing
            except TimeoutError:
                continue

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield env
    finally:
        stop.set()
        thread.join(5)
        for conn in accepted:
            conn.close()
        server.close()


@pytest.mark.slow
def test_a_service_that_never_answers_is_a_gate_timeout_deny(silent_service: Env) -> None:
    key = "A" * 43 + "="  # 32 bytes: never used, nothing is ever signed
    done, took = hook(
        silent_service, CALL, "generic", "--service", "--service-key", key, "--deadline", "2"
    )
    answer = json.loads(done.stdout)
    assert (done.returncode, answer["verdict"], answer["code"]) == (4, "deny", "gate-timeout")
    assert answer["reason"] == (
        "the approval service did not answer within the hook's deadline of 2 s; "
        "the call did not run"
    )
    assert took < DEADLINE_S + MARGIN_S
