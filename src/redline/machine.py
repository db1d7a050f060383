"""The gate's `World` on this machine: what the never-run checks may look up
(`redline.gate.world`), read lazily and bounded.

- the approval service's port and PID, from `service/serve.json` in
  `$REDLINE_HOME`, which `redline serve` writes when it listens and removes
  when it stops (re-read only when the file changes);
- this machine's own names: `socket.gethostname()` and the names the hosts
  file maps to a loopback address;
- the running processes of the gate and the gateway, from `/proc`;
- the start of a script about to run.

Every lookup fails quietly to "nothing known": the checks that need one are
about calls that are then judged on their words alone.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Mapping

from redline.gate.never_run import Guard
from redline.gate.protected import Places
from redline.gate.world import Process, World

SERVICE_STATE = os.path.join("service", "serve.json")
MAX_SCRIPT = 256 * 1024
MAX_EXPANDED = 16
# An archive whose members are listed is read whole: a bound on the bytes (and the time).
MAX_ARCHIVE = 4 * 1024 * 1024
_O_PATH = getattr(os, "O_PATH", os.O_RDONLY)
# How long a look at the service's state file is trusted (a long-lived gate
# sees a service started later within this).
_RECHECK_S = 1.0
_MAX_PROCESSES = 8192
# Command lines of the gate's and the gateway's processes.
_GATE_COMMANDS = ("redline serve", "redline.approve", "redline.cli.main serve", "-m redline serve",
                  "hermes gateway", "hermes.gateway", "hermes_cli")  # fmt: skip


class LocalWorld(World):
    def __init__(
        self, redline_home: str, hosts_file: str = "/etc/hosts", proc: str = "/proc"
    ) -> None:
        self._state_path = os.path.join(redline_home, SERVICE_STATE)
        self._hosts_file = hosts_file
        self._proc = proc
        self._state_stamp: tuple[int, int] | None = None
        self._state: dict[str, object] = {}
        self._checked = -_RECHECK_S
        self._names: frozenset[str] | None = None

    def _service_state(self) -> dict[str, object]:
        now = time.monotonic()
        if now - self._checked < _RECHECK_S:
            return self._state
        self._checked = now
        try:
            stat = os.stat(self._state_path)
        except OSError:
            self._state_stamp, self._state = None, {}
            return self._state
        stamp = (stat.st_mtime_ns, stat.st_size)
        if stamp != self._state_stamp:
            import json  # only when the service has written its state

            try:
                with open(self._state_path, encoding="utf-8") as file:
                    data = json.loads(file.read(65536))
            except (OSError, ValueError):
                data = {}
            self._state = data if isinstance(data, dict) else {}
            self._state_stamp = stamp
        return self._state

    def _live_state(self) -> dict[str, object]:
        """The state file's contents while its service runs: a service
        killed outright leaves the file behind, naming a dead PID."""
        state = self._service_state()
        pid = state.get("pid")
        if not isinstance(pid, int) or pid <= 0:
            return {}
        process = _process(self._proc, pid)
        if process is None or "redline" not in process.command_line:
            return {}
        return state

    def service_ports(self) -> frozenset[int]:
        ports = self._live_state().get("ports")
        if not isinstance(ports, list):
            return frozenset()
        return frozenset(p for p in ports if isinstance(p, int) and 0 < p < 65536)

    def loopback_names(self) -> frozenset[str]:
        if self._names is None:
            self._names = frozenset(_own_names(self._hosts_file))
        return self._names

    def gate_processes(self) -> tuple[Process, ...]:
        found: dict[int, Process] = {}
        pid = self._live_state().get("pid")
        if isinstance(pid, int) and pid > 0:
            process = _process(self._proc, pid)
            if process is not None:
                found[pid] = process
        try:
            entries = os.listdir(self._proc)
        except OSError:
            return tuple(found.values())
        for entry in entries[:_MAX_PROCESSES]:
            if not entry.isdigit() or int(entry) in found:
                continue
            process = _process(self._proc, int(entry))
            if process is not None and any(c in process.command_line for c in _GATE_COMMANDS):
                found[process.pid] = process
        return tuple(found.values())

    def resolve(self, path: str) -> str | None:
        # Linux: open the path itself and ask the kernel where it is (three
        # calls); `realpath` elsewhere (one `lstat` per component).
        try:
            fd = os.open(path, _O_PATH)
        except (OSError, ValueError):
            return None
        try:
            return os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            return os.path.realpath(path)
        finally:
            os.close(fd)

    def read_script(self, path: str) -> str | None:
        data = _read_regular(path, MAX_SCRIPT)
        if data is None or b"\0" in data[:4096]:
            return None  # unreadable, not a regular file, or a binary program
        return data.decode("utf-8", "replace")

    def archive_members(self, path: str) -> tuple[str, ...] | None:
        from redline.gate.archive_members import members

        data = _read_regular(path, MAX_ARCHIVE, whole=True)
        return None if data is None else members(data)

    def expand(self, pattern: str) -> tuple[str, ...]:
        import glob
        import itertools

        # Bounded: a script named by a glob is the first few files it matches.
        return tuple(sorted(itertools.islice(glob.iglob(pattern), MAX_EXPANDED)))


def _process(proc: str, pid: int) -> Process | None:
    base = os.path.join(proc, str(pid))
    try:
        with open(os.path.join(base, "cmdline"), "rb") as file:
            command = file.read(4096).replace(b"\0", b" ").decode("utf-8", "replace").strip()
        with open(os.path.join(base, "stat"), encoding="utf-8", errors="replace") as file:
            stat = file.read(1024)
    except OSError:
        return None
    name = stat[stat.find("(") + 1 : stat.rfind(")")]
    fields = stat[stat.rfind(")") + 2 :].split()
    group = int(fields[2]) if len(fields) > 2 and fields[2].isdigit() else -1
    return Process(pid, group, name, command)


def _own_names(hosts_file: str) -> set[str]:
    import socket

    names: set[str] = set()
    try:
        name = socket.gethostname().lower()
        names.update({name, name.split(".", 1)[0]})
    except OSError:
        pass
    try:
        with open(hosts_file, encoding="utf-8", errors="replace") as file:
            text = file.read(65536)
    except OSError:
        return names
    from redline.gate.loopback import is_loopback

    for line in text.splitlines():
        fields = line.split("#", 1)[0].split()
        if len(fields) >= 2 and is_loopback(fields[0]):
            names.update(f.lower() for f in fields[1:])
    names.discard("")
    return names


def code_files() -> tuple[str, ...]:
    """The files that decide what runs when the hook starts: the `redline`
    command and the Python of this environment, and what that Python loads
    before any code (`*.pth`, `sitecustomize.py`, `usercustomize.py`).
    Found without `site` (a hook may start without it)."""
    import sys

    prefix = sys.prefix.rstrip("/")
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    found = [f"{prefix}/bin/redline", f"{prefix}/bin/python*", f"{prefix}/pyvenv.cfg"]
    # The interpreter really run, and the base install's (a venv links to it).
    real = os.path.realpath(sys.executable)
    base = sys.base_prefix.rstrip("/")
    found += [real, f"{os.path.dirname(real)}/python*", f"{base}/bin/python*"]
    folders = {p.rstrip("/") for p in sys.path if p.endswith(("site-packages", "dist-packages"))}
    folders.add(f"{prefix}/lib/{version}/site-packages")
    folders.add(f"~/.local/lib/{version}/site-packages")
    for folder in sorted(folders):
        found += [f"{folder}/*.pth", f"{folder}/sitecustomize.py", f"{folder}/usercustomize.py"]
    return tuple(found)


def package_tree() -> tuple[str, ...]:
    """Everything the hook process loads is the gate: the folder the
    `redline` package is imported from (a venv's site-packages, or a source
    checkout's `src`, its `__pycache__` images included), and the Python
    that runs it: its standard library and site-packages, the venv's and the
    base install's (`python -I -S` still loads `encodings` from there)."""
    import sys

    here = os.path.dirname(os.path.realpath(__file__))
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    # Without `sysconfig` (kept off the hook's start): the standard library
    # is where `os` came from; each prefix has its `lib/pythonX.Y` (and its
    # site-packages under it).
    trees = {os.path.dirname(here), os.path.dirname(os.path.realpath(os.__file__))}
    for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}:
        trees.add(os.path.realpath(f"{prefix}/lib/{version}"))
    # Debian's `dist-packages` and any other site folder on the path.
    trees.update(
        os.path.realpath(p) for p in sys.path if p.endswith(("site-packages", "dist-packages"))
    )
    trees.discard("/")
    return tuple(sorted(t for t in trees if t.count("/") >= 2))


