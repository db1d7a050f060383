"""Which processes a kill selects, for the never-run check "killing the gate
or the gateway" (`redline.gate.liveness`).

A kill reaches the gate by a pattern (`pkill -f 'red[l]ine'`, `killall
python3`, `pkill -u me`), by a PID looked up from something that names it
(`kill $(pgrep -f hermes)`, `jq .pid ~/.redline/service/serve.json | xargs
kill`, `for p in $(pgrep python); do kill $p; done`), or by a PID that is the
gate's (`kill 4242`, asked of the world). Patterns are tried on the running
gate's processes and on the command lines the gate and the gateway always
have, so a pattern is judged the same whether or not the gate runs now.
"""

from __future__ import annotations

import functools
import re

from redline.gate import loopback
from redline.gate.world import World
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation
from redline.shell.model import DYNAMIC

# How the gate's and the gateway's processes are named (`ps -o comm`) and
# what their command lines hold (what `pkill -f` matches).
PROCESS_NAMES = ("redline", "hermes", "python3", "python")
COMMAND_LINES = (
    "redline serve",
    "/usr/bin/python3 /home/owner/.venv/bin/redline serve --http",
    "python3 -m redline serve",
    "python3 -m redline.approve.worker",
    "hermes gateway run",
    "python3 -m hermes.gateway run",
)
# Programs that print PIDs of processes they select by a pattern.
_PID_FINDERS = frozenset({"pgrep", "pidof", "ps", "grep", "egrep", "awk", "lsof", "fuser"})
# Options of `pkill`, `killall` and `pgrep` that select every process of a user.
_USER_OPTIONS = ("-u", "-U", "--uid", "--euid", "--user")
_PKILL_VALUED = "gGPstuUFe"
_KILLALL_VALUED = "uoysZ"
_LONG_VALUED = frozenset({"signal", "uid", "euid", "user", "group", "pgroup", "parent", "session",
                          "terminal", "pidfile", "ns", "nslist", "older", "older-than",
                          "younger-than", "context"})  # fmt: skip


def _matches(pattern: str, target: str, exact: bool) -> bool:
    if exact:
        return pattern.lower() == target.lower()
    try:
        return re.search(pattern, target, re.IGNORECASE) is not None
    except re.error:
        return pattern.lower() in target.lower()


def pattern_selects(pattern: str, whole: bool, exact: bool, world: World) -> str | None:
    """What a process pattern selects of the gate: a running process, or one
    of the names and command lines the gate always has; `None` if nothing."""
    if DYNAMIC in pattern:
        return "the pattern is computed at run time"
    for process in world.gate_processes():
        target = process.command_line if whole else process.name
        if _matches(pattern, target, exact):
            return f"`{pattern}` selects process {process.pid} of the gate"
    for target in COMMAND_LINES if whole else PROCESS_NAMES:
        if _matches(pattern, target, exact):
            return f"`{pattern}` selects the gate's processes (`{target}`)"
    return None


def killer_selects(inv: Invocation, operands: list[str], world: World) -> str | None:
    """A `pkill`/`killall` that selects the gate: by a pattern, or every
    process of a user (the gate runs as the agent's user)."""
    patterns, by_user = _patterns(inv)
    if not patterns:
        if by_user:
            return "it kills every process of the user, the gate's too"
        return None
    whole = inv.name != "killall" and inv.has_flag("f", ("full",))
    exact = inv.name == "killall" and not inv.has_flag("r", ("regexp",))
    for pattern in patterns:
        found = pattern_selects(pattern, whole, exact, world)
        if found:
            return found
    return None


def _patterns(inv: Invocation) -> tuple[list[str], bool]:
    """The patterns of a `pkill`/`killall` (option values left out), and
    whether it selects by user."""
    valued = _KILLALL_VALUED if inv.name == "killall" else _PKILL_VALUED
    patterns: list[str] = []
    by_user, skip, done = False, False, False
    for value in inv.values:
        if skip:
            skip = False
        elif done or not value.startswith("-") or value == "-":
            patterns.append(value)
        elif value == "--":
            done = True
        elif value.startswith("--"):
            key = value.split("=", 1)[0]
            by_user = by_user or key in _USER_OPTIONS
            skip = "=" not in value and key[2:] in _LONG_VALUED
        else:
            letters = value[1:]
            by_user = by_user or "u" in letters or "U" in letters
            for i, letter in enumerate(letters):
                if letter in valued:
                    skip = i == len(letters) - 1
                    break
    return [p for p in patterns if not p.isdigit() and not p.lstrip("-").isdigit()], by_user


