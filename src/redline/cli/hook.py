"""`redline hook AGENT`: the hook process an agent runs before each tool call.

It is started once per tool call, so it skips argparse: `fast_main` reads
its few flags by hand and the agent's JSON from stdin. Whatever happens, it
exits 0 (the answer is on stdout) or 2 (blocked, the reason on stderr), the
code every supported agent reads as "block"; the generic hook exits with the
verdict (0 allow, 3 ask, 4 deny).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from redline.hooks.base import (
    BLOCK,
    PERMISSION_REQUEST,
    POST_TOOL_USE,
    PRE_TOOL_USE,
    HookAdapter,
    Settings,
    emit,
    handle,
)

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from typing import Any


HOSTS: dict[str, tuple[str, str]] = {
    "claude-code": ("redline.hooks.claude_code", "ClaudeCode"),
    "codex": ("redline.hooks.codex", "Codex"),
    "gemini": ("redline.hooks.gemini", "Gemini"),
    "hermes": ("redline.hooks.hermes", "HermesShell"),
    "generic": ("redline.hooks.generic", "Generic"),
}
EVENT_NAMES = {
    "pre-tool-use": PRE_TOOL_USE,
    "post-tool-use": POST_TOOL_USE,
    "permission-request": PERMISSION_REQUEST,
}
USAGE = (
    "usage: redline hook {claude-code,codex,gemini,hermes,generic} [--event EVENT] "
    "[--allow-explicit] [--ask native|deny] [--context CONTEXT] [--defer-ask] "
    "[--service [--service-key BASE64]]"
)


class UsageError(Exception):
    pass


def adapter_for(host: str) -> HookAdapter:
    if host not in HOSTS:
        raise UsageError(f"unknown agent `{host}`; expected one of {', '.join(HOSTS)}")
    module, name = HOSTS[host]
    # `__import__`, not `importlib`: the package loads `warnings` for nothing here.
    __import__(module)
    adapter: HookAdapter = getattr(sys.modules[module], name)()
    return adapter


def service_flags(argv: Sequence[str]) -> tuple[list[str], bool, str | None]:
    """`--service` (ask `redline serve`, never decide alone) and
    `--service-key KEY` (the pinned public key) taken off the arguments."""
    rest: list[str] = []
    service, key = False, None
    args = list(argv)
    while args:
        flag = args.pop(0)
        if flag == "--service":
            service = True
        elif flag.partition("=")[0] == "--service-key":
            key = flag.partition("=")[2] or (args.pop(0) if args else "")
            if not key:
                raise UsageError("`--service-key` needs a value")
        else:
            rest.append(flag)
    return rest, service, key


def parse_args(argv: Sequence[str], settings: Settings) -> tuple[str, Settings]:
    args = list(argv)
    if not args or args[0].startswith("-"):
        raise UsageError("name the agent")
    host = args.pop(0)
    while args:
        flag = args.pop(0)
        name, _, value = flag.partition("=")
        needs_value = name in ("--event", "--ask", "--context")
        if needs_value and not value:
            if not args:
                raise UsageError(f"`{name}` needs a value")
            value = args.pop(0)
        if name == "--allow-explicit":
            settings = settings._replace(allow_explicit=True)
        elif name == "--defer-ask":
            settings = settings._replace(defer_ask=True)
        elif name == "--event":
            event = EVENT_NAMES.get(value)
            if event is None:
                raise UsageError(f"unknown event `{value}`; expected {', '.join(EVENT_NAMES)}")
            settings = settings._replace(event=event)
        elif name == "--ask":
            if value not in ("native", "deny"):
                raise UsageError(f"unknown ask mode `{value}`; expected native or deny")
            settings = settings._replace(ask=value)
        elif name == "--context":
            settings = settings._replace(context=value)
        else:
            raise UsageError(f"unknown option `{flag}`")
    return host, settings


def fast_main(argv: Sequence[str]) -> int:
    """Run one hook; never raises and never returns a code that means "go ahead"
    by accident."""
    try:
        argv, service, key = service_flags(argv)
        host, settings = parse_args(argv, Settings.from_environ(os.environ))
        adapter = adapter_for(host)
        if service:
            from redline.approve.client import handle_service
        from redline.home import home_dir, secure_quickly

        secure_quickly(home_dir(os.environ))  # the log and state it writes: 0600
    except UsageError as error:
        sys.stderr.write(f"redline hook: {error}\n{USAGE}\nredline blocked this call\n")
        return BLOCK
    except Exception as error:  # noqa: BLE001 - fail closed
        sys.stderr.write(f"redline blocked this call: the hook failed to start: {error}\n")
        return BLOCK
    if service:
        reply = handle_service(adapter, sys.stdin.buffer, settings, os.environ, key)
    else:
        reply = handle(adapter, sys.stdin.buffer, settings, os.environ)
    return emit(reply, sys.stdout, sys.stderr)


def add_parser(sub: Any, name: str, help_text: str) -> None:
    """For `redline --help`; `redline hook` itself runs through `fast_main`."""
    parser = sub.add_parser(name, help=help_text, description=USAGE)
    parser.add_argument("agent", choices=list(HOSTS))
    parser.add_argument("rest", nargs="*")
    parser.set_defaults(handler=lambda args: fast_main([args.agent, *args.rest]))
