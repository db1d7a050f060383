"""Cold start of each hook (issue #5, F-HOOKS-2). Prints figures; asserts nothing.

    python bench/bench_hooks.py [--runs N]

For each agent's hook: process start to decision (the whole hook process as
installed, `python -I -S -c '...' hook AGENT`, see `hook_argv`; stdin to
exit), median and p90 over N runs, for
an allowed call and for a denied one, against `python -c pass` (the target
is at most 4x). Then where the time goes: `-X importtime` of one hook by
part of redline (lowest of the runs), and in-process the gate's construction,
the check and the log append. Runs in a temporary REDLINE_HOME; the policy
cache and the bytecode are warmed first (PYTHONDONTWRITEBYTECODE is dropped).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, NamedTuple

CWD = "/srv/project"
# Beyond `ls -la` and `rm -rf /`: an everyday compound command, and an asked one.
EVERYDAY = "cd src && git status --short | grep -v '^??' > changes.txt; npm test 2>&1 | tail -5"
ASKED = "git push --force origin main"


def payloads(host: str, command: str) -> dict[str, Any]:
    if host == "hermes":
        return {
            "hook_event_name": "pre_tool_call",
            "tool_name": "terminal",
            "tool_input": {"command": command, "workdir": CWD},
            "session_id": "bench",
            "cwd": CWD,
            "extra": {"tool_call_id": "c"},
        }
    if host == "gemini":
        return {
            "session_id": "bench",
            "cwd": CWD,
            "hook_event_name": "BeforeTool",
            "tool_name": "run_shell_command",
            "tool_input": {"command": command},
        }
    if host == "generic":
        return {"tool": "terminal", "args": {"command": command, "workdir": CWD}, "session": "b"}
    return {
        "session_id": "bench",
        "cwd": CWD,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "t",
    }


def timed(argv: list[str], stdin: str, env: dict[str, str], runs: int) -> list[float]:
    return sorted(run_once(argv, stdin, env)[0] for _ in range(runs))


def run_once(argv: list[str], stdin: str, env: dict[str, str]) -> tuple[float, float]:
    """(wall ms, cpu ms) of one process, stdin to exit."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env, check=False)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu


class Row(NamedTuple):
    median: float
    p90: float
    ratio: float
    cpu: float
    cpu_ratio: float


def against_pass(
    argv: list[str], stdin: str, baseline: list[str], env: dict[str, str], runs: int
) -> Row:
    """`argv` timed in runs alternating with `baseline`'s, and divided by them."""
    walls, cpus, base_walls, base_cpus = [], [], [], []
    for _ in range(runs):
        wall, cpu = run_once(baseline, "", env)
        base_walls.append(wall)
        base_cpus.append(cpu)
        wall, cpu = run_once(argv, stdin, env)
        walls.append(wall)
        cpus.append(cpu)
    median, p90 = summary(sorted(walls))
    cpu = statistics.median(cpus)
    return Row(
        median,
        p90,
        median / statistics.median(base_walls),
        cpu,
        cpu / max(statistics.median(base_cpus), 1e-3),
    )


def print_row(name: str, row: Row) -> None:
    print(
        f"{name:44} {row.median:7.1f} {row.p90:7.1f} {row.ratio:7.2f} {row.cpu:7.1f} "
        f"{row.cpu_ratio:7.2f}"
    )


# The parts of a start-up, first match wins (a string is a module-name prefix, a
# tuple lists top-level module names); any other module counts for its importer.
IMPORT_GROUPS: tuple[tuple[str, str | tuple[str, ...]], ...] = (
    ("rule catalogue (redline.rules)", "redline.rules"),
    ("shell analysis (redline.shell)", "redline.shell"),
    ("gate (redline.gate*)", "redline.gate"),
    ("policy (redline.policy)", "redline.policy"),
    ("approval log (redline.audit)", "redline.audit"),
    ("hooks (redline.hooks)", "redline.hooks"),
    ("command line (redline.cli)", "redline.cli"),
    ("rest of redline", "redline"),
    ("interpreter start", ("site", "sitecustomize", "encodings", "_distutils_hack", "io")),
)
_IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+\d+ \|( *)(\S+)")


def _group_of(name: str) -> str | None:
    top_name = name.split(".")[0]
    for group, prefixes in IMPORT_GROUPS:
        if top_name in prefixes if isinstance(prefixes, tuple) else name.startswith(prefixes):
            return group
    return None


