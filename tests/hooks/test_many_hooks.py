"""200 hooks at once on one PostgreSQL log, in embedded mode (no service):
each answers within its deadline with a verdict, and the chain verifies
(issue 12 #5). On this project's 2-core machine."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import psycopg
import pytest
from hookkit import Env

PG_URL = os.environ.get("REDLINE_TEST_POSTGRES", "postgresql://root@127.0.0.1:5432/test")
HOOKS = 200
AT_ONCE = 25  # PostgreSQL's 100 connections are shared with other test runs
DEADLINE_S = 25.0  # what `redline install` gives the hook: the host's 30 s less 5
MARGIN_S = 1.0
OVERALL_S = 240.0
COMMANDS = ["ls -la", "rm -rf /", "git push --force origin main", "cat README.md"]


@pytest.fixture
def pg_env(env: Env) -> Iterator[Env]:
    try:
        psycopg.connect(PG_URL, connect_timeout=3).close()
    except psycopg.Error:
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL at `{PG_URL}` is unreachable and CI is set")
        pytest.skip(f"PostgreSQL at `{PG_URL}` is unreachable")
    schema = f"redline_test_{uuid.uuid4().hex[:16]}"
    yield {**env, "REDLINE_STORE": f"{PG_URL}?schema={schema}"}
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE".encode())


def one_hook(env: Env, n: int, until: float) -> tuple[float, dict[str, Any] | None, str]:
    call = {"tool": "Bash", "args": {"command": COMMANDS[n % len(COMMANDS)]},
            "cwd": "/tmp", "session": f"s{n % 7}"}  # fmt: skip
    began = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "redline", "hook", "generic"],
        input=json.dumps(call),
        capture_output=True,
        text=True,
        env=dict(env),
        timeout=max(1.0, until - time.monotonic()),
        check=False,
    )
    took = time.monotonic() - began
    try:
        answer = json.loads(done.stdout)
    except ValueError:
        return took, None, done.stdout + done.stderr
    return took, answer, done.stderr


@pytest.mark.slow
@pytest.mark.postgres
def test_200_hooks_at_once_on_postgres_answer_in_time_and_keep_one_chain(pg_env: Env) -> None:
    until = time.monotonic() + OVERALL_S
    with ThreadPoolExecutor(AT_ONCE) as pool:
        results = list(pool.map(lambda n: one_hook(pg_env, n, until), range(HOOKS)))
    times = [took for took, _, _ in results]
    answers = [answer for _, answer, _ in results]
    broken = [text for _, answer, text in results if answer is None]
    assert broken == []
    assert not [text for _, _, text in results if "Traceback" in text]
    verdicts = Counter(a["verdict"] for a in answers if a is not None)
    codes = Counter(a.get("code") for a in answers if a is not None and a.get("code"))
    print(
        f"\n{HOOKS} hooks, {AT_ONCE} at once: max {max(times):.2f} s, "
        f"median {statistics.median(times):.2f} s; verdicts {dict(verdicts)}; codes {dict(codes)}"
    )
    assert set(verdicts) <= {"allow", "ask", "deny"} and sum(verdicts.values()) == HOOKS
    assert max(times) < DEADLINE_S + MARGIN_S
    # Every call judged was logged: only a log-busy deny is not in it, and a
    # gate-timeout may come before or after its call was logged.
    verify = subprocess.run(
        [sys.executable, "-m", "redline", "log", "verify", "--json"],
        capture_output=True,
        text=True,
        env=dict(pg_env),
        timeout=120,
        check=False,
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr
    result = json.loads(verify.stdout)
    assert result["ok"] is True
    judged = HOOKS - codes["log-busy"] - codes["log-unavailable"]
    assert judged - codes["gate-timeout"] <= result["count"] <= judged
