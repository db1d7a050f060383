"""Under CI (`CI` set, as `.ci/run` does), a test that skips fails instead:
a missing PostgreSQL or chromium must fail the run, not pass it unnoticed.
`pg_url`: a fresh PostgreSQL schema, for any suite."""

from __future__ import annotations

import os
from collections.abc import Generator, Iterator
from typing import Any

import pytest


def under_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[Any]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.skipped and not hasattr(report, "wasxfail") and under_ci():
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped under CI, which must run every test: {reason}"
    return report


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh PostgreSQL schema for the test, dropped afterwards (skips when
    the server is unreachable, except in CI)."""
    import os
    import uuid

    import psycopg

    base = os.environ.get("REDLINE_TEST_POSTGRES", "postgresql://root@127.0.0.1:5432/test")
    try:
        psycopg.connect(base, connect_timeout=3).close()
    except psycopg.Error:
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL at `{base}` is unreachable and CI is set")
        pytest.skip(f"PostgreSQL at `{base}` is unreachable")
    schema = f"redline_test_{uuid.uuid4().hex[:16]}"
    yield f"{base}?schema={schema}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE".encode())
