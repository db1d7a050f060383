"""How far a kill reaches: which processes `kill`, `pkill` or `killall`
selects, worked out from what the command says (issue 13, family 8).

A kill is given its processes directly (`kill -9 1`, `kill 0`, `kill -9
{2..999}`, `pkill .`, `killall -u alice`) or computes them: from a `$( )`,
from what is piped into `xargs kill` or `while read p; do kill $p`, or from
the list a `for` loop walks (`/proc/[0-9]*`, `$(seq 2 32768)`). A lister
(`ps -e`, `pgrep .`, `ls /proc`, `seq 1 65535`) selects every process until
a filter after it names something (`grep myapp`, `awk '/x/ {print $2}'`);
`grep -v`, `head`, `awk 'NR>1'` and `tr` name nothing.
"""

from __future__ import annotations

import enum
import re

from redline.rules import argv
from redline.rules.gateway import KILLALL_VALUES, PGREP_VALUES, SIGNAL
from redline.shell import kill_targets
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC


class Reach(enum.IntEnum):
    """The widest set of processes one kill can signal; a kill reaches the
    strongest that applies."""

    SOME = 0  # named processes, or PIDs nothing says more about
    COMPUTED = 1  # a process group whose number is computed at run time
    REMOTE_ACCESS = 2  # the SSH daemon (or another way in from outside)
    OWN_GROUP = 3  # the command's own process group, its shell or its parent
    USER = 4  # every process of one user
    INIT = 5  # PID 1 (init, systemd): signals to it reboot or halt
    EVERYTHING = 6  # every process on the machine, or a sweep of PIDs


KILLERS = frozenset({"kill", "pkill", "killall", "killall5"})
# A PID range wider than this sweeps over processes nobody named.
_SWEEP = 64
# Signals init takes without harm: `kill -HUP 1` re-reads its configuration.
_HARMLESS_TO_INIT = frozenset({"0", "HUP", "1", "USR1", "10", "USR2", "12", "CONT", "18",
                               "WINCH", "28", "CHLD", "17", "URG", "23"})  # fmt: skip
# Names that processes of the machine have (to tell a pattern that selects them all).
_EVERY_NAME = ("systemd", "sshd", "bash", "a", "z9", "kworker/0:1", "Xorg", "_")
_INIT_NAMES = ("systemd", "init")
_INIT_LINES = ("/sbin/init", "/lib/systemd/systemd --system --deserialize 31")
_REMOTE_NAMES = ("sshd", "dropbear", "tailscaled", "mosh-server")
_REMOTE_LINES = ("/usr/sbin/sshd -D", "sshd: /usr/sbin/sshd -D [listener]", "/usr/sbin/dropbear",
                 "/usr/sbin/tailscaled --state=/var/lib/tailscale/tailscaled.state")  # fmt: skip
_BRACE_RANGE = lazy_regex(r"\{(-?\d+)\.\.(-?\d+)(?:\.\.-?\d+)?\}")
_OWN = lazy_regex(r"\$(?:\$|\{\$\}|PPID\b|\{PPID\}|BASHPID\b|\{BASHPID\})")
_GROUP_COMPUTED = lazy_regex(r"\A['\"]?-['\"]?[$`]")
_ARITH_UNKNOWN = lazy_regex(r"\$\(\(|\$\[")
_LOOP = lazy_regex(r"\bfor\s+([A-Za-z_]\w*)\s+in\s+([^;\n]*)|\bfor\s*\(\((.*?)\)\)")
_READ = lazy_regex(r"\bread\s+(?:-[a-zA-Z]+\s+)*((?:[A-Za-z_]\w*\s*)+)")
_VARIABLE = lazy_regex(r"\$\{?([A-Za-z_]\w*)")
_PROC_GLOB = lazy_regex(r"(?:\A|\s)['\"]?/proc/(?:\*|\[0-9\]|\[\[:digit:\]\])")
_NAMES_SOMETHING = lazy_regex(r"[A-Za-z_]{2,}|/")
_DIGITS_ONLY = lazy_regex(r"\[(?:0-9|\[:digit:\])\]|\\d")
# Programs that pass every line on, or keep lines by their place (`head -n 50`
# keeps the first processes: init among them).
_PASSING = frozenset({"head", "tail", "tr", "cut", "sort", "uniq", "xargs", "cat", "column",
                      "sed", "paste", "fmt", "tac", "shuf", "read", "basename"})  # fmt: skip


def _matches(pattern: str, samples: tuple[str, ...], exact: bool, every: bool = False) -> bool:
    def one(sample: str) -> bool:
        if exact:
            return pattern == sample
        try:
            return re.search(pattern, sample) is not None
        except re.error:
            return False

    return all(one(s) for s in samples) if every else any(one(s) for s in samples)


