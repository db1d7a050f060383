"""Keeping the gate alive: no listening on the approval service's port or
socket, no killing or tracing the gate or the agent's gateway (F-GATE-3)."""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Iterator

from redline.gate.protected import NeverRunKind, Places
from redline.gate.world import World
from redline.shell.analysis import Analysis
from redline.shell.carriers import interpreter_family
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC

_LISTENERS = frozenset(
    {
        "http-server",
        "serve",
        "uvicorn",
        "gunicorn",
        "hypercorn",
        "daphne",
        "caddy",
        "miniserve",
        "darkhttpd",
        "httpd",
        "lighttpd",
        "nginx",
        "websocat",
        "mitmproxy",
        "mitmdump",
        "ncat",
        "waitress-serve",
        "live-server",
        "static-web-server",
        "simplehttpserver",
    }
)
_PY_SERVERS = frozenset(
    {
        "http.server",
        "simplehttpserver",
        "uvicorn",
        "flask",
        "aiohttp.web",
        "gunicorn",
        "hypercorn",
        "smtpd",
        "aiosmtpd",
        "pyftpdlib",
        "daphne",
        "waitress",
        "twisted",
    }
)
_SOCAT_LISTEN = lazy_regex(r"\A(?:tcp[46]?|udp[46]?|unix|openssl|sctp)-l(?:isten)?:", re.I)
_LISTEN_OPTIONS = frozenset({"port", "listen", "bind", "http-port", "listen-address", "socket"})
_KILLERS = frozenset({"pkill", "killall", "skill", "slay", "pkill.sh"})
_PID_FINDERS = frozenset({"pgrep", "pidof", "lsof", "fuser", "ps", "grep", "egrep", "awk"})
_TRACERS = frozenset(
    {
        "strace",
        "ltrace",
        "gdb",
        "lldb",
        "perf",
        "gcore",
        "pstack",
        "py-spy",
        "bpftrace",
        "ptrace",
        "trace-cmd",
        "pyrasite",
        "frida",
        "dtrace",
        "dtruss",
    }
)
_SERVICE_VERBS = frozenset(
    {
        "stop",
        "kill",
        "restart",
        "disable",
        "mask",
        "reload",
        "try-restart",
        "unload",
        "bootout",
        "remove",
        "freeze",
        "edit",
        "set-property",
        "revert",
        "link",
        "reenable",
        "preset",
        "isolate",
        "disable-now",
        "down",
        "exit",
    }
)
_CODE_LISTEN = lazy_regex(
    r"\b(?:bind|listen|serve_forever|http\.server|HTTPServer|TCPServer|createServer|"
    r"run_simple|uvicorn\.run|app\.run|web\.run_app|socketserver)\b"
)


@functools.lru_cache(maxsize=8)
def _names_pattern(gateway_names: tuple[str, ...]) -> re.Pattern[str]:
    names = "|".join(re.escape(n) for n in gateway_names if n)
    return re.compile(rf"(?<![\w-])(?:{names or '(?!)'})(?![\w])", re.IGNORECASE)


def listening(inv: Invocation) -> bool:
    name, values = inv.name, inv.values
    if name in ("nc", "netcat", "ncat", "nc.openbsd", "nc.traditional"):
        return inv.has_flag("l", ("listen",))
    if name == "socat":
        return any(_SOCAT_LISTEN.match(v) for v in values)
    if name == "ssh":
        return inv.has_flag("LRD", ())
    if interpreter_family(name) == "python":
        return any(v.lower() in _PY_SERVERS for v in values)
    if interpreter_family(name) == "php":
        return inv.has_flag("S", ())
    if interpreter_family(name) == "ruby":
        return any(v.startswith("-run") for v in values)
    if name == "flask":
        return inv.subcommand() == "run"
    if name in _LISTENERS or (name == "busybox" and "httpd" in values):
        return True
    return bool(inv.options.long & _LISTEN_OPTIONS)


