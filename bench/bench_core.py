"""Benchmark of the core classifier (issue #2). Prints figures; asserts nothing.

    python bench/bench_core.py [--tldr PATH] [--runs N]

Figures: µs per `check_command` (median, p99) and commands/s over tldr and our
own corpus; import time; cold start of `redline check ls` (and with
`--record`) against `python -c pass` of the same interpreter (target: at most 4x), and where its
start-up time goes by part of redline; time for 1 MB commands of several
shapes at three sizes (to show linear growth); the alarm rate on tldr,
broken down by rule.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TLDR = ROOT.parent / "shared" / "corpora" / "tldr.jsonl"


def load_tldr(path: Path) -> list[str]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [row["command"] for row in rows if not row.get("interactive")]


def load_corpus() -> list[str]:
    commands: list[str] = []
    for path in sorted((ROOT / "tests" / "corpus").glob("*.yaml")):
        commands.extend(case["command"] for case in yaml.safe_load(path.read_text()))
    return commands


def per_command(commands: list[str]) -> dict[str, float]:
    from redline import check_command

    for command in commands[:500]:  # warm caches
        check_command(command)
    times: list[int] = []
    clock = time.perf_counter_ns
    for command in commands:
        start = clock()
        check_command(command)
        times.append(clock() - start)
    times.sort()
    total = sum(times) / 1e9
    return {
        "n": len(times),
        "median_us": times[len(times) // 2] / 1000,
        "p99_us": times[int(len(times) * 0.99)] / 1000,
        "max_us": times[-1] / 1000,
        "commands_per_s": len(times) / total,
    }


def _median_run(argv: list[str], runs: int, env: dict[str, str]) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        quiet = subprocess.DEVNULL
        subprocess.run(argv, stdout=quiet, stderr=quiet, env=env, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def cold_start(runs: int, home: str) -> dict[str, float]:
    # Warm bytecode caches, as on a machine in use; a log of its own for --record.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(REDLINE_HOME=home)
    env.pop("REDLINE_STORE", None)
    python = sys.executable
    redline = shutil.which("redline", path=str(Path(python).parent)) or "redline"
    subprocess.run([redline, "check", "ls"], capture_output=True, env=env, check=False)  # bytecode
    subprocess.run([redline, "check", "--record", "ls"], capture_output=True, env=env, check=False)
    # The same interpreter: a `python3` found on PATH can be a slow shim.
    baseline = _median_run([python, "-c", "pass"], runs, env)
    figures = {
        "python -c pass ms (this interpreter)": baseline,
        "import redline ms": _median_run([python, "-c", "import redline"], runs, env),
        "import redline.command ms": _median_run(
            [python, "-c", "import redline.command"], runs, env
        ),
        "redline check ls ms": _median_run([redline, "check", "ls"], runs, env),
        "redline check --record ls ms": _median_run(
            [redline, "check", "--record", "ls"], runs, env
        ),
    }
    figures["ratio to python -c pass"] = figures["redline check ls ms"] / baseline
    figures["ratio with --record"] = figures["redline check --record ls ms"] / baseline
    return figures


def check_breakdown(runs: int, home: str) -> None:
    from bench_hooks import import_breakdown, print_breakdown

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(REDLINE_HOME=home)
    redline = shutil.which("redline", path=str(Path(sys.executable).parent)) or "redline"
    argv = [sys.executable, redline, "check", "ls"]
    title = "# where the time goes: import time of `redline check ls` (ms, self)"
    print_breakdown(title, import_breakdown(argv, "", env, runs))


def large_commands() -> list[tuple[str, int, float, str]]:
    from redline import check_command

    shapes = {
        "one long argument": lambda n: "echo " + "a" * n,
        "one quoted argument": lambda n: "echo '" + "word " * (n // 5) + "'",
        "heredoc script": lambda n: "python3 - <<'EOF'\n" + "print(1)\n" * (n // 9) + "EOF\n",
        "many short commands": lambda n: "ls; " * (n // 4),
        "bash -c script": lambda n: "bash -c '" + "echo hi; " * (n // 9) + "'",
    }
    rows = []
    for name, build in shapes.items():
        for size in (256 * 1024, 512 * 1024, 1024 * 1024):
            command = build(size)
            start = time.perf_counter()
            decision = check_command(command)
            elapsed = (time.perf_counter() - start) * 1000
            rows.append((name, len(command), elapsed, str(decision.verdict)))
    return rows


def alarm_rate(commands: list[str]) -> tuple[float, float, collections.Counter[str]]:
    from redline import check_command
    from redline.decision import Verdict

    by_rule: collections.Counter[str] = collections.Counter()
    asked = denied = 0
    for command in commands:
        decision = check_command(command)
        if decision.verdict is Verdict.ASK:
            asked += 1
        elif decision.verdict is Verdict.DENY:
            denied += 1
        for rule_id in set(decision.rule_ids):
            by_rule[rule_id] += 1
    return asked / len(commands), denied / len(commands), by_rule


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tldr", type=Path, default=DEFAULT_TLDR)
    parser.add_argument("--runs", type=int, default=30, help="process starts per cold-start figure")
    parser.add_argument("--top", type=int, default=25, help="rules to list in the alarm breakdown")
    args = parser.parse_args()

    tldr = load_tldr(args.tldr)
    corpus = load_corpus()
    print(f"# redline core benchmark (python {sys.version.split()[0]}, {os.cpu_count()} cores)")
    for label, commands in (("tldr", tldr), ("own corpus", corpus)):
        f = per_command(commands)
        print(
            f"check_command over {label} ({f['n']} commands): median {f['median_us']:.1f} µs, "
            f"p99 {f['p99_us']:.1f} µs, max {f['max_us']:.0f} µs, "
            f"{f['commands_per_s']:,.0f} commands/s"
        )

    print("\n# cold start (median of", args.runs, "process starts)")
    home = tempfile.mkdtemp(prefix="redline-bench-")
    try:
        for key, value in cold_start(args.runs, home).items():
            print(f"{key}: {value:.2f}")
        check_breakdown(min(args.runs, 10), home)
    finally:
        shutil.rmtree(home, ignore_errors=True)

    print("\n# large commands (growth should be linear in size)")
    for name, size, ms, verdict in large_commands():
        print(f"{name:22} {size / 1024:7.0f} KiB {ms:9.1f} ms  {verdict}")

    asked, denied, by_rule = alarm_rate(tldr)
    print(
        f"\n# alarm rate on tldr: {100 * (asked + denied):.2f}% "
        f"(asked {100 * asked:.2f}%, denied {100 * denied:.2f}%) of {len(tldr)} commands"
    )
    for rule_id, count in by_rule.most_common(args.top):
        print(f"  {rule_id:34} {count:6}  {100 * count / len(tldr):.2f}%")


if __name__ == "__main__":
    main()
