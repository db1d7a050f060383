"""`redline install hermes --plugin`: redline as a plugin in Hermes's process.

Hermes loads a pip plugin from its own Python environment (the
`hermes_agent.plugins` entry point) and only when the profile's
`config.yaml` lists it under `plugins: enabled:`. A plugin it cannot import
is skipped with a log line and no other sign, so `install` puts redline into
that environment (`<Hermes's python> -m pip install <this redline>`, the
interpreter read from the `hermes` script's `#!` line) and enables it, and
`redline doctor` imports it from there and runs it on two sample calls.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from collections.abc import Mapping
from typing import Any

from redline.hooks.install import Change
from redline.hooks.install.files import ConfigError, backup, read_text, write_atomic
from redline.hooks.install.hermes import dump, hermes_home, load, strip_block

PLUGIN = "redline"
BEGIN = (
    "# >>> redline plugin: added by `redline install hermes --plugin`; "
    "`redline uninstall hermes --plugin` removes it"
)
END = "# <<< redline plugin"
PIP_TIMEOUT_S = 900
PROBE_TIMEOUT_S = 120
PROBE = """
import json, sys, importlib.metadata as m
found = [e for e in m.entry_points(group="hermes_agent.plugins") if e.name == "redline"]
if not found:
    print(json.dumps({"error": "no `hermes_agent.plugins` entry point named `redline`"}))
else:
    plugin = found[0].load()
    call = dict(session_id="redline-doctor", tool_call_id="")
    ls = plugin.pre_tool_call(tool_name="terminal", args={"command": "ls", "workdir": "/"}, **call)
    rm = plugin.pre_tool_call(
        tool_name="terminal", args={"command": "rm -rf /", "workdir": "/"}, **call
    )
    out = {"file": plugin.__file__, "ls": ls, "rm": rm}
    if sys.argv[1:] == ["--enforce"]:
        from redline.hooks import hermes_enforce as enforce

        enforce.configure(True, True)
        plugin.pre_tool_call(tool_name="terminal", args={"command": "ls"}, **call)
        ran = enforce.execute(
            tool_name="terminal", args={"command": "ls"}, next_call=lambda a=None: a, **call
        )
        out["rewrite"] = ran.get("command") if isinstance(ran, dict) else str(ran)
    print(json.dumps(out))
"""
"""Run by Hermes's Python: import the plugin as Hermes does, judge `ls` and `rm -rf /`."""


def hermes_python(environ: Mapping[str, str]) -> str:
    """The interpreter Hermes runs on: the `#!` line of `hermes` on `PATH`."""
    script = shutil.which("hermes", path=environ.get("PATH") or os.defpath)
    if script is None:
        raise ConfigError(
            "no `hermes` on PATH, so Hermes's Python is unknown; put it on PATH, or run "
            "`<Hermes's python> -m pip install redline` and add `redline` to "
            "`plugins: enabled:` in config.yaml"
        )
    return python_of(script, environ)


def python_of(script: str, environ: Mapping[str, str]) -> str:
    try:
        with open(script, "rb") as source:
            first = source.readline(1024)
    except OSError as error:
        raise ConfigError(f"cannot read `{script}`: {error}") from None
    words = first[2:].decode("utf-8", "replace").split() if first.startswith(b"#!") else []
    if words and os.path.basename(words[0]) == "env":
        words = [w for w in words[1:] if not w.startswith("-")]
        found = shutil.which(words[0], path=environ.get("PATH")) if words else None
        words = [found] if found else []
    if not words or not os.access(words[0], os.X_OK):
        raise ConfigError(f"cannot tell which Python runs `{script}` (its first line is {first!r})")
    return words[0]


def source() -> list[str]:
    """What pip installs: this redline's source folder (editable if this one
    is), else the same version from the package index."""
    import importlib.metadata
    from urllib.parse import unquote, urlparse

    dist = importlib.metadata.distribution(PLUGIN)
    try:
        origin = json.loads(dist.read_text("direct_url.json") or "{}")
    except ValueError:
        origin = {}
    url = origin.get("url", "") if isinstance(origin, dict) else ""
    if url.startswith("file://") and "dir_info" in origin:
        folder = unquote(urlparse(url).path)
        return ["-e", folder] if origin["dir_info"].get("editable") else [folder]
    return [f"{PLUGIN}=={dist.version}"]


