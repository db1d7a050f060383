"""Judging a file that runs later by the commands its content carries.

Each command is analysed as the shell line it is (in the file's folder, where
the tool runs it) and judged by the catalogue: a hard line in it makes the
write a hard line (`later.hardline`), a dangerous or sensitive command makes
it asked (`later.dangerous`), and a CI step that sends a CI secret to the
network is asked (`later.secret-out`). What a build file ordinarily does
when its owner runs it on purpose (publishing a release, `git clean -fdx`)
is not counted.
"""

from __future__ import annotations

from _thread import get_ident
from collections.abc import Callable

from redline.decision import Severity
from redline.runs_later import (
    ci_formats,
    cmake_lists,
    formats,
    git_config,
    make_syntax,
    native_builds,
    package_rc,
    places,
)
from redline.runs_later.everyday import Verdicts, without_plain
from redline.runs_later.finding import DANGEROUS, HARDLINE, SECRET_OUT, Finding
from redline.runs_later.unreadable import (
    UNREADABLE,
    commands_or_unknown,
    unseen_or_unknown,
)
from redline.shell.lazy_regex import lazy_regex

TYPE_CHECKING = False  # not `typing`'s: kept off the hook's start (ADR 0004)
if TYPE_CHECKING:
    from typing import Any

    from redline.shell.analysis import Analysis

__all__ = ["DANGEROUS", "HARDLINE", "SECRET_OUT", "Finding", "analyze_once", "judge"]

# A file's text read past this is judged by its start.
MAX_TEXT = 256 * 1024
# Past this many commands, they are analysed as one text (`_batched`).
_BATCH = 8
# What changes the shell's state for the commands after it (a variable, an
# alias, a function, the directory, the options): lines with one are not batched.
_CARRIES_STATE = lazy_regex(
    r"(?:^|[;&|(`{\s])(?:[A-Za-z_]\w*(?:\[[^]]*\])?\+?="
    r"|(?:alias|unalias|unset|export|declare|typeset|readonly|local|function|set|shopt|cd|"
    r"pushd|popd|source|\.|eval|enable|hash|trap|exec)(?=\s|$))|\(\s*\)",
    flags=8,  # re.MULTILINE
)
# Files written by files written by...: past this depth nothing more is judged.
MAX_DEPTH = 2
# Commands a build or CI file runs when its owner asks for them on purpose.
_EVERYDAY = frozenset({"publish.package-release", "vcs.clean-force"})
# A Dockerfile's `RUN` changes the image being built, not the machine: its
# deletions and system files are the image's.
_IMAGE_ONLY = frozenset({"fs.delete-recursive", "sensitive.write-system-config"})
_CI = frozenset({places.GITHUB, places.GITLAB, places.CIRCLECI, places.AZURE, places.JENKINS})
_SECRET_NAME = lazy_regex(
    r"\$\{?([A-Za-z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|APIKEY|PRIVATE_KEY|ACCESS_KEY|"
    r"CREDENTIAL|AUTH)[A-Za-z0-9_]*)\}?",
    flags=2,  # re.IGNORECASE
)
_SENDERS = frozenset({"curl", "wget", "nc", "ncat", "netcat", "socat", "http", "https", "xh",
                      "scp", "rsync", "sftp", "ftp", "telnet", "openssl", "gh", "aws",
                      "gsutil"})  # fmt: skip
# A fragment's line (an edit's new text) less its YAML or JSON key: `- run: CMD`.
_KEY_PREFIX = lazy_regex(r"""^\s*(?:-\s+)?(?:["']?[\w.-]+["']?\s*:\s*[|>]?[-+]?\s*)?""")
# How deep this thread is in files written by files: per thread, since a
# process may judge several calls at once (Hermes runs tools in threads), and
# one thread's depth must never make another's file look too deep to judge.
_depths: dict[int, int] = {}
# Findings per list of commands, folder and depth (`everyday.Verdicts`).
_VERDICTS = Verdicts(64)


def commands_of(kind: str, text: str, whole: bool = True) -> list[ci_formats.Step]:
    """The commands a file of format `kind` carries. A structured text that
    does not parse is read line by line; a piece of a file (`whole` false:
    an edit's new text) both ways."""
    found = _structured(kind, text)
    if found is None or not whole:
        lines = [_KEY_PREFIX.sub("", line, count=1).strip("\"',") for line in text.split("\n")]
        if kind == places.MAKE:  # a recipe elsewhere in the file may run a value set here
            lines += commands_or_unknown(make_syntax.definition_values, text) or []
        found = [*(found or ()), *(ci_formats.Step(line, (), True) for line in lines)]
    return [s for s in found if s.command.strip()]


