"""Hermes: a shell `pre_tool_call` hook in the profile's `config.yaml`, and
its first-use consent in `shell-hooks-allowlist.json` beside it.

Hermes reads only a hook's stdout: a non-zero exit, stderr and a timeout are
logged and the call runs (it has no `fail_closed` setting). So the command
is `/bin/sh -c 'out=$(PYTHON ... hook hermes) && printf ... "$out" || {
printf BLOCK; ...; }'`: the hook's answer goes out only when its process
finished normally (redline's Hermes hook exits 0 with a block object for
every failure it can see), and anything else (the interpreter gone, redline
not importable, a crash) prints Hermes's block object instead of whatever
half-answer was written. Hermes stops a hook after `timeout` seconds (at
most 300) and then runs the call, so the timeout is set well above the
hook's time and a service's hold must fit under Hermes's cap.
When the file has no `hooks:` key yet, the entry is appended as a marked block
of text, so the rest of the file (comments included) stays byte for byte; if
`hooks:` exists, the file is rewritten through YAML (comments are lost; the
backup keeps them). Hermes asks consent for a new hook command at the
terminal and skips it silently where there is none (a gateway): since the
owner asked for this hook by running `redline install hermes`, the consent
is recorded for this one command; `redline uninstall hermes` withdraws it.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from redline.hooks.install import (
    FAILED_TO_RUN,
    Change,
    Options,
    hook_invocation,
    is_ours,
    user_home,
)
from redline.hooks.install.files import ConfigError, backup, read_text, write_atomic

EVENT = "pre_tool_call"
CONSENT_FILE = "shell-hooks-allowlist.json"
BEGIN = "# >>> redline: added by `redline install hermes`; `redline uninstall hermes` removes it"
END = "# <<< redline"
SHELL = "/bin/sh"
MAX_TIMEOUT_S = 300
"""Hermes clamps a hook's `timeout` to this; past it the call runs."""
COULD_NOT_RUN = (
    "redline blocked this call: its Hermes hook could not run (the Python it was installed "
    "with is missing or cannot load redline). Nothing ran. Do not retry it another way; "
    "tell the owner to run `redline doctor`"
)
BLOCK_OBJECT = json.dumps({"action": "block", "message": COULD_NOT_RUN})


def hermes_home(home: str | None, environ: Mapping[str, str] | None = None) -> str:
    env = os.environ if environ is None else environ
    if home:
        return os.path.join(user_home(home, env), ".hermes")
    configured = env.get("HERMES_HOME", "").strip()
    return (
        os.path.expanduser(configured)
        if configured
        else os.path.join(user_home(None, env), ".hermes")
    )


def command(
    options: Options, environ: Mapping[str, str] | None = None, *, python: str | None = None
) -> str:
    """What Hermes runs (split into words, no shell): `sh -c` around the hook,
    passing its answer on only when it finished, else a block object."""
    run = hook_invocation("hermes", options.flags(), python=python, environ=environ)
    script = (
        f"out=$({run}) && printf '%s\\n' \"$out\" || "
        f"{{ printf '%s\\n' {shlex.quote(BLOCK_OBJECT)}; "
        f"echo {shlex.quote(FAILED_TO_RUN)} >&2; exit 2; }}"
    )
    return f"{SHELL} -c {shlex.quote(script)}"


def load(text: str, path: str) -> dict[str, Any]:
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ConfigError(f"`{path}` is not valid YAML ({error}); fix it, then run again") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"`{path}` must hold a mapping")
    return data


def dump(data: dict[str, Any]) -> str:
    import yaml

    return yaml.safe_dump(data, sort_keys=False, width=100000, allow_unicode=True)


def strip_block(text: str, begin: str = BEGIN, end: str = END) -> tuple[str, bool]:
    """`text` without redline's marked block(s) between `begin` and `end`."""
    lines = text.splitlines(keepends=True)
    if begin + "\n" not in lines and begin not in (line.rstrip("\n") for line in lines):
        return text, False
    out: list[str] = []
    inside = False
    for line in lines:
        bare = line.rstrip("\n")
        if bare == begin:
            inside = True
            continue
        if inside and bare == end:
            inside = False
            continue
        if not inside:
            out.append(line)
    body = "".join(out).rstrip("\n")
    return (body + "\n" if body else ""), True


def _is_ours(entry: Any) -> bool:
    return isinstance(entry, dict) and is_ours(str(entry.get("command", "")), "hermes")


