"""Latency of `redline run` (issue #14). Prints figures; asserts nothing but
that the real workload passes.

    python bench/bench_run.py [--runs N] [--no-workload] [--against DIR]

1. `redline run -- true` over `true`: whole processes, median and p90 over N
   runs, interleaved round by round with `true`, this interpreter's
   `python -c pass` and `python -I -S -c pass` (the floors of any Python
   start): `sys.executable -m redline run -- true` judged in the process
   (no service: judge, log, sandbox), the same with a `redline serve`
   running in its home (the served path: the warm service judges and logs),
   and the console script. `--against DIR` adds the same forms run from
   another checkout's sources (`DIR/src`, e.g. a worktree of main), same
   interpreter, interleaved: an A/B on the shared machine (with a service of
   its own, and the hook-wrapped launch each writes). Then the
   hook-wrapped form: the text an enforcing hook hands the agent's shell for
   `true` (bwrap's own launch, `sandbox.direct`), run by `bash -c` as the
   agent's shell runs it, over `bash -c true`. The goal: at most 15 ms.
2. Where it goes: in one warm process, the sandbox alone (`launch` of `true`
   under each level: bwrap or Landlock, the signal shim, the pids cgroup),
   and bwrap's own start (its argv, run directly). The goal is at most 15 ms
   for the sandbox.
3. A real workload through it: a `git` + `pip` sequence, and a part of the
   project's own test suite, timed bare and under `redline run`.

Runs in temporary REDLINE_HOMEs (one with a service, one without) and HOME;
the policy cache and bytecode are warmed first.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GIT_PIP = (
    "git init -q demo && cd demo && echo x > f && git add f && "
    "git -c user.email=bench@example.com -c user.name=bench commit -qm first && "
    "git log --oneline | wc -l && python -m pip --version >/dev/null && python -m pip check"
)
SUITE = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "tests/shell"]


def timed(fn: Callable[[], object], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def interleaved(
    forms: dict[str, tuple[list[str], dict[str, str]]], cwd: str, runs: int
) -> dict[str, list[float]]:
    """Each form once per round, so the shared machine's load hits all alike."""
    out: dict[str, list[float]] = {name: [] for name in forms}
    for _ in range(runs):
        for name, (argv, env) in forms.items():
            start = time.perf_counter()
            quiet(argv, env, cwd)
            out[name].append((time.perf_counter() - start) * 1000)
    return out


def summary(name: str, ms: Sequence[float]) -> str:
    ordered = sorted(ms)
    p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
    return f"  {name:<44} median {statistics.median(ms):7.1f} ms   p90 {p90:7.1f} ms"


def quiet(argv: list[str], env: dict[str, str], cwd: str) -> int:
    return subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, check=False).returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--no-workload", action="store_true")
    parser.add_argument("--against", metavar="DIR", help="another checkout to interleave (A/B)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-run-") as tmp:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(REDLINE_HOME=f"{tmp}/redline", HOME=f"{tmp}/home")
        served = {**env, "REDLINE_HOME": f"{tmp}/served"}
        os.makedirs(f"{tmp}/home")
        ws = f"{tmp}/ws"
        os.makedirs(ws)
        run = [sys.executable, "-m", "redline", "run", "--"]
        services = [start_service(served, ws)]
        if args.against:  # the other checkout's own service, in its own home
            other = f"{os.path.abspath(args.against)}/src"
            against = {**env, "PYTHONPATH": other, "REDLINE_HOME": f"{tmp}/against-served"}
            services.append(start_service(against, ws))
        try:
            return measure(args, env, served, ws, run)
        finally:
            for service in services:
                service.terminate()
                service.wait(timeout=30)


