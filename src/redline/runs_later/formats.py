"""The commands of files that are not YAML or JSON: `tox.ini` (INI),
`pyproject.toml` task runners (TOML), a Dockerfile's `RUN`, a Jenkinsfile's
`sh` steps, crontab lines, and Python build files (`setup.py`, `noxfile.py`:
the shell calls in their code). `None` when a structured text does not parse.
"""

from __future__ import annotations

from collections.abc import Iterator

from redline.shell.carriers import shell_in_code
from redline.shell.lazy_regex import lazy_regex

TYPE_CHECKING = False  # not `typing`'s: kept off the hook's start (ADR 0004)
if TYPE_CHECKING:
    from typing import Any

_TOX_KEYS = ("commands", "commands_pre", "commands_post")
_TOX_SUBSTITUTION = lazy_regex(r"\{[^{}\s]*\}")
# `pyproject.toml` tables whose values are commands (task runners, env managers).
_PYPROJECT_TABLES = (("poe", "tasks"), ("pdm", "scripts"), ("taskipy", "tasks"),
                     ("rye", "scripts"))  # fmt: skip
_JENKINS_SH = lazy_regex(
    r"\b(?:sh|bat|powershell)\s*\(?\s*(?:script\s*:\s*)?"
    r"('''(.*?)'''|\"\"\"(.*?)\"\"\"|'((?:[^'\\\n]|\\.)*)'|\"((?:[^\"\\\n]|\\.)*)\")",
    flags=16,  # re.DOTALL, without importing `re` here
)
_CRON_TIME = lazy_regex(r"^\s*(?:@\w+|(?:\S+\s+){4}\S+)\s+")
_MAX_DEPTH = 16


def tox_commands(text: str) -> list[str] | None:
    import configparser

    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    found: list[str] = []
    for section in parser.sections():
        if not section.startswith(("testenv", "tox")):
            continue
        for key in _TOX_KEYS:
            value = parser.get(section, key, fallback="")
            for line in value.split("\n"):
                line = line.strip().lstrip("-! ")
                if line:
                    found.append(_TOX_SUBSTITUTION.sub(_tox_value, line))
    return found


def _tox_value(match: Any) -> str:
    """`{homedir}` is the home, `{envdir}`... a word; `{posargs}` nothing."""
    name = match.group(0)[1:-1]
    if name == "homedir":
        return "~"
    return "" if name.startswith("posargs") else "value"


def pyproject_commands(text: str) -> list[str] | None:
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    tool = data.get("tool")
    if not isinstance(tool, dict):
        return []
    found: list[str] = []
    for name, key in _PYPROJECT_TABLES:
        table = tool.get(name)
        if isinstance(table, dict):
            found.extend(_strings(table.get(key)))
    hatch = tool.get("hatch")
    envs = hatch.get("envs") if isinstance(hatch, dict) else None
    for env in envs.values() if isinstance(envs, dict) else ():
        if isinstance(env, dict):
            found.extend(_strings(env.get("scripts")))
            found.extend(_strings(env.get("post-install-commands")))
            found.extend(_strings(env.get("pre-install-commands")))
    return found


def pyproject_unseen(text: str) -> list[tuple[str, str]]:
    """Settings that make a build run the project's own code, unseen here:
    an in-tree build backend, a hatch build hook in a file of another name
    than `hatch_build.py` (that one is judged when written), setuptools
    command classes."""
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return []
    found: list[tuple[str, str]] = []
    system = data.get("build-system")
    if isinstance(system, dict) and system.get("backend-path"):
        line = f"backend-path = {system.get('backend-path')}"
        found.append(("builds with a backend of the project's own code", line))
    tool = _table(data, "tool")
    hatch = _table(tool, "hatch")
    for hook in _hatch_hooks(hatch):
        path = hook.get("path", "hatch_build.py")
        if path != "hatch_build.py":
            found.append(("runs a build hook of the project's own code", f"path = {path}"))
    if _table(tool, "setuptools").get("cmdclass"):
        found.append(("runs setuptools commands of the project's own code", "cmdclass"))
    return found


def _hatch_hooks(hatch: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """`[tool.hatch.build.hooks.custom]`, per target, and metadata hooks."""
    build = _table(hatch, "build")
    tables = [build.get("hooks"), _table(hatch, "metadata").get("hooks")]
    tables += [t.get("hooks") for t in _table(build, "targets").values() if isinstance(t, dict)]
    for hooks in tables:
        custom = hooks.get("custom") if isinstance(hooks, dict) else None
        if isinstance(custom, dict):
            yield custom


def _table(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def _strings(value: Any, depth: int = 0) -> Iterator[str]:
    """Every string in a TOML value: a task is a string, a list of them, or a
    table with `cmd`/`shell`/`sequence`..."""
    if depth > _MAX_DEPTH:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item, depth + 1)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item, depth + 1)


def dockerfile_commands(text: str) -> list[str]:
    """What each `RUN` runs: the shell form as shell text, the exec form's
    argv joined (a JSON array)."""
    from redline.runs_later.make_syntax import logical_lines

    found: list[str] = []
    for line in logical_lines(text):
        stripped = line.strip()
        if stripped[:4].upper() != "RUN " and stripped[:4].upper() != "RUN\t":
            continue
        body = stripped[4:].strip()
        while body.startswith("--"):  # `RUN --mount=type=cache,target=/x cmd`
            body = body.partition(" ")[2].strip()
        if body.startswith("["):
            import json

            try:
                argv = json.loads(body)
            except ValueError:
                argv = None
            if isinstance(argv, list) and all(isinstance(a, str) for a in argv):
                import shlex

                body = shlex.join(argv)
        found.append(body)
    return found


def jenkins_commands(text: str) -> list[str]:
    """The text of each `sh`/`bat` step of a Jenkinsfile (Groovy)."""
    found: list[str] = []
    for match in _JENKINS_SH.finditer(text):
        body = next((g for g in match.groups()[1:] if g is not None), "")
        found.append(body.replace("\\'", "'").replace('\\"', '"'))
    return found


def crontab_commands(text: str, system: bool) -> list[str]:
    """The command of each crontab line (after the time fields, and the user
    field of a system crontab); variable lines and comments carry none."""
    found: list[str] = []
    for line in text.split("\n"):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = _CRON_TIME.match(stripped)
        if match is None:
            continue
        command = stripped[match.end() :]
        if system:
            command = command.partition(" ")[2]
        found.append(command.split("%", 1)[0])  # `%` starts the command's stdin
    return found


# `ExecStart=`, `ExecStartPre=`, `ExecStop=`..., and a desktop entry's `Exec=`.
_EXEC_LINE = lazy_regex(r"^\s*Exec[A-Za-z]*\s*=\s*(.*)$", flags=8)  # re.MULTILINE


def unit_commands(text: str) -> list[str]:
    """The command lines of a systemd unit or desktop entry, less systemd's
    prefixes (`-`, `@`, `:`, `+`, `!`) and a desktop entry's field codes."""
    found = []
    for match in _EXEC_LINE.finditer(text):
        line = match.group(1).strip().lstrip("-@:+!")
        found.append(line.replace("%%", "%"))
    return found


def python_commands(text: str) -> list[str]:
    """The shell calls in Python code (`os.system`, `subprocess.run`, nox's `session.run`)."""
    return [carried.text for carried in shell_in_code(text, "python")]
