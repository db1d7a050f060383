"""redline's own command line, run by the agent (F-GATE-3).

The agent runs as the owner's OS user, so `redline approve ID` from its
terminal would answer its own held call. The verbs that answer the gate
(`approve`, `reject`, `pair`, and `pending`, which hands out the ids), that
change it (`install`, `uninstall`, `hook`, `policy` beyond `lint`/`test`) or
start one of the agent's choosing (`serve`) never run, however the program is
reached: `redline`, a full path to any `redline` script, `python -m redline`,
through wrappers, carriers and aliases (the shell analysis unwraps those), a
computed command word that spells `redline`, or a script on disk that is a
redline entry point. What only reads or judges stays open: `check`, `log
show|verify|head|export`, `doctor`, `propose` (the owner still decides) and
`--help`/`--version` anywhere.
"""

from __future__ import annotations

import re

from redline.gate.protected import NeverRunKind
from redline.shell.carriers import interpreter_family
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC
from redline.shell.script_runs import script_run

# Verbs the agent may run, and per verb the actions it may take ("" is none).
OPEN: dict[str, frozenset[str]] = {
    "check": frozenset(),
    "doctor": frozenset(),
    "propose": frozenset(),
    "log": frozenset({"", "show", "verify", "head", "export"}),
    "policy": frozenset({"", "lint", "test"}),
}
ANSWERS = frozenset({"approve", "reject", "pending", "pair"})
CHANGES = frozenset({"install", "uninstall", "hook", "policy", "log", "agents"})
STARTS = frozenset({"serve"})
# Options of a verb that take a value before its action (`log --store URL show`).
_VALUED = frozenset({"--store"})
_WORDS = lazy_regex(r"[a-z]+")
_SPLIT = lazy_regex(r"[^\w./-]+")
_HELP = frozenset({"-h", "--help", "--version", "-V"})
# Modules that are the command line when run with `python -m`.
_ENTRY_MODULES = frozenset({"redline", "redline.__main__", "redline.cli", "redline.cli.main"})
# Python code that drives the gate's own parts (its CLI, service, hooks,
# allowlist or session grants) rather than only asking it for a verdict.
_CODE_IMPORTS = lazy_regex(
    r"""(?:\bimport\s+|\bfrom\s+|import_module\s*\(\s*|run_module\s*\(\s*|__import__\s*\(\s*)"""
    r"""['"]?redline\b"""
)
_CODE_DRIVES = lazy_regex(
    r"\bredline\.(?:cli|approve|hooks|__main__|policy\.allowlist|gate\.sessions|pairing)\b|"
    r"\b(?:record_outcome|Allowlist|SessionStore|run_module|cli\.main|main\s*\(\s*\[)"
)
# A script on disk that is a redline entry point (the console script pip writes).
_ENTRY_SCRIPT = lazy_regex(
    r"\bfrom\s+redline\.cli\.main\s+import\b|\bredline\.cli\.main\b|-m\s+redline\b"
)


def python_module(values: tuple[str, ...]) -> tuple[str, tuple[str, ...]] | None:
    """`python [options] -m MODULE ARGS...` as `(MODULE, ARGS)`."""
    k = 0
    while k < len(values):
        value = values[k]
        if not value.startswith("-") or value in ("-", "--"):
            return None
        if value.startswith("--"):
            k += 2 if value == "--check-hash-based-pycs" else 1
            continue
        for i, letter in enumerate(value[1:], 1):
            if letter == "m":
                rest = value[i + 1 :]
                if rest:
                    return rest, values[k + 1 :]
                return (values[k + 1], values[k + 2 :]) if k + 1 < len(values) else None
            if letter == "c":
                return None
            if letter in "WXQ":
                k += 0 if value[i + 1 :] else 1
                break
        k += 1
    return None


def may_be_redline(name: str) -> bool:
    """A cheap first test of a program name for `redline_args`."""
    return not name or "redline" in name or name.startswith(("python", "pypy"))


class _Lowered:
    """The last command line lowered: one per line, not one per computed program in it."""

    entry: tuple[str, str] | None = None  # one attribute: thread-safe


def _lowered(text: str) -> str:
    entry = _Lowered.entry
    if entry is not None and entry[0] is text:
        return entry[1]
    lowered = text.lower()
    _Lowered.entry = (text, lowered)
    return lowered


