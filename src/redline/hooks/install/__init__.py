"""`redline install AGENT`: write the agent's hook configuration; `redline
uninstall AGENT` removes exactly the entries it added.

Claude Code (`.claude/settings.json`), Codex (`.codex/hooks.json`) and Gemini
CLI (`.gemini/settings.json`) share one JSON shape (`hooks.EVENT: [{matcher,
hooks: [{type, command, timeout}]}]`), see `jsonhooks`; Hermes keeps its shell
hooks in the profile's `config.yaml` and asks consent once per command, see
`hermes`. Every write keeps a `*.redline-backup` copy of the old
file (one per file, replaced by the next write) and replaces it atomically.

The command an agent runs is the absolute path of this Python with
`-I -c 'import redline.__main__ as m; m.run()' hook AGENT`: `-I` keeps the
agent's working directory and `PYTHON*` variables out of the import path (a
`redline/` or `json.py` the agent wrote there is never loaded), and `-c`
does what `-m redline` does without `runpy` (a few ms of every call). It is
followed by `|| { ...; exit 2; }`: if the interpreter is gone or the package
cannot be imported, the shell turns that failure into exit 2 with a reason
on stderr, which Claude Code, Codex and Gemini CLI read as "block", instead
of the 1 or 127 they would read as a non-blocking error (and run the call).
Hermes reads only stdout, so its command prints Hermes's block object
instead (see `hermes`).
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from contextlib import suppress

from redline.approve.defaults import HOLD_TIMEOUT_S
from redline.deadline import HOST_TIMEOUT_S, below
from redline.fasttuple import NamedTuple

HOSTS = ("claude-code", "codex", "gemini", "hermes")
ENFORCING_HOSTS = ("claude-code",)
"""Where the hook itself can rewrite an allowed command (Hermes: `--plugin`)."""
FAILED_TO_RUN = "redline: the hook could not run; the call is blocked"
HOOK_TIMEOUT_S = HOST_TIMEOUT_S


class Options(NamedTuple):
    """What the installed hook command is told (see `redline hook --help`).

    `service`: the hook asks `redline serve` (see `service`), pinning
    `service_key` when there is one, and the host lets it run longer than
    `hold_timeout_s`. `enforce`: allowed shell calls come back rewritten to
    run under `redline run` (Claude Code; `--enforce` on the hook's command
    line, see `redline.hooks.enforce`)."""

    allow_explicit: bool = False
    ask_deny: bool = False
    context: str | None = None
    defer_ask: bool = False
    record_outcomes: bool = False
    service: bool = False
    service_key: str | None = None
    hold_timeout_s: float = HOLD_TIMEOUT_S
    enforce: bool = False

    def service_flags(self) -> list[str]:
        if not self.service:
            return []
        return ["--service", *(["--service-key", self.service_key] if self.service_key else [])]

    def timeout_s(self) -> int:
        """The host's timeout for the hook, in seconds."""
        if not self.service:
            return HOOK_TIMEOUT_S
        from redline.hooks.install.service import host_timeout_s

        return host_timeout_s(self.hold_timeout_s)

    def deadline_flags(self) -> list[str]:
        """`--deadline`: the hook answers `MARGIN_S` before the host's timeout
        (a hook the host kills is a call it runs)."""
        return ["--deadline", f"{below(self.timeout_s()):g}"]

    def flags(self) -> list[str]:
        flags: list[str] = [*self.service_flags(), *self.deadline_flags()]
        if self.allow_explicit:
            flags.append("--allow-explicit")
        if self.ask_deny:
            flags += ["--ask", "deny"]
        if self.context:
            flags += ["--context", self.context]
        if self.enforce:
            flags.append("--enforce")
        return flags


class Change(NamedTuple):
    """One config file `install` or `uninstall` touched."""

    path: str
    changed: bool
    backup: str | None
    summary: str


RUN = "import redline.__main__ as m; m.run()"
"""What `python -c` runs: `python -m redline` without loading `runpy`."""


def markers(host: str) -> tuple[str, ...]:
    """What identifies redline's hook for `host` inside a command string (the
    `-m` form is what earlier versions installed)."""
    return (f"{RUN}' hook {host}", f"-m redline hook {host}")


def hook_argv(host: str, flags: Sequence[str] = (), *, python: str | None = None) -> list[str]:
    """The hook's process: `python -I -S -c '...' hook HOST FLAGS`.

    `-I` keeps the agent's working directory and `PYTHON*` variables off the
    import path. With this Python, `-S` also skips `site` (~2.5 ms of every
    call's start): the code puts back, first, the directories this redline
    and the packages it may load (PyYAML) are installed in. For another
    interpreter those are not known here, and `site` runs as usual."""
    interpreter = os.path.abspath(python or sys.executable)
    if interpreter != os.path.abspath(sys.executable):
        return [interpreter, "-I", "-c", RUN, "hook", host, *flags]
    import json  # a JSON list of strings is a Python list literal, in double quotes

    code = f"import sys; sys.path[:0] = {json.dumps(import_path())}; {RUN}"
    return [interpreter, "-I", "-S", "-c", code, "hook", host, *flags]


def import_path() -> list[str]:
    """Where this redline is installed, then the package directories `site`
    gives this Python (the virtual environment's, or the system's and the
    user's: on Debian, PyYAML from apt sits in another one)."""
    import site

    import redline

    folders = [os.path.dirname(os.path.dirname(os.path.abspath(redline.__file__)))]
    folders += site.getsitepackages()
    if site.ENABLE_USER_SITE:
        folders.append(site.getusersitepackages())
    kept: list[str] = []
    for folder in folders:
        if folder not in kept and os.path.isdir(folder):
            kept.append(folder)
    return kept


