"""Benchmark of the tool-call gate (issue #3). Prints figures; asserts nothing.

    python bench/bench_gate.py [--tldr PATH] [--limit N]

Figures: ms per write of an ordinary 100 KB file (Markdown, JSON, a Python
module, a Makefile rewritten and one with every recipe line new) by a file
tool; µs per `Gate.check` (what `check_tool_call` runs; median, p99) for
file tools (every path new, then paths repeated as in a working session)
and for `terminal` calls over the tldr corpus, with the verdicts and codes
the shipped policy gives them; the cold start of a hook-like process
(import and first decision, with the compiled policy cached) against
`python3 -c pass`.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TLDR = ROOT.parent / "shared" / "corpora" / "tldr.jsonl"


def load_tldr(path: Path, limit: int) -> list[str]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    commands = [row["command"] for row in rows if not row.get("interactive")]
    return commands[:limit] if limit else commands


def file_calls(distinct: bool = False) -> list[tuple[str, dict[str, Any], str | None]]:
    """Reads, writes, edits and searches in a project; with `distinct`, no
    path repeats (a long-lived gate caches the catalogue's verdict per path)."""
    calls: list[tuple[str, dict[str, Any], str | None]] = []
    for i in range(400):
        path = f"/srv/app/src/pkg{i % 17}/module_{i}.py"
        if distinct:
            calls += [
                ("read_file", {"path": path + "r"}, None),
                ("write_file", {"path": path + "w", "content": "x = 1\n"}, None),
                ("Edit", {"file_path": path + "e", "old_string": "a", "new_string": "b"}, "/"),
                ("Grep", {"pattern": "import", "path": f"src/{i}"}, "/srv/app"),
            ]
            continue
        calls += [
            ("read_file", {"path": path}, None),
            ("write_file", {"path": path, "content": "x = 1\n"}, None),
            ("patch", {"path": path, "old_string": "x", "new_string": "y"}, None),
            ("search_files", {"pattern": "TODO", "path": "/srv/app/src"}, None),
            ("Read", {"file_path": path}, "/srv/app"),
            ("Write", {"file_path": f"src/new_{i}.py", "content": "pass\n"}, "/srv/app"),
            ("Edit", {"file_path": path, "old_string": "a", "new_string": "b"}, "/srv/app"),
            ("Grep", {"pattern": "import", "path": "src"}, "/srv/app"),
        ]
    if distinct:
        return calls
    calls += [
        ("read_file", {"path": "/home/me/.ssh/id_ed25519"}, None),
        ("write_file", {"path": "/home/me/.hermes/config.yaml", "content": "x"}, None),
        ("Write", {"file_path": "/etc/hosts", "content": "x"}, "/"),
    ] * 20
    return calls


# -- ordinary 100 KB files, written by a file tool ---------------------------
# The goal (issue 18): each judged in <= 2 ms median. Every run writes a new
# text (a number changes), so no cache of an earlier verdict helps.


def markdown(n: int = 0) -> str:
    parts = [f"# Guide {n}\n\n"]
    k = 0
    while sum(map(len, parts)) < 100_000:
        parts.append(
            f"## Section {k}\n\nThe service reads its settings from `config/app.yaml` and "
            f"writes logs under `/var/log/app`. Run `make test` before a release; see "
            f"[the docs](https://example.org/docs/{k}).\n\n"
            f"```bash\npip install -e .\npytest -q tests/test_{k}.py\n```\n\n"
        )
        k += 1
    return "".join(parts)


def json_text(n: int = 0) -> str:
    items: list[dict[str, Any]] = []
    k = 0
    while True:
        items.append(
            {
                "id": k,
                "name": f"item-{k}",
                "tags": ["a", "b", f"t{k % 7}"],
                "price": k * 1.5,
                "url": f"https://example.org/items/{k}",
                "active": k % 2 == 0,
                "rev": n,
            }
        )
        k += 1
        if k % 50 == 0 and len(json.dumps(items)) > 100_000:
            break
    return json.dumps({"items": items}, indent=1)


def python_module(n: int = 0) -> str:
    parts = [f'"""Module {n}."""\n\nimport os\nimport subprocess\nfrom pathlib import Path\n\n']
    k = 0
    while sum(map(len, parts)) < 100_000:
        parts.append(f'''
def handler_{k}(request, root: Path = Path("/srv/app")) -> dict:
    """Handle request {k}: read the record and answer."""
    path = root / "data" / f"record_{k}.json"
    if not path.exists():
        return {{"status": 404, "path": str(path)}}
    text = path.read_text(encoding="utf-8")
    result = subprocess.run(["git", "log", "-1", "--format=%H"], capture_output=True, text=True)
    return {{"status": 200, "size": len(text), "rev": result.stdout.strip(), "n": {k}}}

''')
        k += 1
    return "".join(parts)


def makefile(n: int = 0) -> str:
    parts = [
        f"# build {n}\nCC ?= gcc\nCFLAGS := -O2 -Wall\nPYTHON ?= python3\n"
        "VERSION := $(shell git describe --tags)\n.PHONY: all clean test\n\n"
    ]
    k = 0
    while sum(map(len, parts)) < 100_000:
        parts.append(
            f"build/obj_{k}.o: src/mod_{k}.c include/mod_{k}.h\n\t@mkdir -p build\n"
            "\t$(CC) $(CFLAGS) -c $< -o $@\n\n"
            f"test_{k}: build/obj_{k}.o\n\t$(PYTHON) -m pytest -q tests/test_{k}.py \\\n"
            f"\t\t--junitxml=build/report_{k}.xml\n\t-rm -f build/tmp_{k}\n\n"
        )
        k += 1
    parts.append("clean:\n\trm -rf build dist\n")
    return "".join(parts)


def makefile_new_recipes(n: int = 0) -> str:
    """A Makefile whose every recipe line is new in each run (`makefile`'s
    texts differ only by a comment, so its figure is a rewrite's, with each
    recipe line's findings remembered)."""
    parts = [
        f"# build {n}\nCC ?= gcc\nCFLAGS := -O2 -Wall\nPYTHON ?= python3\n"
        "VERSION := $(shell git describe --tags)\n.PHONY: all clean test\n\n"
    ]
    k = 0
    while sum(map(len, parts)) < 100_000:
        parts.append(
            f"build/obj_{k}.o: src/mod_{k}.c include/mod_{k}.h\n\t@mkdir -p build/r{n}\n"
            f"\t$(CC) $(CFLAGS) -DREV={n} -c $< -o $@\n\n"
            f"test_{k}: build/obj_{k}.o\n\t$(PYTHON) -m pytest -q tests/test_{k}.py \\\n"
            f"\t\t--junitxml=build/report_{k}_{n}.xml\n\t-rm -f build/tmp_{k}_{n}\n\n"
        )
        k += 1
    parts.append("clean:\n\trm -rf build dist\n")
    return "".join(parts)


FILES = {
    "Markdown": ("docs/guide.md", markdown),
    "JSON": ("config/data.json", json_text),
    "Python module": ("src/app/handlers.py", python_module),
    "Makefile, rewritten (a comment changes)": ("Makefile", makefile),
    "Makefile, every recipe line new": ("Makefile", makefile_new_recipes),
}


def big_writes(gate: Any, runs: int) -> dict[str, Any]:
    from redline.gate.actions import ToolCall

    figures: dict[str, Any] = {}
    for label, (path, make) in FILES.items():
        texts = [make(n) for n in range(runs + 1)]
        gate.check(ToolCall("Write", {"file_path": "/srv/app/" + path, "content": texts[-1]}))
        times = []
        for text in texts[:runs]:
            call = ToolCall("Write", {"file_path": "/srv/app/" + path, "content": text})
            start = time.perf_counter_ns()
            decision = gate.check(call)
            times.append(time.perf_counter_ns() - start)
        figures[label] = {
            "kb": len(texts[0]) // 1024,
            "median_ms": round(statistics.median(times) / 1e6, 2),
            "verdict": str(decision.verdict),
        }
    return figures


def measure(gate: Any, calls: list[tuple[str, dict[str, Any], str | None]]) -> dict[str, Any]:
    from redline.gate.actions import ToolCall

    tool_calls = [ToolCall(tool, args, cwd) for tool, args, cwd in calls]
    for call in tool_calls[:300]:  # warm caches
        gate.check(call)
    times: list[int] = []
    outcomes: collections.Counter[str] = collections.Counter()
    clock = time.perf_counter_ns
    for call in tool_calls:
        start = clock()
        decision = gate.check(call)
        times.append(clock() - start)
        outcomes[f"{decision.verdict}" + (f" ({decision.code})" if decision.code else "")] += 1
    times.sort()
    return {
        "calls": len(times),
        "median_us": round(times[len(times) // 2] / 1000, 1),
        "p99_us": round(times[int(len(times) * 0.99)] / 1000, 1),
        "max_us": round(times[-1] / 1000, 1),
        "calls_per_s": round(len(times) / (sum(times) / 1e9)),
        "outcomes": dict(outcomes.most_common()),
    }


def cold_start(home: Path, runs: int) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(REDLINE_HOME=str(home), HOME="/home/me")
    env.pop("REDLINE_POLICY", None)
    hook = (
        "from redline import check_tool_call\n"
        "check_tool_call('terminal', {'command': 'git status', 'workdir': '/srv/app'})\n"
    )
    subprocess.run([sys.executable, "-c", hook], env=env, check=True)  # bytecode, policy cache

    def median_ms(argv: list[str]) -> float:
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run(argv, env=env, check=True)
            times.append(time.perf_counter() - start)
        return round(statistics.median(times) * 1000, 1)

    baseline = median_ms([sys.executable, "-c", "pass"])
    command = median_ms([sys.executable, "-c", "import redline; redline.check_command('ls')"])
    gate = median_ms([sys.executable, "-c", hook])
    return {
        "python -c pass ms": baseline,
        "import + check_command ms": command,
        "import + first check_tool_call ms (cached policy)": gate,
        "gate over python ms": round(gate - baseline, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tldr", type=Path, default=DEFAULT_TLDR)
    parser.add_argument("--limit", type=int, default=0, help="tldr commands to use (0: all)")
    parser.add_argument("--runs", type=int, default=7, help="cold-start runs")
    parser.add_argument("--big-runs", type=int, default=9, help="runs per 100 KB file write")
    options = parser.parse_args()

    from redline.gatekeeper import Gate

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "redline"
        home.mkdir()
        gate = Gate(home="/home/me", redline_home=home, cache_dir=home / "cache")
        print(json.dumps({"file tools, distinct paths": measure(gate, file_calls(True))}, indent=1))
        print(json.dumps({"file tools, paths repeated": measure(gate, file_calls())}, indent=1))
        print(json.dumps({"100 KB file writes": big_writes(gate, options.big_runs)}, indent=1))
        if options.tldr.exists():
            commands = load_tldr(options.tldr, options.limit)
            calls = [("terminal", {"command": c, "workdir": "/srv/app"}, None) for c in commands]
            print(json.dumps({"terminal (tldr)": measure(gate, calls)}, indent=1))
        else:
            print(f"tldr corpus not found at {options.tldr}; terminal figures skipped")
        print(json.dumps({"cold start": cold_start(home, options.runs)}, indent=1))


if __name__ == "__main__":
    main()
