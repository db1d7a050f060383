"""`redline doctor`: which agents are wired to redline, and whether the hook
they would run answers.

For each agent's config file (the user's, and the project's with
`--project`), the redline entries are listed and each installed command is
run the way the agent runs it, on two sample calls of the agent's own shape:
a harmless one (`ls` in `/`), which must not be blocked, and a hard line
(`rm -rf /`), which must come back blocked in the agent's own terms. The
samples go through the real gate, so they appear in the approval log under
the session `redline-doctor`. First of all, it checks that nobody but the
owner can reach `$REDLINE_HOME` or anything in it.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import time
from collections.abc import Mapping
from typing import Any

from redline.fasttuple import NamedTuple
from redline.hooks.install import HOSTS, user_home

SESSION = "redline-doctor"
TIMEOUT_S = 60.0


class Finding(NamedTuple):
    host: str
    path: str
    event: str | None
    ok: bool
    detail: str


def sample_dir() -> str:
    """Where the sample calls run: an empty folder of this process's own (the
    sandbox refuses `/` or the home as a workspace), removed at exit."""
    global _SAMPLE_DIR
    if _SAMPLE_DIR is None:
        import atexit
        import shutil
        import tempfile

        _SAMPLE_DIR = os.path.realpath(tempfile.mkdtemp(prefix="redline-doctor-"))
        atexit.register(shutil.rmtree, _SAMPLE_DIR, ignore_errors=True)
    return _SAMPLE_DIR


_SAMPLE_DIR: str | None = None


def _sample(host: str, command: str) -> dict[str, Any]:
    where = sample_dir()
    if host == "hermes":
        return {
            "hook_event_name": "pre_tool_call",
            "tool_name": "terminal",
            "tool_input": {"command": command, "workdir": where},
            "session_id": SESSION,
            "cwd": where,
            "extra": {},
        }
    base = {"session_id": SESSION, "cwd": where, "transcript_path": None}
    if host == "gemini":
        return {
            **base,
            "hook_event_name": "BeforeTool",
            "tool_name": "run_shell_command",
            "tool_input": {"command": command},
        }
    return {
        **base,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "redline-doctor",
        "permission_mode": "default",
    }


def blocked(host: str, code: int, stdout: str) -> bool:
    """Whether the agent would read this reply as "blocked". Hermes reads
    stdout only, whatever the exit code (`{"action": "block"}` or the
    Claude Code spelling `{"decision": "block"}`)."""
    if code == 2 and host != "hermes":
        return True
    if (code != 0 and host != "hermes") or not stdout.strip():
        return False
    try:
        reply = json.loads(stdout)
    except ValueError:
        return False
    if not isinstance(reply, dict):
        return False
    if host == "hermes":
        return reply.get("action") == "block" or reply.get("decision") == "block"
    if host == "gemini":
        return reply.get("decision") in ("deny", "block")
    output = reply.get("hookSpecificOutput") or {}
    return isinstance(output, dict) and output.get("permissionDecision") == "deny"


def run_command(
    host: str, command: str, payload: Mapping[str, Any], environ: Mapping[str, str]
) -> tuple[int, str, str, float]:
    """Run an installed hook command as the agent would."""
    argv = shlex.split(command) if host == "hermes" else ["/bin/sh", "-c", command]
    start = time.perf_counter()
    done = subprocess.run(
        argv,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        env=dict(environ),
        check=False,
    )
    return done.returncode, done.stdout, done.stderr, time.perf_counter() - start


SERVICE_DOWN = "the hook asks `redline serve`, which is not answering: start `redline serve`"
UNREACHABLE = "the approval service cannot be reached"
"""How every hook's refusal (`gate-unreachable`, in each agent's terms) begins."""


def why(host: str, out: str, err: str) -> str:
    """The reason in a hook's reply, on one line: the agent's own field when
    the reply is JSON, else the last line it wrote."""
    text = ""
    try:
        reply = json.loads(out)
    except ValueError:
        reply = None
    if isinstance(reply, dict):
        inner = reply.get("hookSpecificOutput")
        fields = inner if isinstance(inner, dict) else reply
        for key in ("permissionDecisionReason", "reason", "message"):
            if isinstance(fields.get(key), str):
                text = fields[key]
                break
    if not text:
        text = (err.strip().splitlines() or [out.strip()])[-1]
    return " ".join(text.split())[:300]


def probe(host: str, command: str, environ: Mapping[str, str]) -> tuple[bool, str]:
    try:
        code, out, err, seconds = run_command(host, command, _sample(host, "ls"), environ)
        if (code != 0 and host != "hermes") or blocked(host, code, out):
            if UNREACHABLE in out + err:
                return False, SERVICE_DOWN
            reason = why(host, out, err)
            return False, f"the hook blocked a harmless `ls` (exit {code}): {reason}"
        code2, out2, err2, _ = run_command(host, command, _sample(host, "rm -rf /"), environ)
    except (OSError, subprocess.TimeoutExpired) as error:
        return False, f"the hook did not run: {' '.join(str(error).split())}"
    if not blocked(host, code2, out2):
        reason = why(host, out2, err2)
        return False, f"the hook did not block `rm -rf /` (exit {code2}): {reason}"
    detail = f"the hook runs: `ls` passes in {seconds:.2f} s, `rm -rf /` is blocked"
    if host in ENFORCING and ENFORCE_FLAG in _words(command):
        ok, enforced = enforcement(out, environ)
        return ok, f"{detail}; {enforced}"
    return True, detail


ENFORCING = ("claude-code",)
ENFORCE_FLAG = "--enforce"


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return []


def enforcement(reply: str, environ: Mapping[str, str]) -> tuple[bool, str]:
    """Whether an `--enforce` hook's allow of `ls` came back rewritten to
    run under `redline run`, and whether that rewrite runs (it consumes the
    ticket the sample was given)."""
    try:
        output = json.loads(reply)["hookSpecificOutput"]
        command = output["updatedInput"]["command"]
    except (ValueError, KeyError, TypeError):
        return False, "enforcement is on (`--enforce`) but the allowed `ls` was not rewritten"
    if not isinstance(command, str) or (" run " not in command and "--clearenv" not in command):
        return False, "enforcement is on (`--enforce`) but the rewrite does not sandbox the command"
    try:
        done = subprocess.run(
            ["/bin/sh", "-c", command], cwd=sample_dir(), env=dict(environ), capture_output=True,
            text=True, timeout=TIMEOUT_S, check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as error:
        return False, f"enforcement is on but the rewritten `ls` did not run: {error}"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return False, f"enforcement is on but the rewritten `ls` failed ({done.returncode}): {last}"
    from redline.hooks.enforce import describe
    from redline.sandbox.level import probe

    return True, f"enforcing: allowed commands run {describe(command)} ({probe().line()})"


def config_files(
    host: str, home: str | None, project: str | None, environ: Mapping[str, str]
) -> list[str]:
    if host == "hermes":
        from redline.hooks.install.hermes import hermes_home

        return [os.path.join(hermes_home(home, environ), "config.yaml")]
    from redline.hooks.install.jsonhooks import config_path

    paths = [config_path(host, user_home(home, environ), None)]
    if project:
        paths.append(config_path(host, None, project))
    return paths


def entries(host: str, path: str) -> list[tuple[str, str]]:
    if host == "hermes":
        from redline.hooks.install.hermes import installed

        return installed(os.path.dirname(path))
    from redline.hooks.install.jsonhooks import installed as json_installed

    return json_installed(host, path)


def warnings(host: str, path: str) -> list[str]:
    """Settings of the agent that would keep its hooks from running."""
    found: list[str] = []
    root = os.path.dirname(path)
    if host == "codex":
        import tomllib

        try:
            with open(os.path.join(root, "config.toml"), "rb") as source:
                features = tomllib.load(source).get("features", {})
        except (OSError, tomllib.TOMLDecodeError):
            features = {}
        if isinstance(features, dict) and (
            features.get("hooks") is False or features.get("codex_hooks") is False
        ):
            found.append("hooks are turned off in config.toml (`[features] hooks = false`)")
    elif host == "gemini":
        from redline.hooks.install.files import read_json_object

        data = read_json_object(path) or {}
        hooks = data.get("hooks")
        if isinstance(hooks, dict) and hooks.get("enabled") is False:
            found.append("hooks are turned off in settings.json (`hooks.enabled: false`)")
    elif host == "hermes":
        from redline.hooks.install.hermes import CONSENT_FILE, EVENT

        try:
            with open(os.path.join(root, CONSENT_FILE), encoding="utf-8") as source:
                approvals = json.load(source).get("approvals", [])
        except (OSError, ValueError, AttributeError):
            approvals = []
        commands = {a.get("command") for a in approvals if isinstance(a, dict)}
        for _, command in entries(host, path):
            if command not in commands:
                found.append(
                    f"Hermes has no recorded consent for the `{EVENT}` hook; "
                    "it will ask at the terminal, and skip it where there is none"
                )
    return found


def _hermes_plugin(path: str, environ: Mapping[str, str]) -> list[Finding]:
    """The `redline` plugin, when the profile enables it: loaded from Hermes's
    own Python and run there (Hermes skips a plugin it cannot import)."""
    from redline.hooks.install import hermes_plugin
    from redline.hooks.install.files import ConfigError

    try:
        if not hermes_plugin.enabled(os.path.dirname(path)):
            return []
    except ConfigError as error:
        return [Finding("hermes", path, "plugin", False, str(error))]
    ok, detail = hermes_plugin.probe(environ, hermes_plugin.enforced(os.path.dirname(path)))
    return [Finding("hermes", path, "plugin", ok, detail)]


def home_modes(environ: Mapping[str, str]) -> Finding:
    """Whether `$REDLINE_HOME` and everything in it are the owner's alone."""
    from redline.home import home_dir
    from redline.home_modes import loose, loose_note

    home = home_dir(environ)
    found = loose(home)
    if found:
        fix = "`redline serve`, `redline install` or the next hook makes them the owner's alone"
        return Finding("redline", home, None, False, loose_note(found, fix))
    return Finding("redline", home, None, True, "only the owner can reach the gate's files")