def never_run_guard(environ: Mapping[str, str] | None = None) -> Guard:
    """The never-run checks for this machine without a policy (the policy's
    approval port and socket are its defaults): for `redline check CMD`,
    which judges a command line without loading a policy."""
    from redline.home import expand_user, home_dir, user_home

    env = os.environ if environ is None else environ
    home, gate_home = user_home(env), home_dir(env)

    def given(var: str, default: str) -> str:
        value = env.get(var, "").strip()
        return expand_user(value, env) if value else default

    places = Places(
        home=home,
        hermes_home=given("HERMES_HOME", "~/.hermes"),
        redline_home=gate_home,
        codex_home=given("CODEX_HOME", "~/.codex"),
        claude_home=given("CLAUDE_CONFIG_DIR", "~/.claude"),
        extra_trees=package_tree(),
        code_files=code_files(),
    )
    return Guard.build(places, LocalWorld(gate_home))


def _read_regular(path: str, limit: int, whole: bool = False) -> bytes | None:
    """The first `limit` bytes of the regular file at `path` (`whole`: none
    when it is longer). Not blocking: opening a FIFO would wait for a writer
    (until the hook's deadline); and the file opened is the one checked."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or (whole and info.st_size > limit):
            return None
        return os.read(fd, limit)
    except OSError:
        return None
    finally:
        os.close(fd)