def kills_gate_pid(operands: list[str], world: World) -> str | None:
    """`kill PID` (or `-PGID`) where the PID is a process of the gate."""
    wanted: set[int] = set()
    for value in operands:
        text = value.lstrip("-")
        if text.isdigit() and text != "0":
            wanted.add(int(text))
    if not wanted:
        return None
    for process in world.gate_processes():
        if process.pid in wanted or process.group in wanted:
            return f"process {process.pid} is the gate's (`{process.command_line[:60]}`)"
    return None


def _sources(inv: Invocation, analysis: Analysis) -> list[Invocation]:
    """Where a kill's PIDs may come from: what feeds it (`$( )`, a pipe);
    for a PID in a variable (`kill $p`), anything in the command line."""
    sources = [*analysis.children(inv), *(analysis.invocations[k] for k in inv.upstream)]
    if inv.remote:  # `ssh localhost kill $(pgrep x)`: the lookup runs here, under ssh
        sources += [c for s in loopback.launchers(inv, analysis) for c in analysis.children(s)]
    if any(DYNAMIC in w.value for w in inv.argv[1:]):
        sources += [other for other in analysis.invocations if other.index != inv.index]
    return sources


def sources_name_gate(inv: Invocation, analysis: Analysis, names: re.Pattern[str]) -> bool:
    return any(names.search(v) for s in _sources(inv, analysis) for v in s.values)


def pid_looked_up(
    inv: Invocation,
    analysis: Analysis,
    names: re.Pattern[str],
    ports: frozenset[int],
    world: World,
) -> str | None:
    """A kill (or a tracer) whose PID comes from something that names the
    gate, its port, or selects its processes by a pattern."""
    port_words = _port_pattern(ports)
    for source in _sources(inv, analysis):
        values = source.values
        if any(names.search(v) or port_words.search(v) for v in values):
            return ""
        if source.name not in _PID_FINDERS or source.name in ("lsof", "fuser"):
            continue
        whole = source.name != "pgrep" or source.has_flag("f", ("full",))
        for word in source.options.operands:
            found = pattern_selects(word.value, whole, source.name == "pidof", world)
            if found:
                return f"the PID comes from `{source.name}`: {found}"
    return None


@functools.lru_cache(maxsize=8)
def _port_pattern(ports: frozenset[int]) -> re.Pattern[str]:
    alternatives = "|".join(str(p) for p in sorted(ports))
    return re.compile(rf"(?<![\d.]){'(?:' + alternatives + ')' if alternatives else '(?!)'}(?!\d)")


# What in `/proc/PID/` reads or changes a process: its environment (the
# gate's tokens), its memory, its open files, its view of the filesystem.
_PROC_PARTS = frozenset({"environ", "mem", "fd", "root", "cwd", "map_files", "task", "maps",
                         "pagemap", "auxv", "stack", "syscall", "exe"})  # fmt: skip


def proc_hit(
    inv: Invocation, analysis: Analysis, names: re.Pattern[str], world: World
) -> str | None:
    """`/proc/PID/environ` (and `mem`, `fd/`...) of a process of the gate:
    a PID that is the gate's, or one looked up by something naming it."""
    words = [*inv.values, *(r.target.value for r in inv.redirects if r.target is not None)]
    for word in words:
        if not word.startswith("/proc/"):
            continue
        parts = word.split("/")
        if len(parts) < 4 or parts[3] not in _PROC_PARTS:
            continue
        pid = parts[2]
        if pid.isdigit() and kills_gate_pid([pid], world):
            return f"`{word}` belongs to a process of the gate"
        if DYNAMIC in pid and (
            sources_name_gate(inv, analysis, names)
            or pid_looked_up(inv, analysis, names, frozenset(), world) is not None
        ):
            return f"`{word}` belongs to a process looked up by the gate's name"
    return None
