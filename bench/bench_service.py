"""Approval service benchmark: a real `redline serve`, measured from outside.

Run as `python bench/bench_service.py` (about a minute). It prints:
- auto-decided calls per second through the hook socket and through loopback
  HTTP, with one client and with `--connections` clients (16 by default; load
  from a separate process: keep-alive connections, one request in flight on
  each), target >= 3,000/s on 2 cores, and the service's CPU time per call
  (steadier than the rate on a shared machine), and the share of the CPUs
  that other work took meanwhile (on a shared machine, every figure drops
  with it);
- p50/p99 latency of one auto decision on a kept-alive connection, and of a
  whole hook-style exchange (connect, ask, verify the signature), target p99
  <= 5 ms;
- the time from an asked call to the Telegram stand-in receiving the owner's
  message, target <= 100 ms;
- the service's memory with 1,000 calls pending;
- before and after, how long this process takes to judge the benchmark's call
  in-process: the VM's speed drifts by a third or more from minute to minute,
  and every figure above moves with it.
Options: `--store URL` (default SQLite in a temp dir), `--seconds`, `--connections`,
`--workers N` (the service's judging workers; default: as `redline serve`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import multiprocessing
import os
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "approve"))

from botapi import OWNER, BotApi, pair_owner  # noqa: E402
from servicekit import POLICY, ServiceProcess, eventually, make_env  # noqa: E402

from redline.approve.client import decide_via_service  # noqa: E402
from redline.approve.install_secrets import HOOK_TOKEN_HEADER, read_hook_token  # noqa: E402
from redline.approve.wire import exchange  # noqa: E402

AUTO = {"tool": "Bash", "args": {"command": "ls -la /srv/app"}, "cwd": "/srv/app"}
ASKED = {"tool": "Bash", "args": {"command": "git push --force origin main"}, "cwd": "/srv/app"}


TOKEN_ENV = "REDLINE_BENCH_HOOK_TOKEN"  # noqa: S105 - a variable's name
"""The service's hook token, for the load processes (loopback HTTP needs it)."""


@functools.cache
def _token_line() -> str:
    token = os.environ.get(TOKEN_ENV, "")
    return f"{HOOK_TOKEN_HEADER}: {token}\r\n" if token else ""


def request_bytes(body: dict[str, Any], n: int) -> bytes:
    data = json.dumps({**body, "session": f"bench-{n % 64}", "nonce": f"{n:032x}"}).encode()
    head = (
        "POST /v1/decide HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(data)}\r\n{_token_line()}\r\n"
    )
    return head.encode() + data


