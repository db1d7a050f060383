"""Judging scripts written now and run later (F-GATE-3, F-SHELL-8).

A script is judged twice: its text when it is written (a file tool's
content, a heredoc or `echo` into a file: `content_hits`), and the file
itself when it is run (`bash x.sh`, `./x`, `python3 x.py`: `script_hits`),
read from disk by the gate's `World`. Shell text is analysed as a command
line with every never-run check; other code is judged as code; a config
file's text, for hooks it would configure. `redline.gate.script_files` finds
the scripts; this module judges them with the gate's `Guard`.
"""

from __future__ import annotations

from collections.abc import Iterator

from redline.decision import RuleHit, Span
from redline.gate import agent_definitions, own_cli, script_files
from redline.gate.protected import NeverRunKind
from redline.shell import paths
from redline.shell.analysis import analyze
from redline.shell.invocation import Invocation

TYPE_CHECKING = False  # not `typing`'s: kept off the hook's start (ADR 0004)
if TYPE_CHECKING:
    from redline.gate.never_run import Guard

# How deep scripts that run scripts are read.
MAX_SCRIPT_DEPTH = 2
# Files that are code when written (judged as code even without `#!`).
SCRIPT_SUFFIXES = (".sh", ".bash", ".zsh", ".py", ".pl", ".rb", ".js", ".mjs", ".ts", ".php",
                   ".lua", ".ps1", ".fish", ".command")  # fmt: skip


def content_hits(
    guard: Guard, text: str, path: str, span: Span | None, depth: int = 0
) -> Iterator[RuleHit]:
    """Text written into a file: hooks configuration, or a script that
    would do a never-run thing when it runs."""
    lowered = path.lower()
    if agent_definitions.declares_hooks(text, path):
        where = f"`{path}` would define an agent or skill with hooks"
        yield guard.hit(NeverRunKind.GATE_CONFIG, span, where)
        return
    if lowered.endswith(script_files.DOC_SUFFIXES) or depth >= MAX_SCRIPT_DEPTH:
        return
    if script_files.configures_hooks(text, path):
        yield guard.hit(
            NeverRunKind.GATE_CONFIG, span, f"`{path}` would configure an agent's hooks"
        )
        return
    makefile = script_files.is_makefile(path)
    notebook = lowered.endswith(".ipynb")
    if makefile or notebook or script_files.is_shell_text(text, path):
        shell = text
        if makefile or notebook:
            shell = script_files.recipes(text) if makefile else script_files.notebook_shell(text)
        for found in guard.shell_hits(analyze(shell[: script_files.MAX_SCRIPT]), depth + 1):
            yield inside(found, path, span)
            return
    if lowered.endswith(SCRIPT_SUFFIXES) or text.startswith("#!"):
        yield from guard.code_hits(text, span)
    else:
        # Any other file may be read as instructions (`curl -K`, `wget -i`, a
        # makefile written with `\t`): naming the service there counts too.
        yield from guard.contact_in_code(text, span)


def script_hits(guard: Guard, inv: Invocation, span: Span, depth: int) -> Iterator[RuleHit]:
    """A script on disk that the invocation runs, read and judged."""
    for spawn in script_files.spawned(inv):
        for found in guard.shell_hits(analyze(spawn, inv.cwd), depth + 1):
            yield inside(found, "expect's spawn", span)
            return
    makefiles = script_files.make_files(inv)
    if makefiles is not None:
        yield from _make_hits(guard, inv, makefiles, span, depth)
        return
    for name in script_files.instruction_files(inv):
        path = _on_disk(guard, name, inv.cwd)
        text = None if path is None else guard.world.read_script(path)
        for found in guard.contact_in_code(text or "", span):
            yield inside(found, name, span)
            return
    run = script_files.script_run(inv)
    path = None if run is None else _on_disk(guard, run.path, inv.cwd)
    if run is None or path is None or path.startswith(script_files.SYSTEM_PROGRAMS):
        return
    text = guard.world.read_script(path)
    if not text:
        return
    if "/" in inv.argv[0].value and own_cli.is_entry_script(text):
        verdict = own_cli.judge(inv.values, inv.appended_args)
        if verdict is not None:
            yield guard.hit(verdict[0], span, f"`{run.path}` is redline: {verdict[1]}")
        return
    if run.shell or script_files.is_shell_text(text, path):
        for found in guard.shell_hits(analyze(text, inv.cwd), depth + 1):
            yield inside(found, run.path, span)
            return
        return
    for found in guard.code_hits(text, span):
        yield inside(found, run.path, span)
        return


def stored_hits(guard: Guard, inv: Invocation, span: Span, depth: int) -> Iterator[RuleHit]:
    """A shell command stored to run later: `git config alias.x '!CMD'`."""
    if inv.name != "git" or "config" not in inv.values or depth >= MAX_SCRIPT_DEPTH:
        return
    for value in inv.values:
        if value.startswith("!"):
            for found in guard.shell_hits(analyze(value[1:], inv.cwd), depth + 1):
                yield inside(found, "a git alias", span)
                return


def _make_hits(
    guard: Guard, inv: Invocation, makefiles: list[str], span: Span, depth: int
) -> Iterator[RuleHit]:
    """`make` runs its makefile's recipes: read (from stdin, or from disk) and judged."""
    for name in makefiles:
        if name in ("-", "/dev/stdin"):
            text = inv.stdin_text
        else:
            path = _on_disk(guard, name, inv.cwd)
            text = None if path is None else guard.world.read_script(path)
        if not text:
            continue
        for found in guard.shell_hits(analyze(script_files.recipes(text), inv.cwd), depth + 1):
            yield inside(found, name, span)
            return


def _on_disk(guard: Guard, value: str, cwd: str | None) -> str | None:
    """The absolute path of a file the invocation names, if it can be known."""
    path = paths.normalize(value, cwd)
    if path is None or not path.startswith(("/", "~")):
        return None
    return guard.places.home.rstrip("/") + path[1:] if path.startswith("~") else path


def existing_config_hit(guard: Guard, path: str, span: Span | None) -> RuleHit | None:
    """A config file that, as it is on disk now, configures an agent's hooks
    or wires the gate in (a `claude --settings FILE`, any place a host loads
    hooks from): changing it changes the gate, wherever it lives."""
    if not script_files.is_config(path):
        return None
    if path.startswith("~"):
        path = guard.places.home.rstrip("/") + path[1:]
    text = guard.world.read_script(path) if path.startswith("/") else None
    if text and script_files.configures_hooks(text, path):
        where = f"`{path}` configures an agent's hooks as it is"
        return guard.hit(NeverRunKind.GATE_CONFIG, span, where)
    return None


def inside(found: RuleHit, path: str, span: Span | None) -> RuleHit:
    """A hit found in a script's text, told as the script's."""
    return found._replace(description=f"{found.description} (in `{path}`)", span=span)
