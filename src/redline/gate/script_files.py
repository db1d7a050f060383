"""Scripts as files: the file an invocation runs, and the text an invocation
writes into a file, for the never-run checks (F-GATE-3, F-SHELL-8).

A script written now and run later is judged twice: its text when it is
written (a file tool's content, a heredoc or `echo` into a file), and the
file itself when it is run (`bash x.sh`, `./x`, `python3 x.py`), read from
disk by the gate's `World`. Each text is judged by its shape: shell text is
analysed as a command line, anything else as code.
"""

from __future__ import annotations

from redline.fasttuple import NamedTuple
from redline.shell import paths
from redline.shell.analysis import Analysis
from redline.shell.carriers import (
    SHELLS,
    SOURCE,
    VALUE_FLAGS,
    inline_code,
    interpreter_family,
    shell_options,
    static_output,
)
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC

# The most of a script the gate reads from disk: enough for any real script;
# a longer one is judged by its start.
MAX_SCRIPT = 256 * 1024
_SHELL_SUFFIXES = (".sh", ".bash", ".zsh", ".ksh", ".command")
# Text nobody runs: documentation (naming `redline approve` there is prose).
DOC_SUFFIXES = (".md", ".rst", ".txt", ".adoc", ".html", ".htm", ".org", ".tex")


class RunScript(NamedTuple):
    """A file an invocation runs: its path as written and whether a shell
    reads it (else an interpreter or the kernel's `#!`)."""

    path: str
    shell: bool


_INTERPRETER_HEADS = ("py", "pe", "ru", "no", "bu", "de", "ph", "lu", "rs", "os", "tc", "aw", "ga",
                      "ma", "na", "js", "ir")  # fmt: skip


def may_run_script(inv: Invocation) -> bool:
    """A cheap first test for `script_run`: a program named by a path, a
    shell, `source`, or an interpreter."""
    name = inv.name
    if name in _RUNS_FILES or bool(inv.argv and "/" in inv.argv[0].value):
        return True
    return name.startswith(_INTERPRETER_HEADS) and interpreter_family(name) is not None


def script_run(inv: Invocation) -> RunScript | None:
    """The file `inv` runs as a program or script, if it names one."""
    if not inv.argv:
        return None
    first = inv.argv[0].value
    if "/" in first and DYNAMIC not in first:
        return RunScript(first, first.endswith(_SHELL_SUFFIXES))
    name, values = inv.name, inv.values
    if name in SHELLS:
        mode, k = shell_options(values)
        if mode == "c":
            return None
        return _named(values[k], by_shell=True) if k < len(values) else _stdin_file(inv, True)
    if name in SOURCE:
        operands = inv.options.operands
        return _named(operands[0].value, by_shell=True) if operands else None
    family = interpreter_family(name)
    if family is None or inline_code(inv) is not None:
        return None
    k = 0
    takes = VALUE_FLAGS.get(family, "")
    while k < len(values):
        value = values[k]
        if value == "--":
            return _named(values[k + 1], by_shell=False) if k + 1 < len(values) else None
        if not value.startswith("-") or value == "-":
            return _named(value, by_shell=False) if value != "-" else None
        if family in ("python", "pypy") and "m" in value[1:]:
            return None  # a module, not a file
        if value[1:2] in takes and len(value) == 2:
            k += 1
        k += 1
    return _stdin_file(inv, False)


def _stdin_file(inv: Invocation, by_shell: bool) -> RunScript | None:
    """`sh < FILE`, `python3 < FILE`: the script is the file on stdin."""
    for redirect in inv.redirects:
        if redirect.op == "<" and redirect.fd in (None, 0) and redirect.target is not None:
            return _named(redirect.target.value, by_shell)
    return None


def _named(value: str, by_shell: bool) -> RunScript | None:
    if not value or DYNAMIC in value or value in ("/dev/stdin", "-"):
        return None
    return RunScript(value, by_shell)


