"""The agent's own gateway: killing the processes that may be the agent,
stopping or updating the gateway, and starting it outside its supervisor
(F-RULES-2)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from redline.decision import Severity
from redline.rules import argv
from redline.rules.model import Rule, rule
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC

D = Severity.DANGEROUS

# Processes of the agents redline guards: names as `ps` shows them, and
# whole command lines (what `pkill -f` matches against).
AGENT_NAMES = frozenset({"hermes", "claude", "codex", "gemini", "redline", "opencode", "aider",
                         "goose", "node", "nodejs", "python", "python3", "bun"})  # fmt: skip
AGENT_COMMAND_LINES = (
    "hermes gateway run",
    "python3 -m hermes.gateway cli.py",
    "node /usr/local/bin/claude",
    "codex",
    "gemini",
    "redline serve",
    "opencode",
    "aider",
    "goose session",
)
# Words that name an agent wherever they appear (a pattern, a pid file path).
_AGENT_WORD = lazy_regex(
    r"hermes|gateway|claude|codex|gemini|redline|opencode|aider|goose|cli\.py", re.IGNORECASE
)
_REGEX_META = lazy_regex(r"[\\.*+?()\[\]{}^$]+")
# Bracket expressions and quantified characters match no fixed text.
_OPTIONAL = lazy_regex(r"\[\^?\]?[^\]]*\]|\\?.[?*]|\\?.\{[^}]*\}")


def could_match_agent(pattern: str, whole_line: bool) -> bool:
    """A `pgrep`/`pkill` pattern that may select an agent process: it names
    one, is computed at run time, or is too broad to tell (`.`, `^`)."""
    if DYNAMIC in pattern or _AGENT_WORD.search(pattern):
        return True
    samples = AGENT_COMMAND_LINES if whole_line else tuple(AGENT_NAMES)
    for branch in _OPTIONAL.sub(".", pattern.lower()).split("|"):
        fragments = [f for f in _REGEX_META.split(branch) if f]
        if any(all(f in sample for f in fragments) for sample in samples):
            return True
    return False


# `-9`, `-KILL`, `-SIGHUP`: a signal, not an option (single letters such as `-U` are).
SIGNAL = lazy_regex(r"\A-(?:\d+|[A-Z]{2,}[A-Z0-9+-]*)\Z")
PGREP_VALUES = ("gGPstuUFcn", ("signal", "group", "pgroup", "parent", "session", "terminal",
                 "euid", "uid", "pidfile", "ns", "nslist", "older", "cgroup", "env"))  # fmt: skip
_WHOLE_USER = ("-u", "-U", "-g", "-G", "-s", "--euid", "--uid", "--group", "--pgroup", "--session")


def _pgrep_selects_agent(inv: Invocation) -> bool:
    values = [v for v in inv.values if not SIGNAL.match(v)]
    args = argv.parse(values, *PGREP_VALUES)
    if any(_AGENT_WORD.search(f) for f in args.value("-F", "--pidfile")):
        return True
    if not args.operands:
        return any(args.value(flag) for flag in _WHOLE_USER)
    return any(could_match_agent(p, args.has("-f", "--full")) for p in args.operands)


KILLALL_VALUES = ("usoyZn", ("user", "signal", "older-than", "younger-than", "context", "ns"))


def _killall_selects_agent(inv: Invocation) -> bool:
    values = [v for v in inv.values if not SIGNAL.match(v)]
    args = argv.parse(values, *KILLALL_VALUES)
    if not args.operands:
        return bool(args.value("-u", "--user"))
    if args.has("-r", "--regexp"):
        return any(could_match_agent(p, False) for p in args.operands)
    return any(DYNAMIC in p or p.lower() in AGENT_NAMES for p in args.operands)


def _pid_sources(inv: Invocation, analysis: Analysis) -> Iterator[Invocation]:
    """What computes a `kill`'s PIDs: its `$( )` (also when a wrapper holds
    them, as in `sudo kill $(pgrep x)`) and what is piped into `xargs kill`."""
    chain = {inv.index}
    outer = inv
    while outer.via and 0 <= outer.parent < len(analysis.invocations):
        outer = analysis.invocations[outer.parent]
        if outer.span != inv.span:
            break
        chain.add(outer.index)
    for other in analysis.invocations:
        if other.index not in chain and other.parent in chain:
            yield other
    for k in inv.upstream:
        yield analysis.invocations[k]


def _kill_agent(inv: Invocation, analysis: Analysis) -> bool:
    if inv.name == "pkill":
        return _pgrep_selects_agent(inv)
    if inv.name == "killall":
        return _killall_selects_agent(inv)
    for source in _pid_sources(inv, analysis):
        if source.name == "pgrep" and _pgrep_selects_agent(source):
            return True
        if source.name == "pidof" and any(
            DYNAMIC in v or v.lower() in AGENT_NAMES for v in source.values
        ):
            return True
        if source.name in ("grep", "egrep") and any(
            could_match_agent(w.value, True) for w in source.options.operands[:1]
        ):
            return True
        if source.name not in ("pgrep", "pidof", "grep", "egrep") and any(
            _AGENT_WORD.search(v) for v in source.values
        ):
            return True
    return False


def _hermes_gateway(inv: Invocation) -> tuple[str, ...]:
    operands = argv.parse(inv.values, "p", ("profile",)).operands
    return tuple(o.lower() for o in operands[:2])


def _gateway_stop(inv: Invocation, analysis: Analysis) -> bool:
    words = _hermes_gateway(inv)
    return words[:1] == ("update",) or (
        len(words) == 2 and words[0] == "gateway" and words[1] in ("stop", "restart", "kill")
    )


_DETACHERS = frozenset({"nohup", "setsid", "daemonize", "disown"})
_DETACHED_RUN = lazy_regex(r"\bhermes\s+(?:\S+\s+)*?gateway\s+(?:run|start)\b")


def _gateway_unsupervised(inv: Invocation, analysis: Analysis) -> bool:
    if inv.name in ("screen", "tmux", "dtach", "byobu"):
        return bool(_DETACHED_RUN.search(" ".join(inv.values)))
    if _hermes_gateway(inv) != ("gateway", "run"):
        return False
    if inv.background or any(v in _DETACHERS for v in inv.via):
        return True
    return any(o.name == "disown" for o in analysis.invocations[inv.index + 1 :])


GATEWAY_RULES: tuple[Rule, ...] = (
    rule(
        "proc.kill-agent",
        "process",
        D,
        "kill a process that may be the agent or its gateway",
        "kill the specific process by its PID after checking it with `ps`",
        programs=("pkill", "killall", "kill"),
        test=_kill_agent,
        must_match=(
            "pkill -f hermes",
            "killall -9 node",
            "pkill -f 'gateway run'",
            "kill -9 $(pgrep -f hermes)",
            "kill `pidof claude`",
            "sudo kill -TERM $(pgrep codex)",
            "pgrep -f gateway | xargs kill -9",
            "kill $(cat ~/.hermes/gateway.pid)",
            "pkill -u $USER",
            "pkill -f herm",
            "pkill .",
            "kill $(ps aux | grep node | awk '{print $2}')",
        ),
        must_not_match=(
            "pkill -f 'node server.js'",
            "killall firefox",
            "kill -9 1234",
            "kill $(pgrep -f myworker)",
            "pgrep -f hermes",
            "echo pkill hermes",
            "kill %1",
            "pkill -HUP nginx",
            "kill $(ps aux | grep '[w]ebpack' | awk '{print $2}')",
        ),
    ),
    rule(
        "proc.gateway-stop",
        "process",
        D,
        "stop, restart or update the agent gateway: ends every running agent",
        "ask the owner to restart or update the gateway",
        programs=("hermes",),
        test=_gateway_stop,
        must_match=(
            "hermes gateway stop",
            "hermes gateway restart",
            "hermes update",
            "sudo -u agent hermes --profile work gateway restart",
        ),
        must_not_match=(
            "hermes gateway status",
            "hermes chat",
            "echo hermes update",
            "hermes gateway logs",
        ),
    ),
    rule(
        "proc.gateway-unsupervised",
        "process",
        D,
        "start the agent gateway in the background, outside its supervisor",
        "let the service manager run the gateway (`systemctl --user start hermes-gateway`)",
        programs=("hermes", "screen", "tmux", "dtach", "byobu"),
        test=_gateway_unsupervised,
        must_match=(
            "hermes gateway run &",
            "nohup hermes gateway run > gw.log 2>&1 &",
            "setsid hermes gateway run",
            "hermes gateway run & disown",
            "bash -c 'hermes gateway run &'",
            "screen -dmS gw hermes gateway run",
        ),
        must_not_match=(
            "hermes gateway run",
            "hermes gateway run && echo ok",
            "echo 'hermes gateway run &'",
            "hermes gateway status &",
        ),
    ),
)
