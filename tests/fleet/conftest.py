"""A fresh PostgreSQL schema per test (skips without the server, except in CI)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import psycopg
import pytest

BASE = os.environ.get("REDLINE_TEST_POSTGRES", "postgresql://root@127.0.0.1:5432/test")


@pytest.fixture
def pg_url() -> Iterator[str]:
    try:
        psycopg.connect(BASE, connect_timeout=3).close()
    except psycopg.Error:
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL at `{BASE}` is unreachable and CI is set")
        pytest.skip(f"PostgreSQL at `{BASE}` is unreachable")
    schema = f"redline_test_{uuid.uuid4().hex[:16]}"
    yield f"{BASE}?schema={schema}"
    with psycopg.connect(BASE, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE".encode())