def _structured(kind: str, text: str) -> list[ci_formats.Step] | None:
    reader = _READERS.get(kind)
    if reader is None:
        try:
            return ci_formats.steps(kind, text)
        except Exception:  # noqa: BLE001 - a failure of a reader is an unknown, asked
            return [ci_formats.Step(UNREADABLE)]
    commands = commands_or_unknown(reader, text)
    return None if commands is None else [ci_formats.Step(c) for c in commands]


def _shell_commands(text: str) -> list[str]:
    """A script: shell text as it is; another interpreter's, its shell calls."""
    if text.startswith("#!") and not _shell_line(text.split("\n", 1)[0]):
        return formats.python_commands(text)
    return [text]


_READERS: dict[str, Callable[[str], list[str] | None]] = {
    # Each recipe line runs in a shell of its own: lines that only print are left out.
    places.MAKE: lambda text: without_plain(make_syntax.make_commands(text)),
    places.JUST: lambda text: without_plain(make_syntax.just_commands(text)),
    places.TOX: formats.tox_commands,
    places.PYPROJECT: formats.pyproject_commands,
    places.DOCKERFILE: formats.dockerfile_commands,
    places.JENKINS: formats.jenkins_commands,
    places.CRONTAB: lambda text: formats.crontab_commands(text, False),
    places.SYSTEM_CRONTAB: lambda text: formats.crontab_commands(text, True),
    places.PYTHON: formats.python_commands,
    places.SHELL: _shell_commands,
    places.UNIT: formats.unit_commands,
    places.GIT_CONFIG: git_config.commands,
    places.NPMRC: package_rc.npmrc_commands,
    places.YARNRC: lambda text: [],
    places.GYP: native_builds.gyp_commands,
    places.CMAKE: cmake_lists.cmake_commands,
    places.MESON: native_builds.meson_commands,
    places.PYTHON_TASKS: native_builds.task_commands,
    places.COMPOSE: lambda text: _compose_lines(text),
    places.RUBY: lambda text: _build_code().ruby_commands(text),
    places.GRADLE: lambda text: _build_code().gradle_commands(text),
    places.MAVEN: lambda text: _build_code().maven_commands(text),
    places.CARGO_CONFIG: lambda text: _build_code().cargo_config_commands(text),
    places.RUST_BUILD: lambda text: _rust_build(text),
}
# Settings that make a tool run code the file does not show: `(why, line)`.
_UNSEEN: dict[str, Callable[[str], list[tuple[str, str]]]] = {
    places.GIT_CONFIG: git_config.unseen,
    places.NPMRC: package_rc.npmrc_unseen,
    places.YARNRC: package_rc.yarnrc_unseen,
    places.PYPROJECT: formats.pyproject_unseen,
}


def _compose_lines(text: str) -> list[str] | None:
    """Each service as the `docker run` line it amounts to; `None` when the
    text is not YAML (an edit's piece is read line by line then)."""
    from redline.shell import compose

    if ci_formats.load_yaml(text) is None:
        return None
    return [line for line in compose.run_lines(text).split("\n") if line]


def _build_code() -> Any:
    from redline.runs_later import build_code

    return build_code


def _rust_build(text: str) -> list[str]:
    from redline.runs_later.rust_build import rust_build_commands

    return rust_build_commands(text)


def _shell_line(first: str) -> bool:
    from redline.shell.carriers import SHELLS

    words = first[2:].strip().rsplit("/", 1)[-1].split()
    if words and words[0] == "env" and len(words) > 1:
        words = words[1:]
    return bool(words) and words[0] in SHELLS


def judge(path: str, text: str, cwd: str | None, whole: bool = True) -> list[Finding]:
    """Why writing `text` into `path` (a file that runs later) is not an
    allow; `[]` when its commands are ordinary, or `path` runs nothing.
    `whole` is false for a piece of the file (an edit's new text)."""
    kind = places.format_of(path) or (places.SHELL if text.startswith("#!") else None)
    me = get_ident()
    depth = _depths.get(me, 0)
    if kind is None or depth >= MAX_DEPTH:
        return []
    _depths[me] = depth + 1
    try:
        found = _judge(kind, text[:MAX_TEXT], _folder(path, cwd), whole, depth + 1)
        if len(text) > MAX_TEXT:  # what is past the part read is unseen: asked
            why = f"longer than the {MAX_TEXT // 1024} KB the judge reads: the rest is unseen"
            found.append(Finding(DANGEROUS, "", why, path))
        return found
    finally:
        if depth:
            _depths[me] = depth
        else:
            del _depths[me]


