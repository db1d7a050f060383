"""What the second opinion (F-APPROVE-6) costs a hook. Prints figures; asserts nothing.

    python bench/bench_opinion.py [--runs N]

Whole hook processes (`python -m redline hook generic`, stdin to exit),
median and p90 over N runs, against `python -c pass`:
- `off`: the shipped policy (no `second_opinion` block): the hook as before;
- `on, not selected`: the block is there but the call (`ls -la`) carries no
  risk signal, so no model is asked: the price of the block alone;
- `on, asked`: a call with a risk signal (`./deploy.sh`), the model a local
  stand-in of the chat API on 127.0.0.1 that answers at once: the step's own
  cost (HTTP client, prompt, budget file, the opinion's log entry).
Then in process, the `consult` step alone: asked (against the stand-in),
and for a call it does not select.
Runs in a temporary REDLINE_HOME.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CWD = "/srv/project"


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        body = json.dumps({"choices": [{"message": {"content": "KEEP: looks routine"}}]}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def timed(argv: list[str], stdin: str, env: dict[str, str], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env, check=False)
        times.append((time.perf_counter() - start) * 1000)
    return sorted(times)


def line(label: str, times: list[float], base: float) -> str:
    median = statistics.median(times)
    p90 = times[int(len(times) * 0.9) - 1]
    return f"{label:<28} median {median:7.1f} ms  p90 {p90:7.1f} ms  ({median / base:4.1f}x pass)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    runs = parser.parse_args().runs
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    with tempfile.TemporaryDirectory() as tmp:
        from redline.policy.load import default_policy_path

        shipped = Path(default_policy_path()).read_text(encoding="utf-8")
        block = json.dumps({"base_url": url, "model": "stand-in", "max_calls_per_hour": 100000})
        policy = Path(tmp, "policy.yaml")
        policy.write_text(f"{shipped}\nsecond_opinion: {block}\n", encoding="utf-8")
        base_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp}
        off = {**base_env, "REDLINE_HOME": str(Path(tmp, "off"))}
        on = {**base_env, "REDLINE_HOME": str(Path(tmp, "on")), "REDLINE_POLICY": str(policy)}
        hook = [sys.executable, "-m", "redline", "hook", "generic"]

        def payload(command: str) -> str:
            return json.dumps({"tool": "terminal", "args": {"command": command, "workdir": CWD}})

        for env in (off, on):  # warm the policy cache and the bytecode
            timed(hook, payload("./deploy.sh"), env, 3)
        cases = [
            ("python -c pass", [sys.executable, "-c", "pass"], "", base_env),
            ("off", hook, payload("ls -la"), off),
            ("off, risky call", hook, payload("./deploy.sh"), off),
            ("on, not selected", hook, payload("ls -la"), on),
            ("on, asked (stand-in)", hook, payload("./deploy.sh"), on),
        ]
        # Round robin: a busy machine's noise falls on every case alike.
        times: dict[str, list[float]] = {label: [] for label, *_ in cases}
        for _ in range(runs):
            for label, argv, stdin, env in cases:
                times[label] += timed(argv, stdin, env, 1)
        base = statistics.median(times["python -c pass"])
        print(f"{'python -c pass':<28} median {base:7.1f} ms")
        for label, *_ in cases[1:]:
            print(line(label, sorted(times[label]), base))

        from redline.gate.actions import ToolCall
        from redline.gatekeeper import Gate
        from redline.opinion.consult import consult

        gate = Gate(policy, redline_home=on["REDLINE_HOME"])
        call = ToolCall("terminal", {"command": "./deploy.sh", "workdir": CWD}, CWD)
        decision = gate.check(call)
        steps = []
        for _ in range(runs):
            start = time.perf_counter()
            consult(gate, call, decision, on)
            steps.append((time.perf_counter() - start) * 1000)
        print(f"{'consult, asked':<28} median {statistics.median(sorted(steps)):7.1f} ms")
        plain = ToolCall("terminal", {"command": "ls -la", "workdir": CWD}, CWD)
        evaluation = gate.evaluate(plain)
        steps = []
        for _ in range(runs):
            start = time.perf_counter()
            consult(gate, plain, evaluation.decision, on, evaluation=evaluation)
            steps.append((time.perf_counter() - start) * 1000)
        print(f"{'consult, not selected':<28} median {statistics.median(sorted(steps)):7.3f} ms")
    server.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