def redline_args(inv: Invocation, text: str = "") -> tuple[str, ...] | None:
    """The arguments given to redline's command line, when `inv` runs it.
    `text` is the whole command line `inv` is part of."""
    name, values = inv.name, inv.values
    if name == "redline" or name.endswith("/redline") or name in ("redline.exe", "redline-cli"):
        return values
    if "redline" in name and inv.argv and inv.argv[0].raw.startswith("$"):
        # A word split at run time (`IFS=,; x=redline,approve,1; $x`).
        parts = _SPLIT.split(name)
        if parts[0].rsplit("/", 1)[-1] == "redline":
            return (*parts[1:], *values)
    if not name and inv.argv:
        raw = inv.argv[0].raw.lower()
        # A computed program that spells redline, or is given one of its answering verbs.
        if ("redline" in raw and values) or (values and values[0].lower() in ANSWERS):
            return values
        # A computed program in a command line that spells redline and a verb
        # that answers or changes the gate (`a=(redline approve 1); "${a[@]}"`).
        lowered = _lowered(text)
        if "redline" in lowered:
            verbs = ANSWERS | CHANGES | STARTS
            spelled = sorted(w for w in _WORDS.findall(lowered) if w in verbs - {"log", "policy"})
            if spelled:
                return (spelled[0], DYNAMIC)
        return None
    if interpreter_family(name) == "python":
        script = _python_script(inv)
        if script is not None:
            # `python3 "$(command -v redline)" approve 1`: a script path that is
            # computed or spelled with redline's name is taken to be its command.
            return script
        found = python_module(values)
        if found is not None:
            module, rest = found
            if module in _ENTRY_MODULES or DYNAMIC in module:
                return rest
            if module.startswith("redline."):
                return ("--module", module)
            given = {v.lower() for v in rest}
            named = any("redline" in v for v in given)
            if module in ("pip", "pipx") and named and {"install", "uninstall"} & given:
                return ("--package", f"{module} {' '.join(rest)}")
    return None


def _python_script(inv: Invocation) -> tuple[str, ...] | None:
    """The arguments after a script operand of python that names redline."""
    words = inv.argv[1:]
    k = 0
    while k < len(words):
        value = words[k].value
        if value in ("-", "--") or not value.startswith("-"):
            break
        k += 1
        if value.startswith("--"):
            continue
        for i, letter in enumerate(value[1:], 1):
            if letter in "cm":
                return None  # `-m MODULE` and `-c CODE` are read elsewhere
            if letter in "XWQ":
                k += 0 if value[i + 1 :] else 1  # its value, attached or next
                break
    else:
        return None
    if words[k].value == "--":
        k += 1
    if k >= len(words):
        return None
    word = words[k]
    raw = (word.raw or word.value).lower()
    # Computed (`$(command -v redline)`, `<(cat .../redline)`) or a file called redline.
    if "redline" not in raw or (not any(c in raw for c in "$`<") and _base(raw) != "redline"):
        return None
    return tuple(w.value for w in words[k + 1 :])


def program_file(inv: Invocation) -> str | None:
    """The file `inv` runs as its program: its path (`./x`), or the script
    an interpreter is given (`python3 /tmp/x`, `python3 - < /tmp/x`)."""
    if not inv.argv:
        return None
    if "/" in inv.argv[0].value:
        return inv.argv[0].value
    if interpreter_family(inv.name) is None:
        return None
    run = script_run(inv)
    return None if run is None else run.path


def after_script(inv: Invocation, script: str) -> tuple[str, ...]:
    """The arguments a script gets: all of them when the script is the
    program (`./redline approve 1`), else those after its operand (`python3
    -u path approve 1`, `python3 - approve 1 < path`)."""
    values = inv.values
    if "/" in inv.argv[0].value:
        return values
    for marker in (script, "-"):
        if marker in values:
            return values[values.index(marker) + 1 :]
    return values


def _base(path: str) -> str:
    return path.strip("\"'").rsplit("/", 1)[-1]


# Variables (and `-X` options) that make Python load code from places of the
# caller's choosing: redline's own command run with one runs code the gate
# did not ship, with the gate's name and files (its hook image, its log).
_CODE_LOADING = lazy_regex(
    r"(?:\b(?:PYTHONPATH|PYTHONHOME|PYTHONPYCACHEPREFIX|PYTHONSTARTUP|PYTHONUSERBASE|"
    r"PYTHONPLATLIBDIR|PYTHONEXECUTABLE|PYTHONINSPECT)|pycache_prefix)\b"
)


def code_loading(text: str, args: tuple[str, ...] = ()) -> str | None:
    """The variable or option in a command line that runs redline (with
    `args`), which would make it load code the gate did not ship."""
    match = _CODE_LOADING.search(text)
    if match is None:
        return None
    for arg in sorted(args, key=len, reverse=True):
        text = text.replace(arg, " ")  # `redline check 'PYTHONPATH=src pytest'` only asks
    match = _CODE_LOADING.search(text)
    return match.group(0) if match else None


def judge_run(args: tuple[str, ...], appended: bool, text: str) -> tuple[NeverRunKind, str] | None:
    """`judge`, and redline's command line run in `text` with a variable
    or option that makes it load code the gate did not ship."""
    verdict = judge(args, appended)
    if verdict is None and (loads := code_loading(text, args)) is not None:
        why = f"redline run with `{loads}` set would load code the gate did not ship"
        return NeverRunKind.GATE_PROCESS, why
    if verdict is None and _doctor_elsewhere(args, text):
        # doctor runs the hook commands it finds: in places the agent chose
        # (`--project /tmp/x`, `HERMES_HOME=/tmp/h`, a `PATH` with its own
        # `hermes`) those are commands the agent wrote.
        why = "`redline doctor` runs the hooks configured where it looks: only alone on its line"
        return NeverRunKind.GATE_CONFIG, why
    return verdict