def _folder(path: str, cwd: str | None) -> str | None:
    from redline.shell import paths

    normal = paths.normalize(path, cwd)
    if normal is None or not normal.startswith(("/", "~")):
        return cwd
    return normal.rsplit("/", 1)[0] or "/"


def _judge(kind: str, text: str, cwd: str | None, whole: bool, depth: int) -> list[Finding]:
    steps = commands_of(kind, text, whole)
    # The findings are a function of the commands alone (not the comments
    # or layout around them): the same commands are judged once per process.
    key = (kind, tuple(steps), cwd, depth)
    known: list[Finding] | None = _VERDICTS.get(key)
    if known is None:
        known = _judge_steps(kind, steps, cwd)
        _VERDICTS.put(key, known)
    unseen = _UNSEEN.get(kind)
    if unseen is None:
        return list(known)
    unseen_lines = unseen_or_unknown(unseen, text)
    return [*known, *(Finding(DANGEROUS, "", why, line) for why, line in unseen_lines)]


def _judge_steps(kind: str, steps: list[ci_formats.Step], cwd: str | None) -> list[Finding]:
    from redline.rules.catalog import evaluate
    from redline.shell.analysis import analyze

    skip = _EVERYDAY | _IMAGE_ONLY if kind == places.DOCKERFILE else _EVERYDAY
    ci = kind in _CI
    if not ci and len(steps) > _BATCH and not any(s.guessed for s in steps):
        batched = _batched(steps, cwd, skip)
        if batched is not None:
            return batched
    found: list[Finding] = []
    done: set[ci_formats.Step] = set()
    for step in steps:
        if step in done:
            continue  # a command repeated word for word: the same findings, listed once
        done.add(step)
        analysis = analyze(step.command, cwd)
        secrets = _secrets_sent(step, analysis) if ci else None
        if secrets is not None:
            found.append(Finding(SECRET_OUT, "", f"sends `{secrets}` out", step.command))
        for hit in evaluate(analysis):
            if hit.rule_id in skip or (secrets is not None and "exfil" in hit.rule_id):
                continue
            if step.guessed and hit.rule_id == "shell.unparsable":
                # A line read out of a structure it was cut from: not shell text.
                continue
            rule = HARDLINE if hit.severity is Severity.HARDLINE else DANGEROUS
            found.append(Finding(rule, hit.rule_id, hit.description, step.command))
    return found


def _batched(
    steps: list[ci_formats.Step], cwd: str | None, skip: frozenset[str]
) -> list[Finding] | None:
    """Many commands analysed as one text, one per line (a long makefile's
    recipes): the same hits at a fraction of the cost. `None` when the text
    does not parse cleanly (a quote left open would swallow the next
    commands, each of which runs in a shell of its own): then one by one."""
    import bisect

    from redline.rules.catalog import evaluate

    starts: list[int] = []
    offset = 0
    for step in steps:
        starts.append(offset)
        offset += len(step.command) + 1
    text = "\n".join(s.command for s in steps)
    if _CARRIES_STATE.search(text):
        return None  # each line runs in a shell of its own: nothing may carry to the next
    analysis = analyze_once(text, cwd)
    if analysis.errors:
        return None
    found: list[Finding] = []
    for hit in evaluate(analysis):
        if hit.rule_id in skip:
            continue
        at = hit.span.start if hit.span is not None else 0
        step = steps[max(bisect.bisect_right(starts, at) - 1, 0)]
        rule = HARDLINE if hit.severity is Severity.HARDLINE else DANGEROUS
        found.append(Finding(rule, hit.rule_id, hit.description, step.command))
    return found


class _Memo:
    """The last long text analysed: a makefile's recipes are analysed once
    for this judge and the never-run checks (`script_judge.content_hits`)."""

    entry: tuple[str, str | None, Analysis] | None = None  # one attribute: thread-safe


def analyze_once(text: str, cwd: str | None) -> Analysis:
    from redline.shell.analysis import analyze

    entry = _Memo.entry
    if entry is not None and entry[0] == text and entry[1] == cwd:
        return entry[2]
    analysis = analyze(text, cwd)
    _Memo.entry = (text, cwd, analysis)
    return analysis


def _secrets_sent(step: ci_formats.Step, analysis: Analysis) -> str | None:
    """A secret the step can see, when the step sends something to the network."""
    named = set(step.secrets) | {m.group(1) for m in _SECRET_NAME.finditer(step.command)}
    if not named:
        return None
    if not any(inv.name in _SENDERS for inv in analysis.invocations):
        return None
    for name in sorted(named):
        if f"${name}" in step.command or f"${{{name}}}" in step.command:
            return name
    return None