def pip_argv(python: str) -> list[str]:
    return [python, "-m", "pip", "install", "--quiet", *source()]


def install(
    *,
    home: str | None,
    project: str | None,
    environ: Mapping[str, str] | None = None,
    enforce: bool = False,
) -> list[Change]:
    env = os.environ if environ is None else environ
    if project:
        raise ConfigError("Hermes has no project-level plugins; use `--home` (or $HERMES_HOME)")
    python = hermes_python(env)
    argv = pip_argv(python)
    done = subprocess.run(
        argv, capture_output=True, text=True, timeout=PIP_TIMEOUT_S, check=False, env=dict(env)
    )
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise ConfigError(f"`{shlex.join(argv)}` failed ({why}); run it yourself, then again")
    pip = Change(python, True, None, f"installed redline into Hermes's Python: {shlex.join(argv)}")
    return [pip, enable(hermes_home(home, env), enforce)]


def uninstall(
    *, home: str | None, project: str | None, environ: Mapping[str, str] | None = None
) -> list[Change]:
    if project:
        raise ConfigError("Hermes has no project-level plugins; use `--home` (or $HERMES_HOME)")
    return [disable(hermes_home(home, environ))]


def _plugins(data: dict[str, Any], path: str) -> tuple[dict[str, Any], list[Any]]:
    plugins = data.get("plugins")
    if plugins is None:
        plugins = data["plugins"] = {}
    if not isinstance(plugins, dict):
        raise ConfigError(f"`plugins` in `{path}` must be a mapping")
    listed = plugins.get("enabled") or []
    if not isinstance(listed, list):
        raise ConfigError(f"`plugins.enabled` in `{path}` must be a list")
    return plugins, listed


def enable(root: str, enforce: bool = False) -> Change:
    """List the plugin in `plugins.enabled`; with `enforce`, also set
    `plugins.entries.redline.enforce: true` (Hermes's place for a plugin's
    settings), which an install without it takes out again."""
    path = os.path.join(root, "config.yaml")
    original = read_text(path) or ""
    text, _ = strip_block(original, BEGIN, END)
    data = load(text, path)
    summary = "enabled the `redline` plugin" + (" with enforcement" if enforce else "")
    if "plugins" not in data:
        ours: dict[str, Any] = {"enabled": [PLUGIN]}
        if enforce:
            ours["entries"] = {PLUGIN: {"enforce": True}}
        block = BEGIN + "\n" + dump({"plugins": ours}) + END + "\n"
        new = (text.rstrip("\n") + "\n\n" if text.strip() else "") + block
    else:
        plugins, listed = _plugins(data, path)
        disabled = plugins.get("disabled")
        if isinstance(disabled, list) and PLUGIN in disabled:
            raise ConfigError(f"`redline` is in `plugins.disabled` in `{path}`; take it out first")
        plugins["enabled"] = [*listed, PLUGIN] if PLUGIN not in listed else listed
        _set_enforce(plugins, path, enforce)
        new = dump(data)
        summary += "; the file was rewritten through YAML, so its comments are only in the backup"
    if new == original:
        return Change(path, False, None, "the `redline` plugin was already enabled")
    saved = backup(path)
    write_atomic(path, new)
    return Change(path, True, saved, summary)


def disable(root: str) -> Change:
    path = os.path.join(root, "config.yaml")
    original = read_text(path)
    if original is None:
        return Change(path, False, None, "no such file")
    text, had_block = strip_block(original, BEGIN, END)
    data = load(text, path)
    plugins = data.get("plugins")
    listed = plugins.get("enabled") if isinstance(plugins, dict) else None
    if isinstance(listed, list) and PLUGIN in listed:
        plugins["enabled"] = [p for p in listed if p != PLUGIN]  # type: ignore[index]
        _set_enforce(plugins, path, False)  # type: ignore[arg-type]
        text = dump(data)
    elif not had_block:
        return Change(path, False, None, "the `redline` plugin was not enabled here")
    saved = backup(path)
    write_atomic(path, text)
    return Change(path, True, saved, "disabled the `redline` plugin (redline stays installed)")