# `redline doctor` alone on its line: the only form whose places the agent
# did not choose (anything before it may move HOME, PATH or HERMES_HOME:
# `read`, `export`, `source`, `set -a`, an assignment).
_DOCTOR_ALONE = lazy_regex(
    r"\s*(?:(?:/[\w/]*/)?(?:ba|z|da)?sh\s+-[a-z]*c\s+)?(['\"]?)"  # an agent's own `bash -lc`
    r"\s*(?:[\w./~-]*/)?(?:redline|python[\d.]*\s+(?:-[A-Za-z]+\s+)*-m\s*redline)"
    r"\s+doctor\s*\1\s*"
)


def _doctor_elsewhere(args: tuple[str, ...], text: str) -> bool:
    operands = [a for a in args if not a.startswith("-")]
    if not operands or operands[0].lower() != "doctor" or any(a in _HELP for a in args):
        return False
    return _DOCTOR_ALONE.fullmatch(text) is None


def judge(args: tuple[str, ...], appended: bool = False) -> tuple[NeverRunKind, str] | None:
    """The never-run kind and the reason for redline's command line with
    `args`, or `None` when it only reads or judges."""
    if args[:1] == ("--package",):
        return NeverRunKind.GATE_CONFIG, f"`python -m {args[1]}` would change the gate's own code"
    if args[:1] == ("--module",):
        return NeverRunKind.SELF_APPROVAL, f"`python -m {args[1]}` runs a part of the gate itself"
    words = args[: args.index("--")] if "--" in args else args
    if any(w in _HELP for w in words):
        return None
    operands = [w for w in args if not w.startswith("-")]
    if not operands:
        if appended:
            return NeverRunKind.SELF_APPROVAL, "redline's subcommand is given at run time"
        return None
    verb = operands[0]
    if DYNAMIC in verb or verb.startswith("$"):
        return NeverRunKind.SELF_APPROVAL, "redline's subcommand is computed at run time"
    action = _action(args, verb)
    verb = verb.lower()
    if verb in OPEN:
        allowed = OPEN[verb]
        if not allowed or (action in allowed and not (action == "" and appended)):
            return None
        if DYNAMIC in action or action.startswith("$") or appended:
            return NeverRunKind.SELF_APPROVAL, f"`redline {verb}`'s action is given at run time"
        return NeverRunKind.GATE_CONFIG, f"`redline {verb} {action}` changes the gate"
    if verb in ANSWERS:
        return (
            NeverRunKind.SELF_APPROVAL,
            f"`redline {verb}` answers held calls; only the owner does",
        )
    if verb in STARTS:
        return (
            NeverRunKind.GATE_PROCESS,
            "`redline serve` would start an approval service of the agent's choosing",
        )
    if verb in CHANGES:
        return NeverRunKind.GATE_CONFIG, f"`redline {verb}` changes how the gate is wired in"
    return NeverRunKind.SELF_APPROVAL, (
        f"`redline {verb}`: the agent may run only `redline check`, `log show|verify|head`, "
        "`doctor` and `propose`"
    )


def _action(args: tuple[str, ...], verb: str) -> str:
    """The action after `verb` (`show` in `log --store URL show`), or ""."""
    rest = list(args[args.index(verb) + 1 :])
    while rest:
        word = rest.pop(0)
        if word in _VALUED:
            if rest:
                rest.pop(0)
            continue
        if word.startswith("-"):
            continue
        return word.lower()
    return ""


def code_drives_gate(code: str) -> bool:
    """Code that imports redline and drives its command line, service,
    hooks or grants (`from redline.cli.main import main; main(["approve", ...])`)."""
    return (
        "redline" in code and bool(_CODE_IMPORTS.search(code)) and bool(_CODE_DRIVES.search(code))
    )


def is_entry_script(text: str) -> bool:
    """A script on disk that starts redline's command line (pip's console
    script, a copy of it, or a wrapper running `python -m redline`)."""
    return "redline" in text and bool(_ENTRY_SCRIPT.search(text))


_PROSE_VERBS = lazy_regex(
    r"\bredline(?:\s+-\S+)*\s+(approve|reject|pending|pair|install|uninstall|serve|hook)\b",
    re.IGNORECASE,
)


def prose_drives_gate(text: str) -> str | None:
    """Instructions for a sub-agent or a scheduled job that run one of
    redline's answering or wiring verbs (`run redline approve 3`)."""
    if "redline" not in text.lower():
        return None
    match = _PROSE_VERBS.search(text)
    return f"the instructions run `redline {match.group(1).lower()}`" if match else None
