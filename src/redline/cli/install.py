"""`redline install AGENT` / `redline uninstall AGENT`: wire redline into an
agent's hook configuration, or take exactly that back out."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from redline.cli import exitcodes

AFTER = {
    "claude-code": "Claude Code reads it at start: restart it. Refusals reach the model as "
    "the tool's error; asks appear in Claude Code's own permission prompt.",
    "codex": "Codex reads it at start: restart it (hooks need a Codex release with hooks on; "
    "see `redline doctor`). Refusals reach the model; an ask is refused with a text saying "
    "the owner's approval is needed (unless --defer-ask).",
    "gemini": "Gemini CLI reads it at start: restart it. Refusals reach the model as the "
    "tool's error; asks appear in Gemini CLI's confirmation prompt.",
    "hermes": "Restart Hermes (CLI and gateway). A refusal becomes the tool's result for "
    "the agent; the shell hook cannot ask, so asks are refused as needing approval.",
}


def add_parser(sub: Any, name: str, help_text: str) -> None:
    from redline.hooks.install import HOSTS

    parser: argparse.ArgumentParser = sub.add_parser(name, help=help_text, description=help_text)
    parser.add_argument("agent", choices=HOSTS)
    parser.add_argument("--home", metavar="DIR", help="the home directory (default: $HOME)")
    parser.add_argument(
        "--project", metavar="DIR", help="the project's config instead of the user's"
    )
    if name == "install":
        parser.add_argument(
            "--allow-explicit",
            action="store_true",
            help="answer `allow` for allowed calls (unattended use) instead of passing no "
            "opinion to the agent's own permission rules",
        )
        parser.add_argument(
            "--ask", choices=("native", "deny"), default=None, help="`deny` refuses every ask"
        )
        parser.add_argument("--context", help="interactive, gateway, cron or single_query")
        parser.add_argument(
            "--defer-ask",
            action="store_true",
            help="codex: leave asks to Codex's approval prompt, with redline as its "
            "PermissionRequest hook (only when Codex is set to ask)",
        )
        parser.add_argument(
            "--record-outcomes",
            action="store_true",
            help="claude-code, codex: also hook PostToolUse, to log asked calls that ran",
        )
        parser.set_defaults(handler=_install)
    else:
        parser.set_defaults(handler=_uninstall)


def _install(args: argparse.Namespace) -> int:
    from redline.hooks.install import Options, install

    options = Options(
        allow_explicit=args.allow_explicit,
        ask_deny=args.ask == "deny",
        context=args.context,
        defer_ask=args.defer_ask,
        record_outcomes=args.record_outcomes,
    )
    code = _apply(
        lambda: install(args.agent, home=args.home, project=args.project, options=options)
    )
    if code == exitcodes.ALLOW:
        print(AFTER[args.agent])
        print("Check it with `redline doctor`.")
    return code


def _uninstall(args: argparse.Namespace) -> int:
    from redline.hooks.install import uninstall

    return _apply(lambda: uninstall(args.agent, home=args.home, project=args.project))


def _apply(action: Any) -> int:
    from redline.hooks.install.files import ConfigError

    try:
        changes = action()
    except (ConfigError, OSError) as error:
        print(f"redline: {error}", file=sys.stderr)
        return exitcodes.ERROR
    for change in changes:
        saved = f" (previous version kept as {change.backup})" if change.backup else ""
        verb = "updated" if change.changed else "left"
        print(f"{verb} {change.path}: {change.summary}{saved}")
    return exitcodes.ALLOW
