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
from redline.gate import own_cli, run_files, script_files
from redline.gate.protected import NeverRunKind
from redline.gate.world import World
from redline.shell import paths
from redline.shell.analysis import analyze
from redline.shell.carriers import SHELLS, interpreter_family, shell_in_code
from redline.shell.invocation import Invocation
from redline.shell.script_runs import is_shell_text, language_of, script_run

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
    # Here, not at the top: most calls write no file (kept off a hook's start).
    from redline.gate import agent_definitions

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
    if lowered.endswith("package.json") and "scripts" in text:
        for script in run_files.package_scripts(text, ("*",)):
            for found in guard.shell_hits(analyze(script), depth + 1):
                yield inside(found, path, span)
                return
    if is_hook_file(lowered) and not text.startswith("#!"):
        text = "#!/bin/sh\n" + text  # git runs a hook without `#!` with the shell
    makefile = script_files.is_makefile(path)
    notebook = lowered.endswith(".ipynb")
    if makefile or notebook or is_shell_text(text, path):
        shell = text
        if makefile or notebook:
            just = makefile and lowered.rsplit("/", 1)[-1] in ("justfile", ".justfile")
            shell = (
                script_files.recipes(text, just) if makefile else script_files.notebook_shell(text)
            )
        if makefile:
            from redline.runs_later.everyday import without_plain

            # As the judge of its commands reads them: lines that only print left out.
            shell = "\n".join(without_plain(shell.split("\n")))
        shell = shell[: script_files.MAX_SCRIPT]
        for found in _shell_text_hits(guard, shell, path, makefile, depth):
            yield inside(found, path, span)
            return
    for found in _later_file_hits(guard, text, path, depth):
        yield inside(found, path, span)
        return
    if lowered.endswith(SCRIPT_SUFFIXES) or text.startswith("#!"):
        for found in code_file_hits(guard, text, language_of(text, path), span, depth, None):
            yield found
            return
    else:
        # Any other file may be read as instructions (`curl -K`, `wget -i`, a
        # makefile written with `\t`): naming the service there counts too.
        yield from guard.contact_in_code(text, span)


# Formats read above (recipes, code), or whose commands run on another
# machine or in an image (CI, Dockerfiles): not this machine's gate.
_NOT_HERE = frozenset({"make", "just", "python", "github", "gitlab", "circleci", "azure",
                       "jenkins", "dockerfile"})  # fmt: skip


def _later_file_hits(guard: Guard, text: str, path: str, depth: int) -> list[RuleHit]:
    """A file another tool runs later (`.husky/*`, `.envrc`, `tox.ini`,
    `.git/config`'s program keys, CI files...): the commands its reader
    finds, judged by the never-run checks as the catalogue judges them."""
    from redline.runs_later import places

    kind = places.format_of(path)
    if kind is None or kind in _NOT_HERE:
        return []
    from redline.runs_later.judge import commands_of

    shell = "\n".join(step.command for step in commands_of(kind, text))
    return _shell_text_hits(guard, shell[: script_files.MAX_SCRIPT], path, False, depth)


def _shell_text_hits(
    guard: Guard, shell: str, path: str, makefile: bool, depth: int
) -> list[RuleHit]:
    """The first never-run hit of shell text written into `path` (a long
    text's verdict remembered with the machine's answers: `script_memo`)."""
    # A makefile in its folder, as the judge of its commands reads it (one analysis).
    cwd = (path.rsplit("/", 1)[0] or "/") if makefile and path.startswith("/") else None

    def judge(world: World) -> list[RuleHit]:
        if cwd is not None:
            from redline.runs_later.judge import analyze_once

            analysis = analyze_once(shell, cwd)
        else:
            analysis = analyze(shell)
        found = guard._replace(world=world).shell_hits(analysis, depth + 1)
        return list(_first(found))

    from redline.gate import script_memo  # only for written shell text: see `content_hits`

    if len(shell) < script_memo.MIN_TEXT:
        return judge(guard.world)
    return script_memo.remembered((shell, cwd, depth, guard.places), guard.world, judge)