def install(
    *,
    home: str | None,
    project: str | None,
    options: Options,
    environ: Mapping[str, str] | None = None,
) -> list[Change]:
    if project:
        raise ConfigError("Hermes has no project-level hooks; use `--home` (or $HERMES_HOME)")
    root = hermes_home(home, environ)
    path = os.path.join(root, "config.yaml")
    timeout = options.timeout_s()
    if timeout > MAX_TIMEOUT_S:
        raise ConfigError(
            f"Hermes stops a hook after {MAX_TIMEOUT_S} s at most and then runs the call; "
            f"this hold needs {timeout} s: use a shorter `--hold-timeout` "
            f"(and `redline serve --timeout`)"
        )
    hook = command(options, environ)
    entry: dict[str, Any] = {"command": hook, "timeout": timeout}
    original = read_text(path) or ""
    text, _ = strip_block(original)
    data = load(text, path)
    summary = f"added a `{EVENT}` shell hook"
    if "hooks" not in data:
        block = BEGIN + "\n" + dump({"hooks": {EVENT: [entry]}}) + END + "\n"
        new = (text.rstrip("\n") + "\n\n" if text.strip() else "") + block
    else:
        hooks = data["hooks"]
        if hooks is None:
            hooks = data["hooks"] = {}
        if not isinstance(hooks, dict):
            raise ConfigError(f"`hooks` in `{path}` must be a mapping")
        entries = hooks.get(EVENT) or []
        if not isinstance(entries, list):
            raise ConfigError(f"`hooks.{EVENT}` in `{path}` must be a list")
        hooks[EVENT] = [e for e in entries if not _is_ours(e)] + [entry]
        new = dump(data)
        summary += "; the file was rewritten through YAML, so its comments are only in the backup"
    changes: list[Change] = []
    if new != original:
        saved = backup(path)
        write_atomic(path, new)
        changes.append(Change(path, True, saved, summary))
    else:
        changes.append(Change(path, False, None, "already installed"))
    changes.append(_consent(root, hook, add=True))
    return changes


def uninstall(
    *, home: str | None, project: str | None, environ: Mapping[str, str] | None = None
) -> list[Change]:
    if project:
        raise ConfigError("Hermes has no project-level hooks; use `--home` (or $HERMES_HOME)")
    root = hermes_home(home, environ)
    path = os.path.join(root, "config.yaml")
    original = read_text(path)
    if original is None:
        return [Change(path, False, None, "no such file")]
    commands = [c for _, c in installed(root)]
    text, had_block = strip_block(original)
    data = load(text, path)
    hooks = data.get("hooks")
    entries = hooks.get(EVENT) if isinstance(hooks, dict) else None
    if isinstance(entries, list) and any(_is_ours(e) for e in entries):
        kept = [e for e in entries if not _is_ours(e)]
        if kept:
            hooks[EVENT] = kept  # type: ignore[index]
        else:
            del hooks[EVENT]  # type: ignore[union-attr]
        if not hooks:
            del data["hooks"]
        text = dump(data) if data else ""
    elif not had_block:
        return [Change(path, False, None, "redline was not installed here")]
    saved = backup(path)
    write_atomic(path, text)
    changes = [Change(path, True, saved, "removed redline's shell hook")]
    changes += [_consent(root, c, add=False) for c in commands]
    return changes


def installed(root: str) -> list[tuple[str, str]]:
    """(event, command) of redline's shell hooks in the profile at `root`."""
    path = os.path.join(root, "config.yaml")
    text = read_text(path)
    if text is None:
        return []
    hooks = load(text, path).get("hooks")
    entries = hooks.get(EVENT) if isinstance(hooks, dict) else None
    if not isinstance(entries, list):
        return []
    return [(EVENT, str(e["command"])) for e in entries if _is_ours(e)]


def _consent(root: str, hook: str, *, add: bool) -> Change:
    """Add or withdraw Hermes's recorded consent for `hook`, under its lock."""
    import fcntl

    path = os.path.join(root, CONSENT_FILE)
    os.makedirs(root, exist_ok=True)
    with open(path + ".lock", "a+", encoding="utf-8") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            data = json.loads(read_text(path) or "{}")
        except ValueError:
            raise ConfigError(f"`{path}` is not valid JSON; fix it, then run again") from None
        if not isinstance(data, dict):
            data = {}
        approvals = [a for a in data.get("approvals", []) if isinstance(a, dict)]
        others = [
            a for a in approvals if not (a.get("event") == EVENT and a.get("command") == hook)
        ]
        if add:
            now = datetime.now(UTC).isoformat().replace("+00:00", "Z")
            others.append(
                {
                    "event": EVENT,
                    "command": hook,
                    "approved_at": now,
                    "script_mtime_at_approval": _mtime(SHELL),
                }
            )
        elif len(others) == len(approvals):
            return Change(path, False, None, "no consent to withdraw")
        data["approvals"] = others
        saved = backup(path)
        write_atomic(path, json.dumps(data, indent=2, sort_keys=True) + "\n")
    what = "recorded Hermes's consent for the hook" if add else "withdrew the hook's consent"
    return Change(path, True, saved, what)


def _mtime(path: str) -> str | None:
    try:
        moment = datetime.fromtimestamp(os.path.getmtime(path), tz=UTC)
    except OSError:
        return None
    return moment.isoformat().replace("+00:00", "Z")
