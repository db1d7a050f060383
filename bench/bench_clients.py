"""What each real agent client pays per tool call for redline's hook.

Runs the `cost`-marked end-to-end tests (deselected from the test suite: they
are measurements, not checks) with the pinned clients that `.ci/run`
installs, and prints each client's median round trip of a tool call with and
without the hook. Needs `REDLINE_E2E_CLIENTS` and `REDLINE_E2E_HERMES` as
`.ci/run` sets them:

    REDLINE_E2E_CLIENTS=$PWD/.ci-cache/clients \\
    REDLINE_E2E_HERMES=$PWD/.ci-cache/hermes-venv/bin/hermes \\
    python bench/bench_clients.py
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    command = [sys.executable, "-m", "pytest", "-m", "cost", "-q", "-s", "-p", "no:cacheprovider"]
    return subprocess.call([*command, str(ROOT / "tests" / "e2e")], cwd=ROOT)


if __name__ == "__main__":
    raise SystemExit(main())