def is_shell_text(text: str, path: str = "") -> bool:
    """Shell text: a `#!` naming a shell, or a shell script's suffix."""
    if text.startswith("#!"):
        first = text.split("\n", 1)[0]
        program = first.rsplit("/", 1)[-1].split()
        if program and program[0] == "env" and len(program) > 1:
            return program[1] in SHELLS
        return bool(program) and program[0] in SHELLS
    return path.lower().endswith(_SHELL_SUFFIXES)


def written_texts(inv: Invocation) -> list[tuple[str, str]]:
    """`(path as written, text)` for each file `inv` writes with a text the
    analysis knows: `cat > f <<EOF`, `echo ... > f`, `printf ... >> f`,
    `tee f <<< ...`."""
    found: list[tuple[str, str]] = []
    targets = [
        r.target.value
        for r in inv.redirects
        if r.target is not None and r.op in (">", ">>", ">|", "&>", "&>>")
    ]
    if targets:
        text = static_output(inv)
        if text is not None:
            found.extend((t, text) for t in targets)
    if inv.name == "tee" and inv.stdin_text is not None:
        found.extend((w.value, inv.stdin_text) for w in inv.options.operands)
    return found


# Installed programs: not the agent's scripts, and not read (most are binaries).
SYSTEM_PROGRAMS = (
    "/usr/bin/",
    "/bin/",
    "/usr/sbin/",
    "/sbin/",
    "/usr/lib/",
    "/lib/",
    "/usr/libexec/",
)
_CONFIG_SUFFIXES = (".json", ".jsonc", ".toml", ".yaml", ".yml")
# What a hooks configuration says, in the agents' formats: Claude Code and
# Codex (`PreToolUse`...), Gemini CLI (`BeforeTool`...), Hermes
# (`pre_tool_call`...), and the settings that turn hooks off.
_HOOK_WORDS = (
    "pretooluse", "posttooluse", "permissionrequest", "userpromptsubmit", "sessionstart",
    "sessionend", "subagentstop", "precompact", "beforetool", "aftertool", "beforemodel",
    "beforeagent", "pre_tool_call", "post_tool_call", "disableallhooks", "allowmanagedhooksonly",
)  # fmt: skip


def is_config(path: str) -> bool:
    return path.lower().endswith(_CONFIG_SUFFIXES)


def configures_hooks(text: str, path: str) -> bool:
    """A config file's text that adds, changes or turns off an agent's
    hooks, or runs the gate's hook (`redline hook`)."""
    if not is_config(path):
        return False
    lowered = text.lower()
    return any(word in lowered for word in _HOOK_WORDS) or "redline hook" in lowered


COPIERS = frozenset({"cp", "ln", "install", "mv", "rsync"})


def program_copies(analysis: Analysis) -> dict[str, str]:
    """Files a command line copies or links into place, as `{destination
    (normalised): source as written}`: `cp $(which redline) /tmp/x` then
    `/tmp/x approve 1` runs redline."""
    found: dict[str, str] = {}
    for inv in analysis.invocations:
        if inv.name not in COPIERS:
            continue
        operands = inv.options.operands
        if len(operands) < 2:
            continue
        source, target = operands[-2], operands[-1].value
        if target.endswith("/"):
            target += source.value.rstrip("/").rsplit("/", 1)[-1]
        normal = paths.normalize(target, inv.cwd)
        if normal is not None:
            found[normal] = source.raw + " " + source.value
    return found


_MAKES = frozenset({"make", "gmake", "bmake", "just"})
_RUNS_FILES = frozenset({"make", "gmake", "bmake", "just", "curl", "wget", "aria2c", "expect",
                         *SHELLS, *SOURCE})  # fmt: skip
# Options by which a client reads its URLs or options from a file.
_INSTRUCTION_OPTIONS = {
    "curl": ("-K", "--config"),
    "wget": ("-i", "--input-file", "--config"),
    "aria2c": ("-i", "--input-file"),
}


