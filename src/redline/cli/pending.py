"""`redline pending`, `redline approve ID`, `redline reject ID`: the owner's
terminal view of held calls (talks to `redline serve` on the owner socket)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from redline.cli import exitcodes


def add_parser(sub: Any, name: str, help_text: str) -> None:
    parser = sub.add_parser(name, help=help_text, description=help_text)
    if name == "pending":
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        parser.add_argument(
            "--prompt",
            action="store_true",
            help="stay and ask about each held call as it arrives",
        )
        parser.set_defaults(handler=pending)
    elif name == "approve":
        parser.add_argument("id", help="the held call's id (`redline pending`)")
        parser.add_argument("--scope", choices=["once", "session", "always"], default="once")
        parser.set_defaults(handler=approve)
    else:
        parser.add_argument("id", help="the held call's id (`redline pending`)")
        parser.add_argument("--reason", default="", help="told to the agent")
        parser.set_defaults(handler=reject)


def _user() -> str:
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "owner"


def _home() -> str:
    from redline.home import home_dir

    return home_dir()


def pending(args: argparse.Namespace) -> int:
    from redline.approve.terminal import ServiceError, describe, owner_call, prompt

    try:
        if args.prompt:
            prompt(_home(), sys.stdin, sys.stdout)
            return exitcodes.ALLOW
        listing = owner_call(_home(), "GET", "/v1/pending")
    except ServiceError as err:
        sys.stderr.write(f"redline pending: {err}\n")
        return exitcodes.ERROR
    except KeyboardInterrupt:
        return exitcodes.ALLOW
    if args.json:
        sys.stdout.write(json.dumps({"pending": listing["pending"]}, indent=2) + "\n")
    elif not listing["pending"]:
        sys.stdout.write("nothing is waiting for you\n")
    else:
        sys.stdout.write("\n\n".join(describe(row) for row in listing["pending"]) + "\n")
    return exitcodes.ALLOW


def _answer(args: argparse.Namespace, verb: str, body: dict[str, Any]) -> int:
    from redline.approve.terminal import ServiceError, owner_call

    try:
        row = owner_call(_home(), "POST", f"/v1/held/{args.id}/{verb}", body)
    except ServiceError as err:
        sys.stderr.write(f"redline {verb}: {err}\n")
        return exitcodes.ERROR
    sys.stdout.write(f"{row['id']}: {row['state']}\n")
    return exitcodes.ALLOW


def approve(args: argparse.Namespace) -> int:
    return _answer(args, "approve", {"scope": args.scope, "channel": "terminal", "by": _user()})


def reject(args: argparse.Namespace) -> int:
    return _answer(args, "reject", {"reason": args.reason, "channel": "terminal", "by": _user()})
