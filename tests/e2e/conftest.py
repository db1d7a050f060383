"""The real clients, driven by a stand-in of their model API (`standin`).

`.ci/run` installs the pinned clients once into `.ci-cache/clients` and sets
`REDLINE_E2E_CLIENTS` to that folder. Without it these tests are skipped; with
`CI=true` a missing client fails the run instead, so CI cannot pass without
them.

Each test gets its own HOME (a tmp dir), its own `REDLINE_HOME`, and runs
`redline install CLIENT` against that HOME; the client runs in a project
folder inside it. Canary files show what ran. The hook's cost per tool call
is measured by running the same one-call conversation with and without the
hook; the figures are printed at the end of the run.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from .standin import Standin

CLIENTS_ENV = "REDLINE_E2E_CLIENTS"
RUN_TIMEOUT_S = 90.0
HARD_LINE = "touch CANARY_BAD; mkfs.ext4 /dev/sdz9"
"""A hard line (`disk.mkfs-device`) that would only write the canary if it
ran: no machine that runs these tests has a 26th disk with a 9th partition,
so even a gate that failed would format nothing."""
ASKED = "touch CANARY_ASK && git push --force origin main"
"""Asked by the default policy (`vcs.push-force`); run in a folder that is no
git repository, it could push nothing."""
ALLOWED = "touch CANARY_OK"
BROKEN_POLICY = "version: 1\nrules: [this is not a policy\n"

TIMINGS: dict[str, dict[str, list[float]]] = {}


def clients_dir() -> Path:
    """The folder the pinned clients are installed in; skips (or, under
    `CI=true`, fails) when there is none."""
    folder = os.environ.get(CLIENTS_ENV, "").strip()
    if not folder:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{CLIENTS_ENV} is not set: CI must run the real clients (.ci/run)")
        pytest.skip(f"{CLIENTS_ENV} is not set (.ci/run installs the clients)")
    return Path(folder)


def client(name: str) -> str:
    path = clients_dir() / "node_modules" / ".bin" / name
    if not path.exists():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"the {name} client is not installed in {path.parent}")
        pytest.skip(f"the {name} client is not installed in {path.parent}")
    return str(path)


class Sandbox:
    """One client's world: HOME, REDLINE_HOME and a project folder."""

    def __init__(self, root: Path) -> None:
        self.home = root / "home"
        self.project = self.home / "project"
        self.redline_home = root / "redline"
        self.project.mkdir(parents=True)
        self.env: dict[str, str] = {
            "HOME": str(self.home),
            "REDLINE_HOME": str(self.redline_home),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "NO_COLOR": "1",
        }

    def write_json(self, relative: str, data: Any) -> Path:
        path = self.home / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=2))
        return path

    def install(self, host: str, *flags: str, policy: str | None = None) -> str:
        """`redline install HOST` into this HOME; its output."""
        env = dict(self.env)
        if policy is not None:
            path = self.home / "policy.yaml"
            path.write_text(policy)
            env["REDLINE_POLICY"] = str(path)
        done = subprocess.run(
            [sys.executable, "-m", "redline", "install", host, *flags],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    def canaries(self) -> list[str]:
        return sorted(p.name for p in self.project.iterdir() if p.name.startswith("CANARY"))

    def logged(self) -> list[tuple[str, str, str]]:
        """(tool, verdict, rules or code) of each decision in the approval log."""
        done = subprocess.run(
            [sys.executable, "-m", "redline", "log", "show", "--json"],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        if done.returncode != 0 or not done.stdout.strip():
            return []
        rows = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
        flat = [r for row in rows for r in (row if isinstance(row, list) else [row])]
        return [
            (
                str(r.get("tool")),
                str(r.get("verdict")),
                ",".join(r.get("rules") or []) or str(r.get("code") or ""),
            )
            for r in flat
            if r.get("kind", "decision") == "decision"
        ]


class Run:
    """One client run: its exit, output, time and what the model was told."""

    def __init__(self, done: subprocess.CompletedProcess[str], seconds: float, model: Standin):
        self.code = done.returncode
        self.stdout = done.stdout
        self.stderr = done.stderr
        self.seconds = seconds
        self.tool_results = list(model.tool_results)
        self.requests = len(model.requests)
        self.round_trip = model.round_trip

    @property
    def told(self) -> str:
        """Everything the model got back from its tool call."""
        return "\n".join(self.tool_results)

    def __repr__(self) -> str:
        return (
            f"Run(code={self.code}, seconds={self.seconds:.1f}, told={self.told!r}, "
            f"stdout={self.stdout[-800:]!r}, stderr={self.stderr[-1500:]!r})"
        )


def run_client(
    argv: Sequence[str],
    sandbox: Sandbox,
    model: Standin,
    env: Mapping[str, str] | None = None,
    timeout: float = RUN_TIMEOUT_S,
) -> Run:
    start = time.perf_counter()
    done = subprocess.run(
        list(argv),
        cwd=sandbox.project,
        env={**sandbox.env, **(env or {})},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return Run(done, time.perf_counter() - start, model)


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    return Sandbox(tmp_path)


@pytest.fixture
def make_sandbox(tmp_path: Path) -> Callable[[str], Sandbox]:
    def make(name: str) -> Sandbox:
        return Sandbox(tmp_path / name)

    return make


def record_timing(host: str, hooked: bool, run: Run) -> None:
    """The tool call's round trip as the stand-in saw it (the client's start
    and the model's turns are left out: they are the same with and without
    the hook, and vary by seconds on a busy machine)."""
    assert run.round_trip is not None, run
    seconds = run.round_trip
    TIMINGS.setdefault(host, {"with": [], "without": []})["with" if hooked else "without"].append(
        seconds
    )


def added_ms(host: str) -> float:
    runs = TIMINGS[host]
    return (statistics.median(runs["with"]) - statistics.median(runs["without"])) * 1000


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not TIMINGS:
        return
    terminalreporter.section("redline hook cost per tool call (real clients)")
    for host, runs in sorted(TIMINGS.items()):
        if runs["with"] and runs["without"]:
            terminalreporter.write_line(
                f"{host}: {added_ms(host):+.0f} ms (a tool call's round trip, median of "
                f"{len(runs['with'])} runs: {statistics.median(runs['with']) * 1000:.0f} ms with "
                f"the hook, {statistics.median(runs['without']) * 1000:.0f} ms without)"
            )