def _gate_names(places: Places) -> tuple[str, ...]:
    """The gate's and the gateway's names, and the gate's home (a PID read
    from a file there is the gate's)."""
    home = places.redline_home
    if home == "~" or home.startswith("~/"):
        home = places.home.rstrip("/") + home[1:]
    return (*places.gateway_names, home.rstrip("/"))


def _port_token(port: int) -> re.Pattern[str]:
    return re.compile(rf"(?<![\d.]){port}(?!\d)")


def listener_hits(inv: Invocation, places: Places, code: str | None) -> Iterator[NeverRunKind]:
    port, sock = places.approval_port, places.approval_socket
    if port is None and not sock:
        return
    if listening(inv):
        text = " ".join(inv.values)
        if (port is not None and _port_token(port).search(text)) or (sock and sock in text):
            yield NeverRunKind.APPROVAL_LISTENER
    named = code and (
        (port is not None and _port_token(port).search(code)) or (sock and sock in code)
    )
    if named and _CODE_LISTEN.search(code or ""):
        yield NeverRunKind.APPROVAL_LISTENER


_SERVICE_MANAGERS = ("systemctl", "service", "launchctl", "rc-service", "sv")
_PACKAGE_RUNNERS = frozenset({"npx", "pnpx", "bunx", "yarn", "pnpm", "dlx"})
_SESSION_KILLERS = frozenset({"terminate-user", "kill-user", "terminate-session", "kill-session"})
# Every program `process_hits` looks at.
SIGNALLERS = frozenset(
    {*_KILLERS, *_TRACERS, "kill", *_SERVICE_MANAGERS, "hermes", "fuser", "kill-port",
     "loginctl", "reptyr", "criu", "eu-stack", "gstack", *_PACKAGE_RUNNERS}
)  # fmt: skip
# Options by which a tracer attaches to a running process.
_ATTACH_OPTIONS = frozenset({"-p", "--pid", "--attach", "--attach-pid", "--attach-name"})
_ATTACH_PREFIXES = ("--pid=", "--attach-pid=", "--attach-name=", "--attach=", "--tid=")
# A cluster of short flags ending in `p` (`-fp`, `-p1234`) or gdb's `-pid`.
_MERGED_PID = lazy_regex(r"-(?!help\Z)[A-Za-z]*p(?:id)?(?:=?\d+)?\Z")
# Tracers whose operand is the PID they attach to.
_PID_OPERAND = frozenset({"gcore", "pyrasite", "reptyr", "gstack", "pstack", "eu-stack"})