def start_service(env: dict[str, str], ws: str) -> subprocess.Popen[bytes]:
    """`redline serve` in `env`'s home, once its hook socket answers."""
    service = subprocess.Popen(
        [sys.executable, "-m", "redline", "serve"],
        env=env, cwd=ws, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    from redline.approve.wire import Unreachable, exchange

    for _ in range(600):
        try:
            exchange(f"{env['REDLINE_HOME']}/service/hook.sock", "GET", "/v1/health")
            return service
        except Unreachable:
            time.sleep(0.1)
    service.terminate()
    raise SystemExit("the service did not start")


def measure(
    args: argparse.Namespace, env: dict[str, str], served: dict[str, str], ws: str, run: list[str]
) -> int:
    forms: dict[str, tuple[list[str], dict[str, str]]] = {
        "true": (["true"], env),
        "python -c pass": ([sys.executable, "-c", "pass"], env),
        "python -I -S -c pass": ([sys.executable, "-I", "-S", "-c", "pass"], env),
        "run, no service": ([*run, "true"], env),
        "run, service running": ([*run, "true"], served),
    }
    script = str(Path(sys.executable).with_name("redline"))
    if os.access(script, os.X_OK):
        forms["run (console script), service running"] = ([script, "run", "--", "true"], served)
    if args.against:
        # Its own home: its caches are keyed by its own sources. A checkout
        # without the served path judges locally whether a service runs or not.
        other = f"{os.path.abspath(args.against)}/src"
        tmp = os.path.dirname(env["REDLINE_HOME"])
        theirs = {**env, "PYTHONPATH": other, "REDLINE_HOME": f"{tmp}/against"}
        forms["against: run, no service"] = ([*run, "true"], theirs)
        against_served = {**theirs, "REDLINE_HOME": f"{tmp}/against-served"}
        forms["against: run, service running"] = ([*run, "true"], against_served)
        # The hook-wrapped launch each side writes for `true`, run as the agent's shell runs it.
        for name, side in (("hook-wrapped true", env), ("against: hook-wrapped true", theirs)):
            text = wrapped_text(side, ws)
            if text is not None:
                forms[name] = (["bash", "-c", text], side)
    for argv, form_env in forms.values():
        for _ in range(3):  # warm: bytecode, the hook image, the policy cache, the log
            quiet(argv, form_env, ws)
    print(f"redline run (runs={args.runs}, interleaved; against: {args.against or '-'})")
    ms = interleaved(forms, ws, args.runs)
    for name, times in ms.items():
        print(summary(name, times))
    bare = statistics.median(ms["true"])
    python = statistics.median(ms["python -c pass"])
    for name in forms:
        if "run" not in name and "hook-wrapped" not in name:
            continue
        whole = statistics.median(ms[name])
        print(
            f"  {name:<44} +{whole - bare:6.1f} ms over `true` (goal: at most 15 ms), "
            f"x{whole / bare:.1f} of `true`, x{whole / python:.1f} of `python -c pass`"
        )
    hook_wrapped(env, ws, args.runs, bare)
    sandbox_only(env, ws, args.runs)
    if not args.no_workload:
        return workload(env, ws, run)
    return 0


def wrapped_text(env: dict[str, str], ws: str) -> str | None:
    """The text an enforcing hook of `env`'s sources writes for `true`."""
    code = (
        "import os, sys\n"
        "from redline.sandbox.direct import launch_text\n"
        "print(launch_text('true', sys.argv[1], os.environ) or '')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, ws], env=env, cwd=ws, capture_output=True, text=True,
        check=False,
    )  # fmt: skip
    return done.stdout.strip() or None


def hook_wrapped(env: dict[str, str], ws: str, runs: int, bare_true: float) -> None:
    """The command an enforcing hook writes for `true`, as the agent's shell
    runs it (`bash -c TEXT`), over `bash -c true` and over `true`."""
    from redline.sandbox.direct import launch_text

    text = launch_text("true", ws, env)
    if text is None:
        print("  hook-wrapped: no namespace sandbox here; the hook writes `redline run` (above)")
        return
    shell = timed(lambda: quiet(["bash", "-c", "true"], env, ws), runs)
    wrapped = timed(lambda: quiet(["bash", "-c", text], env, ws), runs)
    print(summary("bash -c true", shell))
    print(summary("bash -c <hook-wrapped true>", wrapped))
    over_shell = statistics.median(wrapped) - statistics.median(shell)
    over_true = statistics.median(wrapped) - bare_true
    print(
        f"  added by the hook-wrapped form (median): {over_shell:.1f} ms over `bash -c true`, "
        f"{over_true:.1f} ms over `true` (x{statistics.median(wrapped) / bare_true:.1f} of "
        f"`true`; goal: at most 15 ms)"
    )
    from redline.sandbox.pids import sweep

    sweep(older_than_s=0)


def sandbox_only(env: dict[str, str], ws: str, runs: int) -> None:
    from redline.sandbox.launch import launch, sandboxed_argv
    from redline.sandbox.level import probe
    from redline.sandbox.pids import make_bound
    from redline.sandbox.plan import make_plan

    print("the sandbox alone, in a warm process (goal: at most 15 ms over `true`)")
    plan = make_plan(ws, env)
    bare = timed(lambda: subprocess.run(["true"], check=False), runs)
    print(summary("true", bare))
    for name in ("namespaces", "landlock"):
        level = probe(name)
        if level.name != name:
            print(f"  {name}: not available ({level.why})")
            continue
        ms = timed(lambda lv=level: launch(["true"], plan, lv, env, make_bound(4096)), runs)
        added = statistics.median(ms) - statistics.median(bare)
        print(summary(f"{name}: launch(true)", ms) + f"   added {added:.1f} ms")
        if name == "namespaces":
            argv = sandboxed_argv(["true"], plan, level)
            raw = timed(lambda a=argv: subprocess.run(a, check=False), runs)
            print(summary("namespaces: bwrap + env shim alone", raw))


def workload(env: dict[str, str], ws: str, run: list[str]) -> int:
    print("a real workload, bare and under redline run")
    failed = 0
    for name, argv, cwd in (
        ("git + pip sequence", ["sh", "-c", GIT_PIP], ws),
        ("pytest tests/shell", SUITE, str(ROOT)),
    ):
        for label, full in (("bare", argv), ("redline run", [*run, *argv])):
            if name.startswith("git"):
                subprocess.run(["rm", "-rf", f"{ws}/demo"], check=False)
            start = time.perf_counter()
            code = quiet(full, env, cwd)
            ms = (time.perf_counter() - start) * 1000
            print(f"  {name:<22} {label:<12} exit {code}   {ms:8.0f} ms")
            failed += code != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