def _set_enforce(plugins: dict[str, Any], path: str, enforce: bool) -> None:
    entries = plugins.get("entries")
    if entries is None and not enforce:
        return
    if entries is None:
        entries = plugins["entries"] = {}
    if not isinstance(entries, dict):
        raise ConfigError(f"`plugins.entries` in `{path}` must be a mapping")
    entry = entries.get(PLUGIN)
    if entry is None and not enforce:
        return
    if entry is None:
        entry = entries[PLUGIN] = {}
    if not isinstance(entry, dict):
        raise ConfigError(f"`plugins.entries.{PLUGIN}` in `{path}` must be a mapping")
    if enforce:
        entry["enforce"] = True
        return
    entry.pop("enforce", None)
    if not entry:
        del entries[PLUGIN]
    if not entries:
        del plugins["entries"]


def enforced(root: str) -> bool:
    """Whether the profile at `root` turns the plugin's enforcement on."""
    path = os.path.join(root, "config.yaml")
    text = read_text(path)
    plugins = load(text, path).get("plugins") if text is not None else None
    entries = plugins.get("entries") if isinstance(plugins, dict) else None
    entry = entries.get(PLUGIN) if isinstance(entries, dict) else None
    return isinstance(entry, dict) and entry.get("enforce") is True


def enabled(root: str) -> bool:
    """Whether the profile at `root` loads the `redline` plugin."""
    path = os.path.join(root, "config.yaml")
    text = read_text(path)
    if text is None:
        return False
    plugins = load(text, path).get("plugins")
    if not isinstance(plugins, dict):
        return False
    listed, disabled = plugins.get("enabled"), plugins.get("disabled")
    off = isinstance(disabled, list) and PLUGIN in disabled
    return isinstance(listed, list) and PLUGIN in listed and not off


def probe(environ: Mapping[str, str], enforce: bool = False) -> tuple[bool, str]:
    """Import the plugin from Hermes's Python as Hermes does, and judge `ls`
    (must pass) and `rm -rf /` (must be blocked) with it; with `enforce`, see
    that its middleware rewrites `ls` to run under `redline run`."""
    try:
        python = hermes_python(environ)
        done = subprocess.run(
            [python, "-c", PROBE, *(["--enforce"] if enforce else [])],
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT_S,
            cwd="/",
            env=dict(environ),
            check=False,
        )
    except ConfigError as error:
        return False, f"the `redline` plugin is enabled, but it cannot be checked: {error}"
    except (OSError, subprocess.TimeoutExpired) as error:
        return False, f"Hermes's Python did not run: {error}"
    try:
        answer = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        why = (done.stderr.strip().splitlines() or ["no output"])[-1][:300]
        answer = {"error": f"it cannot be imported there ({why})"}
    fix = f"run `redline install hermes --plugin` (or `{python} -m pip install redline`)"
    if "error" in answer:
        return False, (
            f"the `redline` plugin is enabled, but Hermes's Python ({python}) cannot load it: "
            f"{answer['error']}; Hermes skips it without a word: {fix}"
        )
    ls, rm = answer.get("ls"), answer.get("rm")
    if ls is not None or not isinstance(rm, dict) or rm.get("action") != "block":
        return False, f"the plugin in {python} answers wrongly: `ls` {ls}, `rm -rf /` {rm}"
    detail = f"the plugin loads in Hermes's Python ({python}): `ls` passes, `rm -rf /` blocked"
    if not enforce:
        return True, detail
    rewrite = answer.get("rewrite")
    wrapped = isinstance(rewrite, str) and (
        "redline run" in rewrite.replace(" -I -m ", " ") or "--clearenv" in rewrite
    )
    if not isinstance(rewrite, str) or not wrapped:
        return False, f"{detail}; but enforcement is on and `ls` was not rewritten: {rewrite}"
    from redline.hooks.enforce import describe
    from redline.sandbox.level import probe as level

    enforcing = f"enforcing: terminal commands run {describe(rewrite)} ({level().line()})"
    return True, f"{detail}; {enforcing}"
