"""Scripts on disk judged with the whole catalogue (issue #13, family 3).

`bash deploy.sh`, `./x.sh`, `python3 tool.py`, `make target`, `npm run x`:
the file is read when it is a small regular file (under `MAX_SCRIPT`) and
its commands are judged by every rule, hard lines included, as if they were
typed; each hit says the file it was read from. A shell script is judged
whole; code in another language by what it does to the system (its shell
calls and the shell equivalents of its deletes, kills and sends), not by
being code. A file that cannot be read is judged as before: by the command
line only. The never-run checks read the same files (`script_judge`).
"""

from __future__ import annotations

from redline.decision import RuleHit
from redline.gate import run_files, script_files
from redline.rules.catalog import evaluate
from redline.runs_later.unreadable import UNREADABLE
from redline.shell import paths
from redline.shell.analysis import Analysis, analyze
from redline.shell.carriers import interpreter_family, shell_in_code
from redline.shell.disk_copies import COPIED
from redline.shell.invocation import Invocation
from redline.shell.script_runs import is_shell_text, language_of, script_run
from redline.shell.written_scripts import WRITTEN, recipes

TYPE_CHECKING = False  # not `typing`'s: kept off the hook's start (ADR 0004)
if TYPE_CHECKING:
    from redline.gate.never_run import Guard

# How deep scripts that run scripts are read; a script run deeper is unknown.
MAX_DEPTH = 3
_MANAGERS = frozenset({"npm", "yarn", "pnpm", "bun"})


def disk_hits(guard: Guard, analysis: Analysis, depth: int = 0) -> tuple[RuleHit, ...]:
    """The catalogue's hits in the scripts the command runs from disk."""
    found: dict[tuple[str, str], RuleHit] = {}
    for inv in analysis.invocations:
        if inv.remote or not inv.argv:
            continue
        if not (script_files.may_run_script(inv) or inv.name in _MANAGERS):
            continue
        if _judged_here(analysis, inv):
            continue
        scripts = _scripts(guard, inv)
        for path, text in scripts:
            for hit in _judge(guard, text, path, inv, depth):
                where = f"{hit.description} (read from `{path}`)"
                found.setdefault(
                    (hit.rule_id, path), hit._replace(description=where, span=inv.span)
                )
        told = any(c.via and c.via[-1].startswith(WRITTEN) for c in analysis.children(inv))
        if not scripts and not told and len(analysis.invocations) > 1:
            missing = _made_in_the_line(guard, inv)
            if missing is not None:
                for hit in evaluate(analyze(UNREADABLE)):
                    why = f"the script `{missing}` does not exist yet: this line makes it, unseen"
                    found.setdefault((hit.rule_id, missing), hit._replace(description=why))
    return tuple(found.values())


def _made_in_the_line(guard: Guard, inv: Invocation) -> str | None:
    """A script a shell or an interpreter is given (not a program run by its
    path: a build's binary) that does not exist when the line is judged,
    while another command of the line may make it (`sort -o y ask.sh; bash
    y`, `git mv rl y; python3 y approve 1`): its text is unknown."""
    run = script_run(inv)
    if run is None or "/" in inv.argv[0].value:
        return None
    path = paths.normalize(run.path, inv.cwd)
    if path is None or not path.startswith("/") or paths.is_glob(path):
        return None
    if path.startswith(script_files.SYSTEM_PROGRAMS) or path.startswith(("/dev/", "/proc/")):
        return None
    world = guard.world
    # A world that knows nothing (no machine to look at) cannot tell a missing file.
    return run.path if world.resolve(path) is None and world.resolve("/") else None


def _judged_here(analysis: Analysis, inv: Invocation) -> bool:
    """The file was written in this command: the analysis judged its text.
    (A copy's run is judged as its source's, and the file itself is read
    too: the copy may not happen, `false && cp x y; bash y`.)"""
    return any(
        c.via and c.via[-1].startswith(WRITTEN) and COPIED not in c.via[-1]
        for c in analysis.children(inv)
    )