def diagnose(home: str | None, project: str | None, environ: Mapping[str, str]) -> list[Finding]:
    from redline.hooks.install.files import ConfigError

    findings: list[Finding] = [home_modes(environ)]
    for host in HOSTS:
        wired = False
        for path in config_files(host, home, project, environ):
            try:
                found = entries(host, path)
                problems = warnings(host, path) if found else []
            except ConfigError as error:
                findings.append(Finding(host, path, None, False, str(error)))
                continue
            for event, command in found:
                wired = True
                ok, detail = probe(host, command, environ)
                findings.append(Finding(host, path, event, ok, detail))
            findings += [Finding(host, path, None, False, p) for p in problems]
            if host == "hermes":
                plugin = _hermes_plugin(path, environ)
                wired = wired or bool(plugin)
                findings += plugin
            if host == "codex" and found:
                findings += _codex_trust(path, home, project, environ)
        if not wired:
            findings.append(Finding(host, "", None, True, "not wired up"))
    return findings


def _codex_trust(
    path: str, home: str | None, project: str | None, environ: Mapping[str, str]
) -> list[Finding]:
    """Codex runs only hooks it trusts: what Codex itself sees."""
    from redline.hooks.codexseen import problems
    from redline.hooks.install.files import ConfigError

    user = user_home(home, environ)
    in_project = project is not None and not path.startswith(os.path.join(user, ".codex"))
    cwd = os.path.abspath(project) if in_project and project else user
    try:
        found, how = problems(path, user, cwd, environ)
    except ConfigError as error:
        return [Finding("codex", path, None, False, str(error))]
    if not found:
        return [Finding("codex", path, None, True, f"Codex trusts redline's hook ({how})")]
    return [Finding("codex", path, None, False, f"{p} ({how})") for p in found]
