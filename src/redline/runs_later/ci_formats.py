"""The commands of files in YAML or JSON: CI workflows (GitHub, GitLab,
CircleCI, Azure), Taskfile, pre-commit's local hooks, editor tasks and
`package.json` scripts. Each is read with a real parser; a text that does
not parse gives `None` (the caller falls back to reading it line by line).

A `Step` is one command with the names of the CI secrets it can see:
GitHub's `${{ secrets.X }}` is replaced by `$X` (a variable named after the
secret) so the analysis sees where the value goes.
"""

from __future__ import annotations

from collections.abc import Iterator

from redline.fasttuple import NamedTuple
from redline.runs_later import places
from redline.shell.lazy_regex import lazy_regex

TYPE_CHECKING = False  # not `typing`'s: kept off the hook's start (ADR 0004)
if TYPE_CHECKING:
    from typing import Any

_EXPRESSION = lazy_regex(r"\$\{\{\s*(.*?)\s*\}\}")
_SECRET_REF = lazy_regex(r"\bsecrets(?:\.([A-Za-z_]\w*)|\[\s*['\"]([^'\"]+)['\"]\s*\])?")
# Keys whose values are shell commands, per CI format.
_GITLAB_KEYS = ("before_script", "script", "after_script")
_AZURE_KEYS = ("script", "bash", "powershell", "pwsh", "inline", "inlineScript")
# Bounds on work: how deep a document is walked, how many steps are taken.
_MAX_DEPTH = 24
MAX_STEPS = 5_000


class Step(NamedTuple):
    """A command a CI file runs, and the secret variables it can see."""

    command: str
    secrets: tuple[str, ...] = ()
    # Read line by line out of a text that does not parse as its format.
    guessed: bool = False


def load_yaml(text: str) -> Any:
    """The document, or `None` when the text is not YAML (a fragment)."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader
    except yaml.YAMLError:
        return None


def load_json(text: str) -> Any:
    import json

    try:
        return json.loads(text)
    except ValueError:
        return None


def steps(kind: str, text: str) -> list[Step] | None:
    """The steps of a file of format `kind`, or `None` when it does not parse."""
    data = load_json(text) if kind in _JSON else load_yaml(text)
    if data is None or isinstance(data, str | int | float):
        return None
    found: list[Step] = []
    reader = _READERS.get(kind)
    if reader is not None:
        found.extend(s for s, _ in zip(reader(data), range(MAX_STEPS), strict=False))
    return found


def _github(data: Any) -> Iterator[Step]:
    top = _secret_env(data.get("env")) if isinstance(data, dict) else ()
    jobs = data.get("jobs") if isinstance(data, dict) else None
    shell = _default_shell(data, None)
    for job in jobs.values() if isinstance(jobs, dict) else ():
        if not isinstance(job, dict):
            continue
        around = top + _secret_env(job.get("env"))
        job_shell = _default_shell(job, shell)
        for step in job.get("steps") or ():
            if isinstance(step, dict) and isinstance(step.get("run"), str):
                names = around + _secret_env(step.get("env"))
                found = _github_step(step["run"], names)
                given = step.get("shell", job_shell)
                yield _in_shell(found, given) if isinstance(given, str) else found


def _default_shell(data: Any, given: str | None) -> str | None:
    """`defaults: run: shell:` of a workflow or a job."""
    defaults = data.get("defaults") if isinstance(data, dict) else None
    run = defaults.get("run") if isinstance(defaults, dict) else None
    shell = run.get("shell") if isinstance(run, dict) else None
    return shell if isinstance(shell, str) else given


def _in_shell(step: Step, shell: str) -> Step:
    """A step whose `shell:` is another language's (`python`, `perl {0}`):
    its `run:` is that program's script, not shell text."""
    from redline.shell.carriers import SHELLS

    words = shell.replace("{0}", "").split()
    if not words or words[0].rsplit("/", 1)[-1] in (*SHELLS, "pwsh", "powershell", "cmd"):
        return step
    program = "python3" if words[0] == "python" else " ".join(words)
    return step._replace(command=f"{program} <<'GITHUB_STEP'\n{step.command}\nGITHUB_STEP")


def _github_step(run: str, names: tuple[str, ...]) -> Step:
    found = list(names)

    def replace(match: Any) -> str:
        expression = match.group(1)
        secret = _SECRET_REF.search(expression)
        if secret is None:
            return "value"
        name = secret.group(1) or secret.group(2) or "ALL_SECRETS"
        found.append(name)
        return "$" + name

    command = _EXPRESSION.sub(replace, run) if "${{" in run else run
    return Step(command, tuple(found))


def _secret_env(env: Any) -> tuple[str, ...]:
    """Names of variables an `env:` mapping sets from secrets."""
    if not isinstance(env, dict):
        return ()
    return tuple(str(k) for k, v in env.items() if isinstance(v, str) and "secrets" in v)


def _gitlab(data: Any) -> Iterator[Step]:
    if not isinstance(data, dict):
        return
    for name, job in data.items():
        if isinstance(job, dict) and name not in ("variables", "include", "workflow"):
            for key in _GITLAB_KEYS:
                yield from _commands(job.get(key), True)
    for key in _GITLAB_KEYS:  # `default:` and top-level scripts
        yield from _commands(data.get(key), True)