def _first(hits: Iterator[RuleHit]) -> Iterator[RuleHit]:
    for hit in hits:
        yield hit
        return


def run_hits(guard: Guard, inv: Invocation, span: Span, depth: int, text: str) -> Iterator[RuleHit]:
    """The files an invocation runs: the script it names, and those a tool
    runs on its own (cheap name tests first: nothing is read for `ls`)."""
    if script_files.may_run_script(inv):
        yield from script_hits(guard, inv, span, depth)
    if may_run_tool_files(inv, text):
        yield from tool_hits(guard, inv, span, depth, text)
    if inv.name in script_files.COPIERS and inv.name != "ln":
        yield from copy_hits(guard, inv, span, depth)


def copy_hits(guard: Guard, inv: Invocation, span: Span, depth: int) -> Iterator[RuleHit]:
    """`cp FILE .git/hooks/pre-push`, `mv d.txt run.sh`: a file copied to
    where it will run is judged as its text written there."""
    operands = [w.value for w in inv.options.operands]
    if len(operands) < 2:
        return
    target = operands[-1]
    for source in operands[:-1]:
        dest = target + "/" + source.rsplit("/", 1)[-1] if target.endswith("/") else target
        if not runs_later(dest):
            continue
        path = _on_disk(guard, source, inv.cwd)
        text = None if path is None else guard.world.read_script(path)
        if text:
            for found in content_hits(guard, text, dest, span, depth):
                yield inside(found, f"{path}, read from disk", span)
                return


def runs_later(path: str) -> bool:
    """A place a file is run from: a script's name, a git hook, a build or package file."""
    lowered = path.lower()
    name = lowered.rsplit("/", 1)[-1]
    return (
        lowered.endswith(SCRIPT_SUFFIXES)
        or is_hook_file(lowered)
        or name in ("package.json", "conftest.py", "setup.py")
        or script_files.is_makefile(lowered)
    )


def is_hook_file(path: str) -> bool:
    """A git hook (`.git/hooks/NAME`, a `core.hooksPath` folder's)."""
    return "hooks/" in path and (".git/" in path or path.startswith("hooks/") or "/." in path)


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
    run = script_run(inv)
    path = None if run is None else _on_disk(guard, run.path, inv.cwd)
    if run is None or path is None or path.startswith(script_files.SYSTEM_PROGRAMS):
        return
    if paths.is_glob(path):  # `sh /x/*.txt`: the shell runs the first file it names
        matches = guard.world.expand(path)
        if not matches:
            return
        path = matches[0]
    text = guard.world.read_script(path)
    if not text and not run.shell and interpreter_family(inv.name) == "python":
        text = guard.world.read_script(path.rstrip("/") + "/__main__.py")  # a folder run
    if not text:
        return
    if own_cli.is_entry_script(text):
        # `./copy approve 1`, `python3 path/red''line approve 1`, `python3 - approve 1 < it`
        args = own_cli.after_script(inv, run.path)
        verdict = own_cli.judge(args, inv.appended_args)
        if verdict is not None:
            yield guard.hit(verdict[0], span, f"`{run.path}` is redline: {verdict[1]}")
        return
    if run.shell or is_shell_text(text, path):
        for found in guard.shell_hits(analyze(text, inv.cwd), depth + 1):
            yield inside(found, run.path, span)
            return
        return
    family = interpreter_family(inv.name) or language_of(text, path)
    for found in code_file_hits(guard, text, family, span, depth, inv.cwd):
        yield inside(found, run.path, span)
        return


def code_file_hits(
    guard: Guard, text: str, language: str, span: Span | None, depth: int, cwd: str | None
) -> Iterator[RuleHit]:
    """A file of code, judged as the same code given inline would be: what it
    names and contacts, and each command it hands to the system shell."""
    text = text[: script_files.MAX_SCRIPT]
    for found in guard.code_hits(text, span):
        yield found
        return
    if depth >= MAX_SCRIPT_DEPTH:
        return
    # Each distinct command once: a module runs the same few many times.
    for carried in dict.fromkeys(c.text for c in shell_in_code(text, language)):
        for found in guard.shell_hits(analyze(carried, cwd), depth + 1):
            yield found
            return


