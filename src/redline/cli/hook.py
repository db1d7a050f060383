"""`redline hook AGENT`: the hook process an agent runs before each tool call.

It is started once per tool call, so it skips argparse: `fast_main` reads
its few flags by hand and the agent's JSON from stdin. Whatever happens, it
exits 0 (the answer is on stdout) or 2 (blocked, the reason on stderr), the
code every supported agent reads as "block"; Hermes reads only stdout, so its
hook blocks with exit 0 and a block object; the generic hook exits with the
verdict (0 allow, 3 ask, 4 deny).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from redline.deadline import DEADLINE_ENV, parse_seconds, process_start
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
    "[--deadline SECONDS] [--enforce] [--service [--service-key BASE64]]"
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
        needs_value = name in ("--event", "--ask", "--context", "--deadline")
        if needs_value and not value:
            if not args:
                raise UsageError(f"`{name}` needs a value")
            value = args.pop(0)
        if name == "--allow-explicit":
            settings = settings._replace(allow_explicit=True)
        elif name == "--defer-ask":
            settings = settings._replace(defer_ask=True)
        elif name == "--enforce":
            settings = settings._replace(enforce=True)
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
        elif name == "--deadline":
            try:
                settings = settings._replace(deadline_s=parse_seconds(value))
            except ValueError:
                raise UsageError(
                    f"`--deadline` takes a positive number of seconds, not `{value}`"
                ) from None
        else:
            raise UsageError(f"unknown option `{flag}`")
    return host, settings


def fast_main(argv: Sequence[str]) -> int:
    """Run one hook; never raises and never returns a code that means "go ahead"
    by accident, and answers by its deadline (see `redline.deadline`)."""
    start = process_start()
    given = list(argv)
    try:
        argv, service, key = service_flags(argv)
        try:
            environ_settings = Settings.from_environ(os.environ)
        except ValueError as error:
            raise UsageError(f"`${DEADLINE_ENV}`: {error}") from None
        host, settings = parse_args(argv, environ_settings)
        adapter = adapter_for(host)
        if service:
            from redline.approve.client import handle_service, service_deadline

            deadline = service_deadline(settings, start)
        else:
            deadline = settings.deadline_for(start)
        from redline.home import home_dir, secure_quickly

        secure_quickly(home_dir(os.environ))  # the log and state it writes: 0600
        from redline.hooks.watchdog import Watchdog

        watchdog = Watchdog(deadline, adapter).arm()
    except UsageError as error:
        sys.stderr.write(f"redline hook: {error}\n{USAGE}\n")
        return _refuse_start(given, f"redline blocked this call: the hook's arguments: {error}")
    except Exception as error:  # noqa: BLE001 - fail closed
        return _refuse_start(given, f"redline blocked this call: the hook failed to start: {error}")
    if service:
        reply = handle_service(adapter, sys.stdin.buffer, settings, os.environ, key, deadline)
    else:
        reply = handle(adapter, sys.stdin.buffer, settings, os.environ, deadline)
    watchdog.claim()
    return emit(reply, sys.stdout, sys.stderr)


HELP_FLAGS = ("-h", "--help")


def wants_help(argv: Sequence[str]) -> bool:
    """`redline hook --help` or `redline hook AGENT --help`, and nothing else:
    a hook run with any other unknown word still blocks the call."""
    if len(argv) == 1:
        return argv[0] in HELP_FLAGS
    return len(argv) == 2 and argv[0] in HOSTS and argv[1] in HELP_FLAGS


def _refuse_start(argv: Sequence[str], reason: str) -> int:
    """Block when the hook cannot start. Hermes reads only stdout, so for it
    the block object goes there (written here: its adapter may be what failed)."""
    sys.stderr.write(reason + "\n")
    if argv[:1] == ["hermes"]:
        import json

        sys.stdout.write(json.dumps({"action": "block", "message": reason}) + "\n")
        sys.stdout.flush()
        return 0
    return BLOCK


def add_parser(sub: Any, name: str, help_text: str) -> None:
    """For `redline --help` and `redline hook [AGENT] --help`; `redline hook`
    itself runs through `fast_main`."""
    import argparse

    parser = sub.add_parser(
        name,
        help=help_text,
        description="The hook an agent runs before each tool call: it reads the agent's JSON "
        "on stdin and answers in the agent's own protocol. `redline install AGENT` writes it "
        "into the agent's config; run it by hand only to try it.",
        epilog="exit codes: 0 the answer is on stdout, 2 the call is blocked (the reason on "
        "stderr); the generic hook exits with the verdict: 0 allow, 3 ask, 4 deny",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("agent", choices=list(HOSTS))
    parser.add_argument("--event", choices=list(EVENT_NAMES), help="the hook event")
    parser.add_argument(
        "--allow-explicit", action="store_true", help="answer `allow` for allowed calls"
    )
    parser.add_argument("--ask", choices=("native", "deny"), help="`deny` refuses every ask")
    parser.add_argument("--context", help="interactive, gateway, cron or single_query")
    parser.add_argument(
        "--defer-ask", action="store_true", help="codex: leave asks to Codex's approval prompt"
    )
    parser.add_argument(
        "--enforce",
        action="store_true",
        help="claude-code: allowed Bash calls come back rewritten to run in the sandbox",
    )
    parser.add_argument(
        "--service", action="store_true", help="ask `redline serve`; never decide alone"
    )
    parser.add_argument("--service-key", metavar="BASE64", help="the service's key to trust")
    parser.set_defaults(handler=_run_parsed)


def _run_parsed(args: Any) -> int:
    """The hook from argparse's values (`main` runs `fast_main` directly)."""
    argv = [args.agent]
    for flag in ("allow_explicit", "defer_ask", "enforce", "service"):
        if getattr(args, flag):
            argv.append("--" + flag.replace("_", "-"))
    for option in ("event", "ask", "context", "service_key"):
        if getattr(args, option) is not None:
            argv += ["--" + option.replace("_", "-"), getattr(args, option)]
    return fast_main(argv)
