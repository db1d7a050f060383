"""Scripts as files: the file an invocation runs, and the text an invocation
writes into a file, for the never-run checks (F-GATE-3, F-SHELL-8).

A script written now and run later is judged twice: its text when it is
written (a file tool's content, a heredoc or `echo` into a file), and the
file itself when it is run (`bash x.sh`, `./x`, `python3 x.py`), read from
disk by the gate's `World`. Each text is judged by its shape: shell text is
analysed as a command line, anything else as code.
"""

from __future__ import annotations

import re

from redline.shell import paths
from redline.shell.analysis import Analysis
from redline.shell.carriers import (
    SHELLS,
    SOURCE,
    interpreter_family,
    static_output,
)
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC
from redline.shell.written_scripts import recipes as recipes  # shared with the analysis

# The most of a script the gate reads from disk: enough for any real script;
# a longer one is judged by its start.
MAX_SCRIPT = 256 * 1024
# Text nobody runs: documentation (naming `redline approve` there is prose).
DOC_SUFFIXES = (".md", ".rst", ".txt", ".adoc", ".html", ".htm", ".org", ".tex")


_INTERPRETER_HEADS = ("py", "pe", "ru", "no", "bu", "de", "ph", "lu", "rs", "os", "tc", "aw", "ga",
                      "ma", "na", "js", "ir")  # fmt: skip


def may_run_script(inv: Invocation) -> bool:
    """A cheap first test for `script_run`: a program named by a path, a
    shell, `source`, or an interpreter."""
    name = inv.name
    if name in _RUNS_FILES or bool(inv.argv and "/" in inv.argv[0].value):
        return True
    return name.startswith(_INTERPRETER_HEADS) and interpreter_family(name) is not None


def written_texts(inv: Invocation) -> list[tuple[str, str]]:
    """`(path as written, text)` for each file `inv` writes with a text the
    analysis knows: `cat > f <<EOF`, `echo ... > f`, `printf ... >> f`,
    `tee f <<< ...`."""
    found: list[tuple[str, str]] = []
    targets = [r.target.value for r in inv.redirects if r.target is not None and r.writes]
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
    if "\\" in text:  # JSON and YAML read `\u0050reToolUse` as `PreToolUse`
        text = _ESCAPE.sub(_unescape, text)
    lowered = text.lower()
    return any(word in lowered for word in _HOOK_WORDS) or "redline hook" in lowered


_ESCAPE = lazy_regex(r"\\(?:u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|U([0-9a-fA-F]{8}))")


def _unescape(match: re.Match[str]) -> str:
    code = int(next(g for g in match.groups() if g is not None), 16)
    return chr(code) if code < 0x110000 else match.group(0)


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
        elif value.startswith(("--directory=", "--working-directory=")):
            directory = value.split("=", 1)[1]
        elif value.startswith("-C") and len(value) > 2 and inv.name != "just":
            directory = value[2:]
    if not given:
        given = ["justfile", ".justfile"] if inv.name == "just" else list(_DEFAULT_MAKEFILES)
    if directory:
        given = [f"{directory.rstrip('/')}/{f}" if not f.startswith("/") else f for f in given]
    return given


_DEFAULT_MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
# make's (and just's) options that take the next word as their value; `-j`
# and `-l` only when it is a number (`make -j 8`, `make -j all`).
_MAKE_VALUED = frozenset({"-f", "--file", "--makefile", "--justfile", "-C", "--directory",
                          "--working-directory", "-d", "-I", "--include-dir", "-o", "--old-file",
                          "--assume-old", "-W", "--what-if", "--new-file", "--assume-new",
                          "--eval", "--set", "--dotenv-filename", "--dotenv-path"})  # fmt: skip
_MAKE_NUMBERED = frozenset({"-j", "--jobs", "-l", "--load-average", "--max-load"})


def make_targets(inv: Invocation) -> list[str]:
    """The targets a make (or just) line names: its operands less option
    values (`make -C sub`, `make -j 8`) and variable settings (`V=1`)."""
    values = inv.values
    found: list[str] = []
    k = 0
    while k < len(values):
        value = values[k]
        following = values[k + 1] if k + 1 < len(values) else ""
        if value in _MAKE_VALUED:
            k += 2
            continue
        if value in _MAKE_NUMBERED and (following.isdigit() or DYNAMIC in following):
            k += 2
            continue
        if not value.startswith("-") and "=" not in value:
            found.append(value)
        k += 1
    return found


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