async def _read_reply(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return await reader.readexactly(length)


async def _connect(address: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    if address.startswith("/"):
        return await asyncio.open_unix_connection(address)
    host, _, port = address.rpartition(":")
    return await asyncio.open_connection(host, int(port))


class _Caller(asyncio.Protocol):
    """One kept-alive connection sending one call after another. A protocol,
    not streams: the load shares the 2 cores with the service, so it is kept
    as cheap as it can be (about half the CPU of a stream client)."""

    def __init__(self, n: int, end: float, finished: asyncio.Future[int]) -> None:
        self.n, self.end, self.finished = n, end, finished
        self.count = 0
        self.buffer = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self._send()

    def _send(self) -> None:
        assert self.transport is not None
        self.transport.write(request_bytes(AUTO, self.n))
        self.n += 1

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        head_end = self.buffer.find(b"\r\n\r\n")
        if head_end < 0:
            return
        at = self.buffer.lower().find(b"content-length:", 0, head_end)
        length = int(self.buffer[at + 15 : self.buffer.find(b"\r\n", at)])
        if len(self.buffer) < head_end + 4 + length:
            return
        body = self.buffer[head_end + 4 : head_end + 4 + length]
        self.buffer = self.buffer[head_end + 4 + length :]
        if b'"answered"' not in body:
            self.finished.set_exception(RuntimeError(body[:200].decode()))
            return
        self.count += 1
        if time.perf_counter() < self.end:
            self._send()
        elif not self.finished.done():
            self.finished.set_result(self.count)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.finished.done():
            self.finished.set_exception(exc or RuntimeError("the service closed the connection"))


async def _load(address: str, seconds: float, connections: int, base: int) -> int:
    loop = asyncio.get_running_loop()
    end = time.perf_counter() + seconds
    callers = []
    for k in range(connections):
        finished: asyncio.Future[int] = loop.create_future()
        caller = _Caller(base + k * 10_000_000, end, finished)
        if address.startswith("/"):
            await loop.create_unix_connection(lambda c=caller: c, address)  # type: ignore[misc]
        else:
            host, _, port = address.rpartition(":")
            await loop.create_connection(lambda c=caller: c, host, int(port))  # type: ignore[misc]
        callers.append(caller)
    counts = await asyncio.gather(*(caller.finished for caller in callers))
    for caller in callers:
        assert caller.transport is not None
        caller.transport.close()
    return sum(counts)


def _load_process(address: str, seconds: float, connections: int, base: int, out: Any) -> None:
    start = time.process_time()
    import uvloop  # the cheapest loop for the load: it shares the cores with the service

    count = uvloop.run(_load(address, seconds, connections, base))
    out.put((count, time.process_time() - start))


def cpu_s(pid: int) -> float:
    """User + system CPU seconds the service has used so far, its judging
    workers' included."""
    total = 0
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    for each in (pid, *map(int, children)):
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{each}/stat").read_text().rpartition(")")[2].split()
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def machine_cpu_s() -> tuple[float, float]:
    """Busy and total CPU seconds of the whole machine so far (all cores)."""
    fields = [int(n) for n in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    idle = fields[3] + fields[4]
    return (sum(fields) - idle) / os.sysconf("SC_CLK_TCK"), sum(fields) / os.sysconf("SC_CLK_TCK")


def throughput(
    address: str, seconds: float, connections: int, pid: int
) -> tuple[float, float, float]:
    """Calls per second, the service's CPU microseconds per call, and the share
    of the machine's CPU that other work (neither the service nor the load)
    took meanwhile: on a shared machine every figure drops with it."""
    queue: Any = multiprocessing.Queue()
    start = time.perf_counter()
    proc = multiprocessing.Process(
        target=_load_process, args=(address, seconds, connections, int(start * 1000), queue)
    )
    before, (busy, total) = cpu_s(pid), machine_cpu_s()
    proc.start()
    count, load_cpu = queue.get(timeout=seconds + 120)
    proc.join()
    used = cpu_s(pid) - before
    busy_after, total_after = machine_cpu_s()
    other = max(0.0, busy_after - busy - used - load_cpu) / max(total_after - total, 1e-9)
    return count / seconds, used / max(count, 1) * 1e6, other


async def _latency(address: str, count: int) -> list[float]:
    reader, writer = await _connect(address)
    times = []
    for n in range(count):
        payload = request_bytes(AUTO, 900_000_000 + n)
        start = time.perf_counter()
        writer.write(payload)
        await _read_reply(reader)
        times.append(time.perf_counter() - start)
    writer.close()
    return times


def percentiles(times: list[float]) -> str:
    ordered = sorted(times)
    p50 = statistics.median(ordered) * 1000
    p99 = ordered[int(len(ordered) * 0.99) - 1] * 1000
    return f"p50 {p50:.2f} ms, p99 {p99:.2f} ms (n={len(ordered)})"


def machine_speed(policy: Path) -> str:
    """The in-process cost of judging the benchmark's call: a yardstick for
    how fast the machine is right now."""
    from redline.gate.actions import ToolCall
    from redline.gatekeeper import Gate

    gate = Gate(policy)
    call = ToolCall(AUTO["tool"], AUTO["args"], AUTO["cwd"], None, "speed")
    for _ in range(500):
        gate.check(call)
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        for _ in range(1000):
            gate.check(call)
        best = min(best, (time.process_time() - start) / 1000)
    return f"{best * 1e6:.0f} us per gate.check"


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--store", help="the service's store URL (default: SQLite in a temp dir)")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--workers", type=int, help="`redline serve --workers` (default: its own)")
    args = parser.parse_args()
    print(f"# bench_service on {os.cpu_count()} cores, python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as tmp:
        token = {"REDLINE_TELEGRAM_TOKEN": "123456:BENCH"}  # the stand-in takes any token
        env = make_env(Path(tmp), **token)
        bot = BotApi().start()
        port = free_port()
        extra = ["--http", f"127.0.0.1:{port}", "--telegram-api", bot.url, "--timeout", "600"]
        if args.store:
            extra += ["--store", args.store]
        if args.workers is not None:
            extra += ["--workers", str(args.workers)]
        service = ServiceProcess(env, *extra).start()
        assert service.proc is not None
        try:
            print(f"policy {POLICY.name}, store {args.store or 'sqlite (default)'}, "
                  f"workers {'default' if args.workers is None else args.workers}")  # fmt: skip
            sock, http = service.paths.hook_socket, f"127.0.0.1:{port}"
            os.environ[TOKEN_ENV] = read_hook_token(service.paths) or ""
            print(f"machine speed before: {machine_speed(POLICY)}")
            time.sleep(2.0)  # judging workers start after the service answers
            throughput(sock, 1.0, args.connections, service.proc.pid)  # warm-up, not counted
            for label, address in (("unix socket", sock), ("loopback HTTP", http)):
                for clients in sorted({1, args.connections}):
                    rate, cpu, other = throughput(address, args.seconds, clients, service.proc.pid)
                    print(f"auto decisions through the {label}, {clients} client(s): "
                          f"{rate:,.0f} calls/s, service CPU {cpu:.0f} us/call "
                          f"(other work: {other:.0%} of the CPUs)")  # fmt: skip
            print(f"machine speed after: {machine_speed(POLICY)}")
            times = asyncio.run(_latency(sock, 3000))
            print(f"auto decision latency, kept-alive unix socket: {percentiles(times)}")
            hook_times = []
            for _ in range(500):
                start = time.perf_counter()
                decide_via_service(
                    "Bash", {"command": "ls"}, cwd="/srv", session="lat", home=env["REDLINE_HOME"]
                )
                hook_times.append(time.perf_counter() - start)
            print(f"hook-style exchange (connect, ask, verify): {percentiles(hook_times)}")

            pair_owner(service, bot)
            delays = []
            for n in range(50):
                before = len(bot.sent_to(OWNER))
                start = time.time()
                exchange(sock, "POST", "/v1/decide", {**ASKED, "session": f"t{n}",
                                                      "nonce": f"{n:032x}"})  # fmt: skip
                eventually(lambda b=before: len(bot.sent_to(OWNER)) > b, 60, "the message")
                delays.append(bot.sent_to(OWNER)[-1]["at"] - start)
            print(f"asked call to Telegram stand-in message: {percentiles(delays)}")

            base = rss_kib(service.proc.pid)
            for n in range(1000):
                exchange(sock, "POST", "/v1/decide", {**ASKED, "session": f"m{n}",
                                                      "nonce": f"{n + 10**6:032x}"})  # fmt: skip
            held = len(service.pending())
            grown = rss_kib(service.proc.pid)
            each = (grown - base) / max(held - 50, 1)
            print(f"memory: {base / 1024:.1f} MiB before, {grown / 1024:.1f} MiB with "
                  f"{held} calls pending ({each:.1f} KiB each)")  # fmt: skip
        finally:
            service.stop()
            bot.stop()


if __name__ == "__main__":
    main()