def _pattern_reach(patterns: tuple[str, ...], whole: bool, exact: bool, inverse: bool) -> Reach:
    if inverse:  # `pkill -v x`: every process but those
        return Reach.EVERYTHING
    reach = Reach.SOME
    for pattern in patterns:
        if DYNAMIC in pattern:
            continue
        if not exact and _matches(pattern, _EVERY_NAME, False, every=True):
            return Reach.EVERYTHING
        if _matches(pattern, _INIT_LINES if whole else _INIT_NAMES, exact):
            reach = max(reach, Reach.INIT)
        elif _matches(pattern, _REMOTE_LINES if whole else _REMOTE_NAMES, exact):
            reach = max(reach, Reach.REMOTE_ACCESS)
    return reach


def _selector_reach(inv: Invocation) -> Reach:
    """What a `pkill`/`pgrep`/`killall` selects by its patterns and options."""
    values = [v for v in inv.values if not SIGNAL.match(v)]
    if inv.name == "killall":
        args = argv.parse(values, *KILLALL_VALUES)
        regexp = args.has("-r", "--regexp")
        reach = _pattern_reach(args.operands, False, not regexp, False)
        user = args.value("-u", "--user")
        if args.operands or not user:
            return reach if reach is not Reach.EVERYTHING or not user else Reach.USER
        return Reach.USER
    args = argv.parse(values, *PGREP_VALUES)
    if "1" in args.value("-P", "--parent"):  # the children of init: nearly all
        return Reach.EVERYTHING
    if "0" in args.value("-s", "-g", "--session", "--pgroup"):
        return Reach.OWN_GROUP
    inverse = args.has("-v", "--inverse")
    reach = _pattern_reach(args.operands, args.has("-f", "--full"), args.has("-x", "--exact"),
                           inverse)  # fmt: skip
    user = args.value("-u", "-U", "--uid", "--euid")
    if user and (not args.operands or reach is Reach.EVERYTHING):
        return Reach.USER
    return reach


def _lister_reach(inv: Invocation) -> Reach | None:
    """What a program that prints PIDs selects; `None` if it prints none."""
    name, values = inv.name, inv.values
    if name in ("pgrep", "pidof"):
        if name == "pidof":
            return _pattern_reach(tuple(inv.values), False, True, False)
        return _selector_reach(inv)
    if name == "ps":
        words = [v for v in values if not v.startswith("-")]
        letters = "".join(v.lstrip("-") for v in values if len(v) < 6 and "=" not in v)
        if any(v in ("-u", "-U", "--user", "-G", "--group") for v in values) or (
            words and words[0] in ("-u",)
        ):
            return Reach.USER
        if any(_OWN.search(w.raw or "") for w in inv.argv[1:]):
            return Reach.OWN_GROUP
        if "e" in letters or "A" in letters or "ax" in letters or "a" in letters:
            return Reach.EVERYTHING
        return Reach.OWN_GROUP  # a bare `ps`: the terminal's own processes
    if name == "ls" and any(v.rstrip("/") == "/proc" for v in values):
        return Reach.EVERYTHING
    if name in ("seq", "jot"):
        return _range_reach(values)
    return None


def _range_reach(values: tuple[str, ...] | list[str]) -> Reach:
    numbers = [int(v) for v in values if v.lstrip("-").isdigit()]
    if not numbers:
        return Reach.SOME
    low, high = (1, numbers[0]) if len(numbers) == 1 else (numbers[0], numbers[-1])
    if high - low > _SWEEP or low <= -1:
        return Reach.EVERYTHING
    return Reach.INIT if low <= 1 <= high else Reach.SOME


def _narrows(inv: Invocation) -> bool:
    """A filter after a lister that keeps only some processes, by name."""
    name = inv.name
    if name in ("grep", "egrep", "fgrep", "rg"):
        if inv.has_flag("v", ("invert-match",)):
            return False
        operands = inv.options.operands
        pattern = operands[0].value if operands else ""
        return bool(_NAMES_SOMETHING.search(_DIGITS_ONLY.sub("", pattern)))
    if name in ("awk", "gawk", "mawk"):
        program = next((w.value for w in inv.options.operands), "")
        head, _, _ = program.partition("{")
        condition = re.sub(r"\b(?:F?NR)\s*[<>!=]=?\s*\d+", "", head).strip()
        return bool(condition) or "~" in program or "==" in program or "if" in program
    if name == "sed":
        return "-n" in inv.values and "/" in " ".join(inv.values)
    return name not in _PASSING


def _pipeline_reach(chain: list[Invocation]) -> Reach:
    """The reach of PIDs printed by a pipeline (in order): the last lister's,
    unless a filter after it narrows it."""
    reach = Reach.SOME
    for inv in chain:
        found = _lister_reach(inv)
        if found is not None:
            reach = found
        elif _narrows(inv) and reach in (Reach.EVERYTHING, Reach.USER, Reach.OWN_GROUP):
            reach = Reach.SOME
    return reach


