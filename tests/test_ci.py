"""`.ci/run` runs every test: it sets `CI`, under which a skipping test fails
(tests/conftest.py), and a PostgreSQL that cannot start fails the run
(`.ci/postgres`, with a bounded wait and the repair)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SKIPPING = 'import pytest\n\n\ndef test_needs_chromium() -> None:\n    pytest.skip("no chromium")\n'


def run_pytest(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess[str]:
    shutil.copy(ROOT / "tests" / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_skipping.py").write_text(SKIPPING)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(("ci", "code", "summary"), [("true", 1, "1 failed"), ("1", 1, "1 failed")])
def test_under_ci_a_skip_fails(tmp_path: Path, ci: str, code: int, summary: str) -> None:
    done = run_pytest(tmp_path, ci)
    assert done.returncode == code, done.stdout
    assert "skipped under CI, which must run every test: Skipped: no chromium" in done.stdout
    assert done.stdout.splitlines()[-1].startswith(summary)


@pytest.mark.parametrize("ci", [None, "", "false"])
def test_elsewhere_a_skip_is_a_skip(tmp_path: Path, ci: str | None) -> None:
    done = run_pytest(tmp_path, ci)
    assert done.returncode == 0, done.stdout
    assert done.stdout.splitlines()[-1].startswith("1 skipped")


def test_ci_run_sets_ci_and_fails_when_postgres_cannot_start() -> None:
    script = (ROOT / ".ci" / "run").read_text()
    lines = [line.strip() for line in script.splitlines()]
    assert "export CI=true" in lines
    assert lines.index("export CI=true") < lines.index("python -m pytest")
    assert lines.index(".ci/postgres") < lines.index("python -m pytest")
    assert "|| true" not in script


def stub(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)


def ci_postgres(tmp_path: Path, ready: str, start: str) -> subprocess.CompletedProcess[str]:
    """`.ci/postgres` with stand-ins for `pg_isready` and `pg_ctlcluster`."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stub(bin_dir, "pg_isready", ready)
    stub(bin_dir, "pg_ctlcluster", start)
    clusters = tmp_path / "clusters"
    (clusters / "15").mkdir(parents=True)
    env = {
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "REDLINE_CI_PG_WAIT_S": "2",
        "REDLINE_CI_PG_CLUSTERS": str(clusters),
    }
    return subprocess.run(
        [str(ROOT / ".ci" / "postgres")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_running_postgres_passes(tmp_path: Path) -> None:
    done = ci_postgres(tmp_path, "exit 0", "exit 1")
    assert (done.returncode, done.stderr) == (0, "")


def test_a_postgres_that_comes_up_after_its_start_passes(tmp_path: Path) -> None:
    started = tmp_path / "started"
    done = ci_postgres(tmp_path, f"test -e {started}", f"touch {started}")
    assert (done.returncode, done.stderr) == (0, "")


def test_a_postgres_that_cannot_start_fails(tmp_path: Path) -> None:
    done = ci_postgres(tmp_path, "exit 2", "exit 1")
    assert (done.returncode, done.stderr) == (
        1,
        "error: PostgreSQL 15 could not start; see `pg_lsclusters` and its log in "
        "/var/log/postgresql\n",
    )


def test_a_postgres_that_never_answers_fails_after_the_wait(tmp_path: Path) -> None:
    done = ci_postgres(tmp_path, "exit 2", "exit 0")
    assert (done.returncode, done.stderr) == (
        1,
        "error: PostgreSQL 15 started but does not answer on 127.0.0.1:5432 after 2 s; "
        "see /var/log/postgresql\n",
    )