def process_hits(
    inv: Invocation, analysis: Analysis, places: Places, world: World, ports: frozenset[int]
) -> Iterator[tuple[NeverRunKind, str]]:
    """Killing, stopping or tracing the gate or the gateway: by name, by a
    PID looked up by name or port (`kill $(pgrep -f hermes)`, `lsof -ti :8787 |
    xargs kill`), by a PID that is the gate's, by its port (`fuser -k
    8787/tcp`); attaching a tracer to any running process; stopping its unit."""
    name = inv.name
    if name not in SIGNALLERS:
        return  # most commands: the names pattern is not even compiled
    # Here, not at the top: most calls signal nothing (kept off a hook's start).
    from redline.gate import processes
    from redline.shell import kill_targets

    names = _names_pattern(_gate_names(places))
    operands = [w.value for w in inv.options.operands]
    if name in _KILLERS:
        hit = "" if any(names.search(v) for v in operands) else None
        hit = hit if hit is not None else processes.killer_selects(inv, operands, world)
        if hit is not None:
            yield NeverRunKind.GATE_PROCESS, hit
        return
    if name in ("kill", *_TRACERS):
        hit = processes.pid_looked_up(inv, analysis, names, ports, world)
        if hit is None and name == "kill":
            numbers = [str(n) for n in kill_targets.targets(inv, analysis.text)]
            hit = processes.kills_gate_pid([*operands, *numbers], world)
        if hit is not None:
            yield NeverRunKind.GATE_PROCESS, hit
            return
        if name == "kill":
            return
    if name in _TRACERS or name in ("reptyr", "criu", "eu-stack", "gstack"):
        if any(names.search(v) for v in operands):
            yield NeverRunKind.GATE_PROCESS, ""
        elif _attaches(inv):
            yield (
                NeverRunKind.GATE_PROCESS,
                (
                    f"`{name}` attaches to a running process (the gate's may be it); "
                    "run the program under it instead"
                ),
            )
        return
    if name == "fuser":
        if inv.has_flag("k", ("kill",)) and _names_port(operands, ports):
            yield (
                NeverRunKind.GATE_PROCESS,
                "`fuser -k` kills what holds the approval service's port",
            )
        return
    if name == "kill-port" or (name in _PACKAGE_RUNNERS and operands[:1] == ["kill-port"]):
        if _names_port(operands, ports):
            yield NeverRunKind.GATE_PROCESS, "kills what holds the approval service's port"
        return
    if name == "loginctl":
        if set(v.lower() for v in operands) & _SESSION_KILLERS:
            yield NeverRunKind.GATE_PROCESS, "ending the session kills the gate with it"
        return
    lowered = [v.lower() for v in operands]
    stops = bool(set(lowered) & _SERVICE_VERBS)
    if name in _SERVICE_MANAGERS and stops:
        if any(names.search(v) or _unit_glob_names(v, places.gateway_names) for v in operands):
            yield NeverRunKind.GATE_PROCESS, ""
        elif any(DYNAMIC in v for v in operands) and processes.sources_name_gate(
            inv, analysis, names
        ):
            yield NeverRunKind.GATE_PROCESS, "the unit is computed from the gate's name"
        return
    if name == "hermes" and lowered[:1] == ["gateway"] and lowered[1:2] and stops:
        yield NeverRunKind.GATE_PROCESS, ""


def proc_hit(inv: Invocation, analysis: Analysis, places: Places, world: World) -> str | None:
    """A process of the gate seen through `/proc/PID/...` (`processes.proc_hit`)."""
    from redline.gate import processes  # only for a `/proc` path: see `process_hits`

    return processes.proc_hit(inv, analysis, _names_pattern(_gate_names(places)), world)


def _attaches(inv: Invocation) -> bool:
    """A tracer or debugger given a running process: `-p PID`, `--pid=PID`,
    `attach PID` (gdb's command), `gcore PID`, `gdb PROGRAM PID`."""
    name = inv.name
    for k, value in enumerate(inv.values):
        if value in _ATTACH_OPTIONS or value.startswith(_ATTACH_PREFIXES):
            return True
        if value[:1] == "-" and _MERGED_PID.match(value):
            return True  # `strace -p1234`, `strace -fp 1234`, `gdb -pid 1234`
        if "attach" in value and name in ("gdb", "lldb"):
            return True  # `gdb -ex 'attach 1234'`
        if value.isdigit() and (name in _PID_OPERAND or (name == "gdb" and k > 0)):
            return True
        if (name, value) in (("criu", "dump"), ("perf", "-t"), ("perf", "--tid"), ("lldb", "-n"),
                             ("frida", "-n")):  # fmt: skip
            return True
    return False


def _names_port(operands: list[str], ports: frozenset[int]) -> bool:
    for value in operands:
        head = value.split("/", 1)[0].lstrip(":")
        if head.isdigit() and int(head) in ports:
            return True
        if "$" in value or DYNAMIC in value:
            return True
    return False


def _unit_glob_names(value: str, names: tuple[str, ...]) -> bool:
    """`systemctl stop 'red*'`: a unit glob that could name the gate's unit."""
    if not any(c in value for c in "*?["):
        return False
    return any(fnmatch.fnmatchcase(f"{n}.service", value.lower()) for n in names if n)