def _sources(inv: Invocation, analysis: Analysis) -> list[list[Invocation]]:
    """The pipelines that compute a kill's PIDs: its `$( )`, what is piped
    into it, and, for a loop variable, the other pipelines of the command."""
    invocations = analysis.invocations
    chains: list[list[Invocation]] = []
    if inv.upstream:
        chains.append([invocations[k] for k in inv.upstream])
    owners = {inv.index}
    outer = inv
    while outer.via and 0 <= outer.parent < len(invocations):
        outer = invocations[outer.parent]
        owners.add(outer.index)
    inner = [i for i in invocations if i.parent in owners and i.index not in owners]
    if inner:
        chains.append(inner)
    if not inner and _loop_variable(inv, analysis.text):
        # `while read p; do kill $p; done < <(ps -e)`: the lister is elsewhere.
        fed = {k for i in invocations for k in i.upstream}
        chains += [
            [*(invocations[k] for k in i.upstream), i]
            for i in invocations
            if i.parent < 0 and i.index != inv.index and i.index not in fed
        ]
    return chains


def _loop_variable(inv: Invocation, text: str) -> bool:
    """A kill given a variable a `for` loop or a `read` sets."""
    names = {m.group(1) for m in _LOOP.finditer(text) if m.group(1)}
    names.update(n for m in _READ.finditer(text) for n in m.group(1).split())
    return any(n in names for w in inv.argv[1:] for n in _VARIABLE.findall(w.raw or ""))


def _loop_reach(text: str) -> Reach:
    reach = Reach.SOME
    for match in _LOOP.finditer(text):
        words, arithmetic = match.group(2), match.group(3)
        if words is not None:
            if _PROC_GLOB.search(words):
                return Reach.EVERYTHING
            for brace in _BRACE_RANGE.finditer(words):
                reach = max(reach, _range_reach([brace.group(1), brace.group(2)]))
        elif arithmetic is not None:
            numbers = [int(n) for n in re.findall(r"\d+", arithmetic)]
            if len(numbers) >= 2:
                reach = max(reach, _range_reach([str(numbers[0]), str(numbers[1])]))
    return reach


def _signal(inv: Invocation) -> str:
    values = inv.values
    if not values:
        return "TERM"
    first = values[0]
    if first in ("-s", "-n", "--signal") and len(values) > 1:
        raw = values[1]
    elif first.startswith("--signal="):
        raw = first.partition("=")[2]
    elif SIGNAL.match(first) or (first.startswith("-") and first[1:].isdigit()):
        raw = first[1:]
    else:
        return "TERM"
    raw = raw.upper()
    return raw[3:] if raw.startswith("SIG") else raw


def harmless_to_init(inv: Invocation) -> bool:
    return _signal(inv) in _HARMLESS_TO_INIT


def _computed(raw: str) -> bool:
    """A process group or arithmetic whose number is known only at run time
    (`-$PGID`, `$((PID-1))`); `$!` is the job the command itself started."""
    if "$!" in raw or not (_GROUP_COMPUTED.match(raw) or _ARITH_UNKNOWN.search(raw)):
        return False
    return kill_targets.number(raw, {}) is None


def _kill_reach(inv: Invocation, analysis: Analysis) -> Reach:
    reach = Reach.SOME
    numbers = kill_targets.targets(inv, analysis.text)
    if -1 in numbers:
        return Reach.EVERYTHING
    if 0 in numbers:
        reach = Reach.OWN_GROUP
    if 1 in numbers:
        reach = Reach.INIT
    start = 1 if inv.values and inv.values[0].startswith("-") else 0
    for word in inv.argv[1 + start :]:
        raw = word.raw or word.value
        brace = _BRACE_RANGE.search(raw)
        if brace:
            reach = max(reach, _range_reach([brace.group(1), brace.group(2)]))
        elif _OWN.search(raw):
            reach = max(reach, Reach.OWN_GROUP)
        elif _computed(raw):
            reach = max(reach, Reach.COMPUTED)
    if any(DYNAMIC in w.value for w in inv.argv[1:]) or inv.appended_args:
        for chain in _sources(inv, analysis):
            reach = max(reach, _pipeline_reach(chain))
        reach = max(reach, _loop_reach(analysis.text))
    return reach


def reach(inv: Invocation, analysis: Analysis) -> Reach:
    """How far a `kill`, `pkill`, `killall` or `killall5` reaches."""
    name = inv.name
    if name == "killall5":
        return Reach.EVERYTHING
    if name in ("pkill", "killall"):
        return _selector_reach(inv)
    if name == "kill":
        return _kill_reach(inv, analysis)
    return Reach.SOME