def _scripts(guard: Guard, inv: Invocation) -> list[tuple[str, str]]:
    """`(path, shell text or code marked by language)` for each file `inv` runs."""
    makefiles = script_files.make_files(inv)
    if makefiles is not None:
        for name in makefiles:
            text = _read(guard, name, inv)
            if text is not None:
                return [(name, target_recipes(text, script_files.make_targets(inv)))]
        return []
    if inv.name in _MANAGERS:
        verbs = run_files.manager_scripts(inv)
        package = run_files.manager_folder(inv) + "package.json"
        text = None if verbs is None else _read(guard, package, inv)
        if text is None or verbs is None:
            return []
        return [(package, "\n".join(run_files.package_scripts(text, verbs)))]
    run = script_run(inv)
    if run is None:
        return []
    text = _read(guard, run.path, inv)
    if text is None:
        return []
    by_path = "/" in inv.argv[0].value
    if run.shell or is_shell_text(text, run.path) or (by_path and not text.startswith("#!")):
        return [(run.path, text)]
    family = interpreter_family(inv.name) if not by_path else None
    return [(run.path, _CODE + (family or language_of(text, run.path)) + "\n" + text)]


# Marks a script that is code in another language than the shell's.
_CODE = "\0code:"


def _read(guard: Guard, value: str, inv: Invocation) -> str | None:
    path = paths.normalize(value, inv.cwd)
    if path is None or not path.startswith(("/", "~")) or paths.is_glob(path):
        return None
    if path.startswith("~"):
        path = guard.places.home.rstrip("/") + path[1:]
    if path.startswith(script_files.SYSTEM_PROGRAMS):
        return None
    text = guard.world.read_script(path)
    if not text or len(text) >= script_files.MAX_SCRIPT:
        return None  # unreadable, empty or too large: judged by the command line
    from redline.gate import own_cli

    return None if own_cli.is_entry_script(text) else text


def _judge(guard: Guard, text: str, path: str, inv: Invocation, depth: int) -> list[RuleHit]:
    if text.startswith(_CODE):
        language, _, code = text[len(_CODE) :].partition("\n")
        shells = [c.text for c in shell_in_code(code, language)]
    else:
        shells = [text]
    hits: list[RuleHit] = []
    for shell in shells:
        analysis = analyze(shell, inv.cwd)
        hits.extend(evaluate(analysis))
        if depth + 1 < MAX_DEPTH:
            hits.extend(disk_hits(guard, analysis, depth + 1))
        elif _runs_scripts(guard, analysis):
            # Scripts nested deeper than the judge reads run unseen: asked.
            deep = f"scripts run scripts deeper than the {MAX_DEPTH} levels the judge reads"
            hits.extend(h._replace(description=deep) for h in evaluate(analyze(UNREADABLE)))
    return hits


def _runs_scripts(guard: Guard, analysis: Analysis) -> bool:
    return any(
        not inv.remote and inv.argv and script_files.may_run_script(inv) and _scripts(guard, inv)
        for inv in analysis.invocations
    )


def target_recipes(text: str, targets: list[str]) -> str:
    """The recipes `make TARGET...` runs: the targets' and their
    prerequisites' (the first target when none is named), and every
    `$(shell ...)`, which runs as the makefile is read. The lines that
    are no rule's (definitions, directives, special targets such as
    `.ONESHELL:`) are kept before them: make reads them all."""
    rules: dict[str, tuple[list[str], list[str]]] = {}
    current: list[str] = []
    first = ""
    others: list[str] = []
    for line in text.replace("\r\n", "\n").split("\n"):
        if line.startswith("\t"):
            for target in current:
                rules[target][1].append(line)
            continue
        head, colon, rest = line.partition(":")
        if colon and line[:1] not in (" ", "#") and "=" not in head and not rest.startswith("="):
            current = head.split()
            if current and (current[0].startswith(".") or "=" in rest):
                others.append(line)
            deps, _, inline = rest.partition(";")
            for target in current:
                entry = rules.setdefault(target, ([], []))
                entry[0].extend(deps.split())
                if inline.strip():
                    entry[1].append("\t" + inline)
            if not first and current and not current[0].startswith("."):
                first = current[0]
        elif line.strip() and not line.startswith("#"):
            current = []
            others.append(line)
    wanted = list(targets or [first])
    seen: set[str] = set()
    lines: list[str] = []
    while wanted and len(seen) < 256:
        target = wanted.pop(0)
        if target in seen or target not in rules:
            continue
        seen.add(target)
        prerequisites, body = rules[target]
        wanted.extend(prerequisites)
        # The rule line kept: its target and prerequisites are `$@`, `$<`, `$^`...
        lines.append(f"{target}: {' '.join(prerequisites)}")
        lines.extend(body)
    return recipes("\n".join(others + lines))