def instruction_files(inv: Invocation) -> list[str]:
    """Files a client reads its URLs or options from (`curl -K FILE`, `wget -i FILE`)."""
    options = _INSTRUCTION_OPTIONS.get(inv.name)
    if not options:
        return []
    values = inv.values
    found: list[str] = []
    for k, value in enumerate(values):
        if value in options and k + 1 < len(values):
            found.append(values[k + 1])
        elif value.startswith(tuple(o + "=" for o in options if o.startswith("--"))):
            found.append(value.split("=", 1)[1])
    return [f for f in found if f not in ("-", "/dev/stdin") and DYNAMIC not in f]


MAKEFILES = ("makefile", "gnumakefile", "justfile", ".justfile")


def is_makefile(path: str) -> bool:
    name = path.rsplit("/", 1)[-1].lower()
    return name in MAKEFILES or name.endswith(".mk")


def make_files(inv: Invocation) -> list[str] | None:
    """The files `make` (or `just`) reads its recipes from, as written
    (relative to its working directory); `None` when `inv` is no make."""
    if inv.name not in _MAKES:
        return None
    values = inv.values
    given: list[str] = []
    directory = ""
    for k, value in enumerate(values):
        following = values[k + 1] if k + 1 < len(values) else ""
        if value in ("-f", "--file", "--makefile", "--justfile"):
            given.append(following)
        elif value.startswith(("--file=", "--makefile=", "--justfile=")):
            given.append(value.split("=", 1)[1])
        elif value.startswith("-f") and len(value) > 2 and inv.name != "just":
            given.append(value[2:])
        elif value in ("-C", "--directory", "--working-directory", "-d"):
            directory = following
    if not given:
        given = ["justfile", ".justfile"] if inv.name == "just" else list(_DEFAULT_MAKEFILES)
    if directory:
        given = [f"{directory.rstrip('/')}/{f}" if not f.startswith("/") else f for f in given]
    return given


_DEFAULT_MAKEFILES = ("GNUmakefile", "makefile", "Makefile")


def recipes(text: str, just: bool = False) -> str:
    """The shell lines of a makefile (or a justfile), read as make reads them
    (`redline.runs_later.make_syntax`): recipe lines less `@`, `-`, `+`,
    `$$` read as `$`, make's variables by their values, and what
    `$(shell ...)` runs."""
    from redline.runs_later.make_syntax import just_commands, make_commands

    return "\n".join(just_commands(text) if just else make_commands(text))


def copied_into(inv: Invocation) -> list[str]:
    """Where a copy into a directory puts each source (`cp -r x/.claude
    /srv/app/` writes `/srv/app/.claude`)."""
    if inv.name not in COPIERS or inv.name == "ln":
        return []
    operands = [w.value for w in inv.options.operands]
    if len(operands) < 2 or DYNAMIC in operands[-1]:
        return []
    target = operands[-1].rstrip("/")
    found = [f"{target}/{s.rstrip('/').rsplit('/', 1)[-1]}" for s in operands[:-1] if s.strip("/")]
    if target.rsplit("/", 1)[-1].startswith("."):
        found.append(target)  # `cp -r x /srv/app/.claude` may create that folder
    return found


_SPAWN = lazy_regex(r"\bspawn\s+([^;\n\]]+)")
_NOTEBOOK_SHELL = lazy_regex(r"""(?:^|["\n])[ \t]*!([^"\n\\]+)""")


def spawned(inv: Invocation) -> list[str]:
    """What `expect` spawns (`expect -c 'spawn redline approve 1'`), as shell text."""
    if inv.name != "expect":
        return []
    return [m.group(1).strip() for v in inv.values for m in _SPAWN.finditer(v)]


def notebook_shell(text: str) -> str:
    """The shell a notebook cell runs: `!CMD` lines and `%%bash`/`%%sh` cells."""
    lines = [m.group(1) for m in _NOTEBOOK_SHELL.finditer(text)]
    head, _, rest = text.lstrip().partition("\n")
    if head.strip() in ("%%bash", "%%sh", "%%script bash", "%%script sh"):
        lines.append(rest)
    return "\n".join(lines)
