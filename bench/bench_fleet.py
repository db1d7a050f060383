"""Fleet benchmark: 2 replicas of `redline serve` on one PostgreSQL schema.

Run as `python bench/bench_fleet.py` (about a minute; PostgreSQL on
127.0.0.1:5432, database `test`, or `--pg URL`). 64 simulated agents (half on
each replica's hook socket, from 2 load processes) send a mix of calls the
gate decides at once and calls it holds; a simulated owner answers every held
call on replica B as soon as it sees it. Like a real hook, an agent opens a
connection per call (`--keep-alive`: one per agent); it calls back to back,
or (`--rate N`) the agents offer N calls a second in all at random moments,
each call timed from when it was due. The replicas run without judging
workers (`--workers`): two replicas on 2 cores are one process a core.
It prints:
- auto-decisions per second in total, and their p50/p99 latency;
- the replicas' CPU a call (both replicas, with any workers);
- the held calls' answer latency: from the owner's answer (on B) to the hook
  that waited (on A or B) receiving it;
- the chain check at the end: `log verify` of the shared log, and the count of
  entries against the calls sent (no entry lost, none twice).
Goal on a 2-core machine: >= 4,000 auto-decisions/s with p99 <= 20 ms. Back to
back, latency is the agents' count over the rate (Little's law: 64 agents at
4,000/s wait 16 ms on average), so p99 at a given load is `--rate`'s to say.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "approve"))

from servicekit import ServiceProcess, make_env  # noqa: E402

from redline.approve.paths import ServicePaths  # noqa: E402
from redline.approve.wire import exchange  # noqa: E402

AUTO = {"tool": "Bash", "args": {"command": "git status"}, "cwd": "/work/project"}
HELD_EVERY = 100
"""One call in this many is held for the owner."""


def _request(path: str, body: dict[str, Any] | None = None, *, close: bool = False) -> bytes:
    data = b"" if body is None else json.dumps(body).encode()
    method = "GET" if body is None else "POST"
    head = (
        f"{method} {path} HTTP/1.1\r\nHost: redline\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(data)}\r\n{'Connection: close' + chr(13) + chr(10) if close else ''}"
        "\r\n"
    )
    return head.encode() + data


async def _reply(reader: asyncio.StreamReader) -> dict[str, Any]:
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    value: dict[str, Any] = json.loads(await reader.readexactly(length))
    return value


class Hook:
    """One agent's way to the service: like a real hook, a connection per
    request (`Connection: close`, as `approve.client` sends), or one kept alive."""

    def __init__(self, socket_path: str, keep_alive: bool) -> None:
        self.path = socket_path
        self.keep_alive = keep_alive
        self.conn: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def ask(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        if self.conn is None:
            self.conn = await asyncio.open_unix_connection(self.path)
        reader, writer = self.conn
        writer.write(_request(path, body, close=not self.keep_alive))
        reply = await _reply(reader)
        if not self.keep_alive:
            self.close()
        return reply

    def close(self) -> None:
        if self.conn is not None:
            self.conn[1].close()
            self.conn = None


async def _agent(
    hook: Hook, n: int, end: float, interval: float | None, out: dict[str, list[float]]
) -> None:
    """Calls back to back, or (`interval`) at random moments `interval`
    apart on average, each timed from the moment it was due: a call held up
    behind a slow one counts its wait too."""
    k = 0
    due = time.perf_counter()
    while True:
        if interval is not None:
            due += random.expovariate(1 / interval)
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
        if time.perf_counter() >= end:
            break
        k += 1
        held = k % HELD_EVERY == 0
        command = f"git push --force origin a{n}-{k}" if held else "git status"
        body = {**AUTO, "args": {"command": command}, "session": f"agent-{n}"}
        body["nonce"] = uuid.uuid4().hex
        start = due if interval is not None else time.perf_counter()
        reply = await hook.ask("/v1/decide", body)
        if reply.get("status") == "answered":
            out["auto"].append(time.perf_counter() - start)
            continue
        request = reply["request"]
        while True:
            answer = await hook.ask(f"/v1/held/{request}?wait=30")
            if answer.get("status") == "answered":
                out["held"].append(time.time())
                out["held_ids"].append(request)  # type: ignore[arg-type]
                break
        due = max(due, time.perf_counter())  # a held call's wait is not a backlog
    hook.close()


def _load_process(
    sockets: list[str],
    first: int,
    count: int,
    seconds: float,
    interval: float | None,
    keep_alive: bool,
    queue: Any,
) -> None:
    out: dict[str, list[Any]] = {"auto": [], "held": [], "held_ids": []}

    async def run() -> None:
        end = time.perf_counter() + seconds
        await asyncio.gather(
            *(
                _agent(Hook(sockets[n % len(sockets)], keep_alive), n, end, interval, out)
                for n in range(first, first + count)
            )
        )

    asyncio.run(run())
    queue.put(out)


def _owner(service: ServiceProcess, stop: threading.Event, answered: dict[str, float]) -> None:
    while not stop.is_set():
        status, reply = exchange(service.paths.owner_socket, "GET", "/v1/pending", timeout=30)
        for row in reply.get("pending", []) if status == 200 else []:
            if row["id"] in answered:
                continue
            answered[row["id"]] = time.time()
            exchange(
                service.paths.owner_socket,
                "POST",
                f"/v1/held/{row['id']}/approve",
                {"by": "bench"},
                timeout=30,
            )
        time.sleep(0.02)


def _cpu_s(pids: list[int]) -> float:
    """CPU seconds used so far by `pids` and their children (Linux `/proc`;
    0 elsewhere): the replicas' own cost, apart from the load and the machine's."""
    total = 0.0
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    seen: set[int] = set()
    todo = list(pids)
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            for task in Path(f"/proc/{pid}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pg", default="postgresql://root@127.0.0.1:5432/test")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--agents", type=int, default=64)
    parser.add_argument(
        "--workers",
        type=int,
        default=0,
        help="each replica's judging workers (0: the 2 replicas are already one process a core)",
    )
    parser.add_argument(
        "--rate",
        type=float,
        default=None,
        help="calls a second in all, at random moments (default: each agent back to back)",
    )
    parser.add_argument(
        "--keep-alive",
        action="store_true",
        help="one connection per agent (default: one per call, as a hook opens)",
    )
    args = parser.parse_args()
    import psycopg

    from redline.audit.store import Query, open_store, verify_store

    schema = f"bench_fleet_{uuid.uuid4().hex[:10]}"
    url = f"{args.pg}?schema={schema}"
    tmp = Path(tempfile.mkdtemp(prefix="bench-fleet-"))
    envs = []
    for name in ("a", "b"):
        (tmp / name).mkdir()
        envs.append(make_env(tmp / name))
    serve = ["--store", url, "--timeout", "600", "--workers", str(args.workers)]
    a = ServiceProcess(envs[0], *serve).start()
    src = ServicePaths(envs[0]["REDLINE_HOME"])
    shutil.copytree(
        src.service_dir,
        ServicePaths(envs[1]["REDLINE_HOME"]).service_dir,
        ignore=shutil.ignore_patterns("*.sock", "serve.json"),
        dirs_exist_ok=True,
    )
    b = ServiceProcess(envs[1], *serve).start()
    stop, answered = threading.Event(), {}  # type: ignore[var-annotated]
    owner = threading.Thread(target=_owner, args=(b, stop, answered), daemon=True)
    try:
        owner.start()
        sockets = [a.paths.hook_socket, b.paths.hook_socket]
        queue: Any = multiprocessing.Queue()
        half = args.agents // 2
        interval = None if args.rate is None else args.agents / args.rate
        loads = [
            multiprocessing.Process(
                target=_load_process,
                args=(sockets, i * half, half, args.seconds, interval, args.keep_alive, queue),
            )
            for i in range(2)
        ]
        replicas = [p.proc.pid for p in (a, b) if p.proc is not None]
        cpu = _cpu_s(replicas)
        started = time.perf_counter()
        for load in loads:
            load.start()
        results = [queue.get(timeout=args.seconds + 300) for _ in loads]
        elapsed = time.perf_counter() - started
        cpu = _cpu_s(replicas) - cpu
        for load in loads:
            load.join()
    finally:
        stop.set()
        owner.join(timeout=30)
        a.stop()
        b.stop()
    auto = sorted(x for r in results for x in r["auto"])
    got = [t for r in results for t in r["held"]]
    ids = [i for r in results for i in r["held_ids"]]
    waits = sorted(t - answered[i] for t, i in zip(got, ids, strict=True) if i in answered)
    store = open_store(url)
    try:
        check = verify_store(store)
        outcomes = store.query(Query(kind="outcome"))
        entries = store.count()
    finally:
        store.close()
    with psycopg.connect(args.pg, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE".encode())
    shutil.rmtree(tmp, ignore_errors=True)

    def ms(values: list[float], q: float) -> str:
        return f"{values[min(len(values) - 1, int(q * len(values)))] * 1000:.1f} ms"

    sent = len(auto) + len(ids)
    pace = "back to back" if args.rate is None else f"{args.rate:,.0f} calls/s offered"
    hooks = "one connection kept alive each" if args.keep_alive else "a connection per call"
    print(
        f"replicas: 2 on PostgreSQL, {args.workers} judging worker(s) each; {args.agents} agents, "
        f"{pace}, {hooks}; {args.seconds:g} s of load"
    )
    print(f"auto-decisions: {len(auto) / elapsed:,.0f}/s in total ({len(auto)} calls)")
    print(f"auto-decision latency: p50 {ms(auto, 0.5)}, p99 {ms(auto, 0.99)}")
    per_call = cpu / max(1, sent) * 1e6
    share = cpu / elapsed
    print(f"replicas' CPU: {per_call:.0f} µs a call (both, with their workers), {share:.0%}")
    if waits:
        print(
            f"held calls: {len(ids)}; answer to waiting hook: p50 {ms(waits, 0.5)}, "
            f"p99 {ms(waits, 0.99)}, median {statistics.median(waits) * 1000:.1f} ms"
        )
    refs = [e.record.ref for e in outcomes]
    print(
        f"chain: {'ok' if check.ok else 'BROKEN'}, {entries} entries for {sent} calls and "
        f"{len(refs)} answers; duplicates: {len(refs) - len(set(refs))}; "
        f"lost: {sent + len(refs) - entries}"
    )


if __name__ == "__main__":
    main()