def _walk(data: Any, keys: tuple[str, ...], depth: int = 0) -> Iterator[Step]:
    """Every string (or list of strings) under one of `keys`, anywhere."""
    if depth > _MAX_DEPTH:
        return
    if isinstance(data, dict):
        for key, value in data.items():
            if key in keys:
                yield from _commands(value, key in _GITLAB_KEYS)
            else:
                yield from _walk(value, keys, depth + 1)
    elif isinstance(data, list):
        for item in data:
            yield from _walk(item, keys, depth + 1)


def _commands(value: Any, lenient: bool = False) -> Iterator[Step]:
    """The strings of a command value; with `lenient` (a script list), an
    item that reads as a one-key mapping too."""
    if isinstance(value, str):
        yield Step(value)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, str):
                yield Step(item)
            elif isinstance(item, list):  # GitLab's nested lists (`!reference`)
                yield from _commands(item, lenient)
            elif lenient and isinstance(item, dict) and len(item) == 1:
                # `- curl -H "X: $T" URL` unquoted reads as a mapping; a
                # lenient runner may still run it as the line it looks like.
                key, value = next(iter(item.items()))
                yield Step(f"{key}: {value}")


def _circleci(data: Any) -> Iterator[Step]:
    yield from _walk(data, ("run",))
    yield from _walk(data, ("command",))


def _azure(data: Any) -> Iterator[Step]:
    yield from _walk(data, _AZURE_KEYS)


def _taskfile(data: Any) -> Iterator[Step]:
    """Each task's `cmds`: strings, or mappings with a `cmd`."""
    tasks = data.get("tasks") if isinstance(data, dict) else None
    for task in tasks.values() if isinstance(tasks, dict) else ():
        if isinstance(task, str):
            yield Step(task)
            continue
        if not isinstance(task, dict):
            continue
        yield from _commands(task.get("cmd"))
        for item in task.get("cmds") or ():
            if isinstance(item, str):
                yield Step(item)
            elif isinstance(item, dict):
                yield from _commands(item.get("cmd"))


def _pre_commit(data: Any) -> Iterator[Step]:
    """Local hooks run their `entry` (with their `args`) on the owner's machine."""
    repos = data.get("repos") if isinstance(data, dict) else None
    for repo in repos if isinstance(repos, list) else ():
        if not isinstance(repo, dict) or repo.get("repo") not in ("local", "meta"):
            continue
        for hook in repo.get("hooks") or ():
            if isinstance(hook, dict) and isinstance(hook.get("entry"), str):
                args = hook.get("args")
                extra = [str(a) for a in args] if isinstance(args, list) else []
                yield Step(" ".join([hook["entry"], *extra]))


def _vscode_tasks(data: Any) -> Iterator[Step]:
    tasks = data.get("tasks") if isinstance(data, dict) else None
    for task in tasks if isinstance(tasks, list) else ():
        if isinstance(task, dict) and isinstance(task.get("command"), str):
            args = task.get("args")
            extra = [a for a in args if isinstance(a, str)] if isinstance(args, list) else []
            yield Step(" ".join([task["command"], *extra]))


def _lefthook(data: Any) -> Iterator[Step]:
    """Each hook's commands and scripts run their `run` line."""
    yield from _walk(data, ("run",))


def _package_json(data: Any) -> Iterator[Step]:
    scripts = data.get("scripts") if isinstance(data, dict) else None
    for script in scripts.values() if isinstance(scripts, dict) else ():
        if isinstance(script, str):
            yield Step(script)


def _composer(data: Any) -> Iterator[Step]:
    """`composer.json` scripts: a command line, or a list of them; `@php X`
    runs PHP, `@other` another script, `Vendor\\Class::method` PHP code."""
    scripts = data.get("scripts") if isinstance(data, dict) else None
    for script in scripts.values() if isinstance(scripts, dict) else ():
        for line in (
            [script] if isinstance(script, str) else script if isinstance(script, list) else ()
        ):
            if not isinstance(line, str) or ("::" in line and " " not in line.strip()):
                continue
            if line.startswith(("@php ", "@composer ", "@putenv ")):
                line = line[1:]
            elif line.startswith("@"):
                continue
            yield Step(line)


def _deno(data: Any) -> Iterator[Step]:
    """`deno.json` tasks: a command line, or `{"command": ...}`."""
    tasks = data.get("tasks") if isinstance(data, dict) else None
    for task in tasks.values() if isinstance(tasks, dict) else ():
        command = task.get("command") if isinstance(task, dict) else task
        if isinstance(command, str):
            yield Step(command)


_JSON = frozenset({places.PACKAGE_JSON, places.VSCODE_TASKS, places.COMPOSER, places.DENO})
_READERS = {
    places.GITHUB: _github, places.GITLAB: _gitlab, places.CIRCLECI: _circleci,
    places.AZURE: _azure, places.TASKFILE: _taskfile, places.PRE_COMMIT: _pre_commit,
    places.VSCODE_TASKS: _vscode_tasks, places.PACKAGE_JSON: _package_json,
    places.LEFTHOOK: _lefthook, places.COMPOSER: _composer, places.DENO: _deno,
}  # fmt: skip