def is_ours(command: str, host: str) -> bool:
    """Whether `command` runs redline's hook for `host`, also as the one
    argument of `sh -c` (how Hermes runs it)."""
    texts = [command]
    with suppress(ValueError):  # not shell words: only the text itself is looked at
        texts += shlex.split(command)
    return any(mark in text for text in texts for mark in markers(host))


def hook_command(
    host: str,
    flags: Sequence[str] = (),
    *,
    python: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> str:
    """The shell command an agent runs, failing closed if Python cannot start."""
    run = hook_invocation(host, flags, python=python, environ=environ)
    return f"{run} || {{ rc=$?; [ $rc -eq 2 ] || echo '{FAILED_TO_RUN}' >&2; exit 2; }}"


def hook_invocation(
    host: str,
    flags: Sequence[str] = (),
    *,
    python: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> str:
    """The hook's process as shell words, with the `REDLINE_HOME` and
    `REDLINE_POLICY` in force at install time, and no fallback around it."""
    env = os.environ if environ is None else environ
    prefix = ""
    home = env.get("REDLINE_HOME", "").strip()
    if home:
        prefix += f"REDLINE_HOME={shlex.quote(os.path.abspath(os.path.expanduser(home)))} "
    policy = env.get("REDLINE_POLICY", "").strip()
    if policy:
        prefix += f"REDLINE_POLICY={shlex.quote(os.path.abspath(os.path.expanduser(policy)))} "
    argv = " ".join(shlex.quote(a) for a in hook_argv(host, flags, python=python))
    return f"{prefix}{argv}"


def user_home(home: str | None, environ: Mapping[str, str] | None = None) -> str:
    env = os.environ if environ is None else environ
    return os.path.abspath(os.path.expanduser(home or env.get("HOME") or "~"))


def install(
    host: str,
    *,
    home: str | None = None,
    project: str | None = None,
    options: Options | None = None,
    environ: Mapping[str, str] | None = None,
) -> list[Change]:
    chosen = resolve_service(options or Options(), environ)
    if chosen.enforce and host not in ENFORCING_HOSTS:
        from redline.hooks.install.files import ConfigError

        raise ConfigError(
            f"--enforce is for {', '.join(ENFORCING_HOSTS)} (and `hermes --plugin`); "
            f"{host} runs commands in a sandbox of its own: see docs/enforce.md"
        )
    from redline.home import home_dir
    from redline.home_modes import make_home, tighten

    # The hook will write there: the owner's alone, from the start.
    gate_home = home_dir(os.environ if environ is None else environ)
    make_home(gate_home)
    tighten(gate_home)
    if chosen.service:
        from redline.hooks.install.service import write_hook_token

        write_hook_token(environ)
    if host == "hermes":
        from redline.hooks.install import hermes

        return hermes.install(home=home, project=project, options=chosen, environ=environ)
    from redline.hooks.install import jsonhooks

    changes = jsonhooks.install(host, home=home, project=project, options=chosen, environ=environ)
    if host == "codex":  # Codex runs only the hooks it trusts
        from redline.hooks.install import codextrust

        changes.append(codextrust.trust(changes[0].path, home, environ))
        changes += _codex_disagrees(changes[0].path, home, project, environ)
    if host == "claude-code":  # a hook that rewrites a call after redline judged it
        from redline.hooks.install import claudeothers

        changes += claudeothers.warnings(home, project)
    return changes


def _codex_disagrees(
    path: str, home: str | None, project: str | None, environ: Mapping[str, str] | None
) -> list[Change]:
    """A warning for each reason Codex itself gives (when a `codex` on PATH
    answers) for not running the hook just installed."""
    from redline.hooks.codexseen import problems
    from redline.hooks.install.files import ConfigError

    env = os.environ if environ is None else environ
    root = user_home(home, env)
    cwd = os.path.abspath(os.path.expanduser(project)) if project else root
    try:
        found, how = problems(path, root, cwd, env)
    except ConfigError:
        return []  # the trust step has said what is wrong and what to do
    return [Change(path, False, None, f"warning: {p} ({how})") for p in found]


def resolve_service(options: Options, environ: Mapping[str, str] | None = None) -> Options:
    """`options` with the service's public key to pin, when `--service` has none
    yet and the service has made one."""
    if not options.service:
        return options
    from redline.hooks.install.files import ConfigError

    if options.defer_ask:
        raise ConfigError("--defer-ask leaves asks to the agent; --service holds them for you")
    if options.service_key:
        return options
    from redline.hooks.install.service import read_public_key

    return options._replace(service_key=read_public_key(environ)[0])


def uninstall(
    host: str,
    *,
    home: str | None = None,
    project: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> list[Change]:
    if host == "hermes":
        from redline.hooks.install import hermes

        return hermes.uninstall(home=home, project=project, environ=environ)
    from redline.hooks.install import jsonhooks

    if host != "codex":
        return jsonhooks.uninstall(host, home=home, project=project, environ=environ)
    from redline.hooks.install import codextrust

    trusted = codextrust.ours(jsonhooks.config_path(host, home, project))
    changes = jsonhooks.uninstall(host, home=home, project=project, environ=environ)
    untrusted = codextrust.untrust(trusted, home, environ)
    return changes + ([untrusted] if untrusted else [])
