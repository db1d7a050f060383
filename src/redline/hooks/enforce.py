"""Enforcement through a hook (issue #14 part 2): the Bash command a host runs
after redline allowed it becomes the same command under `redline run`.

Turned on by `REDLINE_HOOK_ENFORCE=1` in the hook's environment (for Claude
Code: its settings' `env`). The wrapped command carries a one-time ticket
(`sandbox.tickets`), so `redline run` does not judge again what the hook
judged (or what the owner approved through the service), and runs it in the
sandbox. Only allowed calls are wrapped: an ask that the host itself puts to
the person runs as the host runs it. The wrapped command runs in the host
shell's current directory, in a child shell: a `cd` or `export` inside it no
longer carries over to the next call.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

from redline.decision import Decision, Verdict
from redline.hooks.base import HookCall

# Loaded on every allowed call: `shlex` and friends only once enforcing (ADR 0004).
TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from typing import Any

ENV = "REDLINE_HOOK_ENFORCE"
SHELL_TOOLS = ("Bash",)


def enforcing(environ: Mapping[str, str]) -> bool:
    return environ.get(ENV, "").strip().lower() in ("1", "true", "yes")


def wrapped_input(
    call: HookCall, decision: Decision, environ: Mapping[str, str]
) -> dict[str, Any] | None:
    """The tool input that runs `call`'s command under `redline run`, or
    `None` when this call is left as it is (enforcement off, not a shell
    tool, not allowed, no command)."""
    if not enforcing(environ) or call.tool not in SHELL_TOOLS:
        return None
    command = call.args.get("command")
    if decision.verdict is not Verdict.ALLOW or not isinstance(command, str) or not command.strip():
        return None
    import contextlib
    import shlex

    from redline.home import home_dir
    from redline.sandbox.tickets import issue

    argv = [sys.executable, "-m", "redline", "run"]
    # Without a ticket `redline run` judges the command again (and refuses an ask).
    with contextlib.suppress(OSError):
        argv += ["--ticket", issue(home_dir(environ), command)]
    if call.session:
        argv += ["--session", call.session]
    if call.context:
        argv += ["--context", call.context]
    argv += ["--shell", command]
    return {**call.args, "command": shlex.join(argv)}
