"""Enforcement through a hook (issue #14 part 2): the shell command a host
runs after redline allowed it becomes the same command under `redline run`.

Turned on by the hook's `--enforce` flag (`redline install claude-code
--enforce` writes it into the hook's command line, where the agent cannot
drop it the way it could drop a variable) or `REDLINE_HOOK_ENFORCE=1` in the
hook's environment. The wrapped command carries a one-time ticket
(`sandbox.tickets`), so `redline run` does not judge again what the hook
judged (or what the owner approved through the service), and runs it in the
sandbox. Only allowed calls are wrapped: an ask that the host itself puts to
the person runs as the host runs it. The wrapped command runs in the host
shell's current directory, in a child shell: a `cd` or `export` inside it no
longer carries over to the next call.

The wrapper starts this very Python with `-I`: the command runs in the
agent's working directory, where a `redline/` the agent wrote must never be
what `python -m redline` loads.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from redline.decision import Decision, Verdict
from redline.hooks.base import HookCall

# Loaded on every allowed call: `shlex` and friends only once enforcing (ADR 0004).
TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from typing import Any

ENV = "REDLINE_HOOK_ENFORCE"
FLAG = "--enforce"
SHELL_TOOLS = ("Bash", "terminal")
LAUNCH_ENV = "REDLINE_ENFORCE_LAUNCH"
"""`run` in the hook's environment: always `redline run`, never the hook's
own bwrap launch (for a bwrap that misbehaves; both sandbox the same)."""
PINNED_ENV = ("REDLINE_HOME", "REDLINE_POLICY")
"""Set for the wrapped `redline run` as the hook saw them: the ticket is in
that home, and the policy that judged is the one that runs it."""


def describe(rewrite: str) -> str:
    """How a rewritten command runs, for `redline doctor`."""
    if rewrite.startswith("( ") and "--clearenv" in rewrite:
        return "in the sandbox, launched by the hook itself (bubblewrap, no second Python)"
    return "under `redline run`"


def enforcing(environ: Mapping[str, str]) -> bool:
    return environ.get(ENV, "").strip().lower() in ("1", "true", "yes")


def redline_argv(words: list[str]) -> list[str]:
    """`python -I -m redline WORDS`: with `-I` neither the current directory
    nor a `PYTHON*` variable is on the import path. Not `-c`: Hermes's own
    check asks about any `python -c`, and the person would see the wrapper."""
    return [sys.executable, "-I", "-m", "redline", *words]


def wrapped_command(
    command: str,
    environ: Mapping[str, str],
    *,
    session: str | None = None,
    context: str | None = None,
    ticket: bool = True,
    cwd: str | None = None,
) -> str:
    """The shell text that runs `command`, which the hook judged (`ticket`),
    in the sandbox: the namespace sandbox's own launch where there is one
    (`sandbox.direct`: no Python starts again), else `redline run` with a
    one-time ticket. Without `ticket` (the command was not judged here),
    `redline run` judges it itself."""
    import contextlib
    import shlex

    if ticket and cwd is not None and environ.get(LAUNCH_ENV, "").strip() != "run":
        from redline.sandbox.direct import launch_text

        with contextlib.suppress(OSError):  # the filter file or cgroup: `redline run`
            direct = launch_text(command, cwd, environ)
            if direct is not None:
                return direct

    from redline.home import home_dir
    from redline.sandbox.tickets import issue

    words = ["run"]
    # Without a ticket `redline run` judges the command again (and refuses an ask).
    with contextlib.suppress(OSError):
        if ticket:
            words += ["--ticket", issue(home_dir(environ), command)]
    if session:
        words += ["--session", session]
    if context:
        words += ["--context", context]
    words += ["--shell", command]
    prefix = ""
    for name in PINNED_ENV:
        value = environ.get(name, "").strip()
        if value:
            prefix += f"{name}={shlex.quote(os.path.abspath(os.path.expanduser(value)))} "
    return prefix + shlex.join(redline_argv(words))


def wrapped_input(
    call: HookCall, decision: Decision, enforce: bool, environ: Mapping[str, str]
) -> dict[str, Any] | None:
    """The tool input that runs `call`'s command under `redline run`, or
    `None` when this call is left as it is (enforcement off, not a shell
    tool, not allowed, no command)."""
    if not (enforce or enforcing(environ)) or call.tool not in SHELL_TOOLS:
        return None
    command = call.args.get("command")
    if decision.verdict is not Verdict.ALLOW or not isinstance(command, str) or not command.strip():
        return None
    wrapped = wrapped_command(
        command, environ, session=call.session, context=call.context, cwd=call.cwd or os.getcwd()
    )
    return {**call.args, "command": wrapped}


def logged(tool: str, enforce: bool, environ: Mapping[str, str]) -> dict[str, str] | None:
    """What the hook's log entry adds to an enforced shell call's arguments:
    the machine's sandbox level at decision time (a run that goes through
    `redline run` logs the level it used in an entry of its own)."""
    if tool not in SHELL_TOOLS or not (enforce or enforcing(environ)):
        return None
    from redline.sandbox.level import probe

    return {"enforcement": probe().name}
