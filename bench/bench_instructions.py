"""Instructions a hook process executes, against `python -c pass` (issue 13).
Prints figures; asserts nothing. Needs valgrind (`callgrind`).

    python bench/bench_instructions.py [SRC ...]

Wall time on a shared machine drifts by more than the changes a cold start
is made of (a process's ms swing 30% between runs); the count of executed
instructions does not: two runs of the same code differ by well under 1%.
Each SRC is a `src` directory holding a `redline` package (default: this
checkout's), run the way an installed hook runs (`hook_argv`'s form), in a
temporary REDLINE_HOME after two warming calls (policy cache, catalogue
index, hook image). Each row names the verdict the hook gave, so a hook that
failed or stopped early (a deadline under valgrind) shows as such.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from bench_hooks import ASKED, EVERYDAY, payloads

CASES = {"allow": "ls -la", "deny": "rm -rf /", "asked": ASKED, "a pipeline": EVERYDAY}
_COLLECTED = re.compile(r"Collected : (\d+)")


def hook_argv(src: str) -> list[str]:
    site = [p for p in sys.path if p.endswith("site-packages")]
    paths = json.dumps([src, *site])
    code = f"import sys; sys.path[:0] = {paths}; import redline.__main__ as m; m.run()"
    return [sys.executable, "-I", "-S", "-c", code, "hook", "claude-code"]


def instructions(argv: list[str], stdin: str, env: dict[str, str]) -> tuple[int, str]:
    """Instructions executed by one process, and what it answered."""
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    match = _COLLECTED.search(done.stderr)
    if match is None:
        raise SystemExit(f"valgrind did not report a count:\n{done.stderr[-2000:]}")
    out = done.stdout
    verdict = "deny" if '"deny"' in out else "ask" if '"ask"' in out else "allow"
    if done.returncode != 0 or (out.strip() and verdict == "allow"):
        verdict = f"exit {done.returncode}?"
    return int(match.group(1)), verdict


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    parser.add_argument("src", nargs="*", default=[here])
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: nothing to count")
        return 0
    base_env = {"HOME": os.environ.get("HOME", "/tmp"), "PATH": os.environ.get("PATH", "/bin")}
    baseline, _ = instructions([sys.executable, "-c", "pass"], "", base_env)
    print(f"python -c pass: {baseline / 1e6:.1f} M instructions")
    for src in args.src:
        home = tempfile.mkdtemp(prefix="redline-instr-")
        env = {**base_env, "REDLINE_HOME": home}
        try:
            row = []
            for label, command in CASES.items():
                stdin = json.dumps(payloads("claude-code", command))
                for _ in range(2):  # policy cache, catalogue index, hook image, kept patterns
                    subprocess.run(
                        hook_argv(src), input=stdin, capture_output=True, text=True, env=env
                    )
                count, verdict = instructions(hook_argv(src), stdin, env)
                row.append(f"{label} [{verdict}] {count / 1e6:.1f} M {count / baseline:.2f}x")
            print(f"{src}: " + " | ".join(row))
        finally:
            shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
