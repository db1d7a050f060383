"""`redline pair`: one-time codes to pair the owner's Telegram chat or to log
in to the web page; list and revoke paired senders (F-INBOUND-1)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from redline.cli import exitcodes

HOW = {
    "telegram": "send `/pair {code}` to the bot from your own Telegram chat",
    "web": "enter {code} on the web page's login form",
}


def add_parser(sub: Any, name: str, help_text: str) -> None:
    parser = sub.add_parser(name, help=help_text, description=help_text)
    parser.add_argument(
        "what",
        choices=["telegram", "web", "list", "revoke"],
        help="a code for `telegram` or `web`; `list` or `revoke` paired senders",
    )
    parser.add_argument("channel", nargs="?", help="revoke: the channel (`telegram`)")
    parser.add_argument("sender", nargs="?", help="revoke: the sender id (`redline pair list`)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from redline.approve.terminal import ServiceError, owner_call
    from redline.home import home_dir

    try:
        if args.what in HOW:
            reply = owner_call(home_dir(), "POST", f"/v1/pair/{args.what}")
            if args.json:
                sys.stdout.write(json.dumps(reply) + "\n")
                return exitcodes.ALLOW
            minutes = max(1, round((reply["expires"] - time.time()) / 60))
            how = HOW[args.what].format(code=reply["code"])
            sys.stdout.write(f"{reply['code']}\n{how}; the code works once, for {minutes} min\n")
        elif args.what == "list":
            reply = owner_call(home_dir(), "GET", "/v1/paired")
            if args.json:
                sys.stdout.write(json.dumps(reply) + "\n")
            for row in reply["paired"]:
                when = time.strftime("%Y-%m-%d %H:%M", time.localtime(row["paired_at"]))
                sys.stdout.write(f"{row['channel']}  {row['sender']}  {row['label']}  {when}\n")
        else:
            if not args.channel or not args.sender:
                sys.stderr.write("redline pair revoke: name the channel and the sender\n")
                return exitcodes.USAGE
            owner_call(home_dir(), "POST", f"/v1/paired/{args.channel}/{args.sender}/revoke")
            sys.stdout.write(f"revoked {args.channel} {args.sender}\n")
    except ServiceError as err:
        sys.stderr.write(f"redline pair: {err}\n")
        return exitcodes.ERROR
    return exitcodes.ALLOW
