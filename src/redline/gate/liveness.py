"""Keeping the gate alive: no listening on the approval service's port or
socket, no killing or tracing the gate or the agent's gateway (F-GATE-3)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from redline.gate import loopback
from redline.gate.protected import NeverRunKind, Places
from redline.shell.analysis import Analysis
from redline.shell.carriers import interpreter_family
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex

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
        "redline",
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
# Every program `process_hits` looks at.
_SIGNALLERS = frozenset({*_KILLERS, *_TRACERS, "kill", *_SERVICE_MANAGERS, "hermes"})


def process_hits(inv: Invocation, analysis: Analysis, places: Places) -> Iterator[NeverRunKind]:
    """Killing or tracing the gate or the gateway, by name or by a PID looked
    up by name (`kill $(pgrep -f hermes)`, `pgrep redline | xargs kill`)."""
    name = inv.name
    if name not in _SIGNALLERS:
        return  # most commands: the names pattern is not even compiled
    names = _names_pattern(places.gateway_names)
    operands = [w.value for w in inv.options.operands]
    if name in _KILLERS and any(names.search(v) for v in operands):
        yield NeverRunKind.GATE_PROCESS
        return
    if name in ("kill", *_TRACERS) and _pid_looked_up(inv, analysis, names):
        yield NeverRunKind.GATE_PROCESS
        return
    if name in _TRACERS and any(names.search(v) for v in operands):
        yield NeverRunKind.GATE_PROCESS
        return
    if (
        name in _SERVICE_MANAGERS
        and (set(v.lower() for v in operands) & _SERVICE_VERBS)
        and any(names.search(v) for v in operands)
    ):
        yield NeverRunKind.GATE_PROCESS
        return
    if (
        name == "hermes"
        and operands[:1] == ["gateway"]
        and operands[1:2]
        and (operands[1].lower() in _SERVICE_VERBS)
    ):
        yield NeverRunKind.GATE_PROCESS


def _pid_looked_up(inv: Invocation, analysis: Analysis, names: re.Pattern[str]) -> bool:
    sources = [*analysis.children(inv), *(analysis.invocations[k] for k in inv.upstream)]
    if inv.remote:  # `ssh localhost kill $(pgrep x)`: the lookup runs here, under ssh
        sources += [c for s in loopback.launchers(inv, analysis) for c in analysis.children(s)]
    for source in sources:
        if source.name in _PID_FINDERS and any(names.search(v) for v in source.values):
            return True
        if source.name == "cat" and any(
            v.endswith(".pid") and names.search(v) for v in source.values
        ):
            return True
    return False