def may_run_tool_files(inv: Invocation, text: str) -> bool:
    """A cheap first test for `tool_hits`."""
    return (
        run_files.may_run_files(inv)
        or inv.name in ("npm", "yarn", "pnpm", "bun")
        or (inv.name in SHELLS and ("ENV=" in text or "STARTUP=" in text))
    )


def tool_hits(
    guard: Guard, inv: Invocation, span: Span, depth: int, text: str
) -> Iterator[RuleHit]:
    """Files a tool runs that it does not name as its script (`pytest`'s
    `conftest.py`, `pip install .`'s `setup.py`, `npm test`'s script, git's
    hooks, `awk -f`, `BASH_ENV=F`), read from disk and judged by their language."""
    cwd = inv.cwd
    if inv.name in ("npm", "yarn", "pnpm", "bun"):
        yield from _package_hits(guard, inv, span, depth)
        return
    if inv.name == "git":
        files = _git_files(guard, inv)
    else:
        files = run_files.run_files(inv, cwd) if run_files.may_run_files(inv) else []
    if inv.name in SHELLS or interpreter_family(inv.name) == "python":
        files += run_files.env_files(text, cwd)
    for path, language in files:
        on_disk = _on_disk(guard, path, cwd)
        if on_disk is not None and paths.is_glob(on_disk):
            on_disk = next(iter(guard.world.expand(on_disk)), None)
        body = None if on_disk is None else guard.world.read_script(on_disk)
        if not body:
            continue
        for found in _judge_file(guard, body, on_disk or path, language, span, depth, cwd):
            yield inside(found, f"{on_disk}, read from disk", span)
            return


def _judge_file(
    guard: Guard,
    text: str,
    path: str,
    language: str,
    span: Span,
    depth: int,
    cwd: str | None,
) -> Iterator[RuleHit]:
    if language == "program":  # run by its `#!`, else by a shell
        language = language_of(text, path) if text.startswith("#!") else "shell"
    if language == "shell" or is_shell_text(text, path):
        yield from guard.shell_hits(analyze(text[: script_files.MAX_SCRIPT], cwd), depth + 1)
    elif language in ("sed", "vim", "gdb"):
        # Their commands that run a shell (`e CMD`, `:!CMD`, `shell CMD`):
        # every line is judged as shell text, failing closed.
        lines = [
            line.strip().lstrip(":!").removeprefix("shell ").removeprefix("e ")
            for line in text[: script_files.MAX_SCRIPT].split("\n")
        ]
        yield from guard.shell_hits(analyze("\n".join(lines), cwd), depth + 1)
        yield from guard.code_hits(text, span)
    else:
        yield from code_file_hits(guard, text, language, span, depth, cwd)


def _git_files(guard: Guard, inv: Invocation) -> list[tuple[str, str]]:
    """The hooks a git command runs, from the repository's `.git/hooks` or `core.hooksPath`."""
    for root, hooks in run_files.run_files(inv, inv.cwd):
        config = guard.world.read_script(root.rstrip("/") + "/.git/config")
        if config is None and guard.world.read_script(root.rstrip("/") + "/.git/HEAD") is None:
            continue
        dirs = run_files.git_hook_dirs(root, config)
        return [(f"{d}/{hook}", "program") for d in dirs for hook in hooks.split()]
    return []


def _package_hits(guard: Guard, inv: Invocation, span: Span, depth: int) -> Iterator[RuleHit]:
    """`npm test`, `yarn build`, `npm install`: the `package.json` scripts run, as shell."""
    verbs = run_files.manager_scripts(inv)
    path = _on_disk(guard, run_files.manager_folder(inv) + "package.json", inv.cwd)
    if verbs is None or path is None:
        return
    text = guard.world.read_script(path)
    if not text:
        return
    for script in run_files.package_scripts(text, verbs):
        for found in guard.shell_hits(analyze(script, inv.cwd), depth + 1):
            yield inside(found, f"{path}, read from disk", span)
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
        recipes = script_files.recipes(text, inv.name == "just")
        for found in guard.shell_hits(analyze(recipes, inv.cwd), depth + 1):
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