def import_breakdown(
    argv: list[str], stdin: str, env: dict[str, str], runs: int
) -> list[tuple[str, float, str]]:
    """ms of import time (self, lowest of `runs`) by the part of redline that
    brought each module in: a standard-library module counts for the nearest
    redline module that imported it. With the three costliest modules of each
    part. `-X importtime` itself adds some overhead."""
    best: dict[str, int] = {}
    owner: dict[str, str] = {}
    seen: set[str] = set()
    for _ in range(runs):
        done = subprocess.run(
            [argv[0], "-X", "importtime", *argv[1:]],
            input=stdin,
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        # Lines come children first; read backwards, a module's importer is
        # the nearest shallower line above it on the stack.
        stack: list[tuple[int, str]] = []
        seen = set()  # the last run's modules: a one-off (a cache miss) does not count
        for line in reversed(done.stderr.splitlines()):
            match = _IMPORT_LINE.match(line)
            if not match:
                continue
            us, depth, name = int(match.group(1)), len(match.group(2)), match.group(3)
            while stack and stack[-1][0] >= depth:
                stack.pop()
            group = _group_of(name) or (
                stack[-1][1] if stack else "stdlib, imported at start or in a function"
            )
            stack.append((depth, group))
            owner.setdefault(name, group)
            best[name] = min(best.get(name, us), us)
            seen.add(name)
    groups: dict[str, list[tuple[int, str]]] = collections.defaultdict(list)
    for name in seen:
        groups[owner[name]].append((best[name], name))
    rows = []
    for label, items in sorted(groups.items(), key=lambda kv: -sum(us for us, _ in kv[1])):
        top = ", ".join(f"{name} {us / 1000:.1f}" for us, name in sorted(items, reverse=True)[:3])
        rows.append((label, sum(us for us, _ in items) / 1000, top))
    return rows


def print_breakdown(title: str, rows: list[tuple[str, float, str]]) -> None:
    print(f"\n{title}")
    for label, ms, top in rows:
        print(f"  {label:42} {ms:6.1f}  ({top})")
    print(f"  {'total':42} {sum(ms for _, ms, _ in rows):6.1f}")


def summary(times: list[float]) -> tuple[float, float]:
    return statistics.median(times), times[int(len(times) * 0.9) - 1 if len(times) > 1 else 0]


def in_process(env: dict[str, str], runs: int) -> dict[str, float]:
    """Median ms of the stages a hook goes through, after imports."""
    from redline.audit.recorder import record_decision
    from redline.audit.shared import drop_shared_log, shared_log
    from redline.gate.actions import ToolCall
    from redline.gatekeeper import Gate

    stages: dict[str, list[float]] = {"gate": [], "check": [], "log": []}
    for _ in range(runs):
        t0 = time.perf_counter()
        gate = Gate.from_environ(env)
        t1 = time.perf_counter()
        decision = gate.check(ToolCall("Bash", {"command": "ls -la"}, CWD))
        t2 = time.perf_counter()
        drop_shared_log()  # each run opens it, as a hook process does (and never closes it)
        store = shared_log(env)
        record_decision(
            store,
            session="bench",
            context=None,
            agent="bench",
            tool="Bash",
            args={"command": "ls -la"},
            decision=decision,
            environ=env,
        )
        t3 = time.perf_counter()
        stages["gate"].append((t1 - t0) * 1000)
        stages["check"].append((t2 - t1) * 1000)
        stages["log"].append((t3 - t2) * 1000)
    return {name: statistics.median(values) for name, values in stages.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    runs = args.runs
    home = tempfile.mkdtemp(prefix="redline-bench-")
    env = {
        "REDLINE_HOME": home,
        "HOME": os.environ.get("HOME", home),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    }  # no PYTHONDONTWRITEBYTECODE: the bytecode caches stay warm, as installed
    py = sys.executable
    try:
        # Warm the policy cache and the bytecode, as on a machine in use.
        for host in ("claude-code", "codex", "gemini", "hermes", "generic"):
            stdin = json.dumps(payloads(host, "ls -la"))
            timed([py, "-m", "redline", "hook", host], stdin, env, 2)

        from redline.hooks.install import hook_argv

        print(
            f"cold start, median of {runs} runs (ms); target: hook <= 4x `python -c pass`.\n"
            "Each row alternates its runs with `python -c pass` runs and is divided by\n"
            "their median, so load from elsewhere on the machine hits both alike; cpu is\n"
            "the process's user+system time.\n"
        )
        print(f"{'':44} {'median':>7} {'p90':>7} {'x pass':>7} {'cpu':>7} {'x pass':>7}")
        system = shutil.which("python3")
        measured: list[tuple[str, list[str], str]] = [("python -c pass", [py, "-c", "pass"], "")]
        if system:
            measured.append(("python3 -c pass (system)", [system, "-c", "pass"], ""))
        for module in ("redline", "redline.command", "redline.gatekeeper"):
            measured.append((f"python -c 'import {module}'", [py, "-c", f"import {module}"], ""))
        for host in ("claude-code", "codex", "gemini", "hermes", "generic"):
            for label, command in (("allow", "ls -la"), ("deny", "rm -rf /")):
                stdin = json.dumps(payloads(host, command))
                measured.append((f"redline hook {host} ({label})", hook_argv(host), stdin))
        for label, command in (("a pipeline", EVERYDAY), ("asked", ASKED)):
            stdin = json.dumps(payloads("claude-code", command))
            argv = hook_argv("claude-code")
            measured.append((f"redline hook claude-code ({label})", argv, stdin))
        stdin = json.dumps(payloads("claude-code", "ls -la"))
        argv = [py, "-m", "redline", "hook", "claude-code"]
        measured.append(("python -m redline hook claude-code (allow)", argv, stdin))
        for name, argv, stdin in measured:
            print_row(name, against_pass(argv, stdin, [py, "-c", "pass"], env, runs))
        from redline.hooks.install import hook_command

        wrapped = hook_command("claude-code", environ=env)
        stdin = json.dumps(payloads("claude-code", "ls -la"))
        name = "installed command (sh wrapper), claude-code"
        print_row(
            name, against_pass(["/bin/sh", "-c", wrapped], stdin, [py, "-c", "pass"], env, runs)
        )

        stdin = json.dumps(payloads("claude-code", "ls -la"))
        argv = hook_argv("claude-code")
        title = "where the time goes: import time of `redline hook claude-code` (ms, self)"
        print_breakdown(title, import_breakdown(argv, stdin, env, min(runs, 10)))

        stages = in_process(env, runs)
        print("\nin one process, after imports (median ms):")
        for stage, label in (
            ("gate", "Gate.from_environ (policy from cache)"),
            ("check", "gate.check (Bash `ls -la`)"),
            ("log", "open the log + record_decision (no close)"),
        ):
            print(f"  {label:42} {stages[stage]:8.2f}")
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
