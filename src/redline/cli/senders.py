"""`redline senders list|pair|revoke CHANNEL`: who may start a run by
messaging the agent's gateway (F-INBOUND-1; see `redline.inbound`)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from redline.cli import exitcodes


def add_parser(sub: Any, name: str, help_text: str) -> None:
    parser = sub.add_parser(name, help=help_text, description=help_text)
    parser.add_argument("what", choices=["list", "pair", "revoke"])
    parser.add_argument(
        "channel", nargs="?", help="the gateway's platform (`telegram`, `discord`, `slack`)"
    )
    parser.add_argument(
        "sender", nargs="?", help="revoke: the sender's id (`redline senders list`)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run)


def _fail(text: str, code: int = exitcodes.USAGE) -> int:
    sys.stderr.write(f"redline senders: {text}\n")
    return code


def run(args: argparse.Namespace) -> int:
    from redline.inbound import Senders, valid_channel

    if args.what != "list" and not args.channel:
        return _fail(f"name the channel: `redline senders {args.what} telegram`")
    if args.channel and not valid_channel(args.channel):
        return _fail(f"`{args.channel}` is not a channel name; use e.g. `telegram` or `discord`")
    if args.what == "revoke" and not args.sender:
        return _fail(f"name the sender: `redline senders revoke {args.channel} SENDER`")
    try:
        senders = Senders.open()
    except Exception as err:  # noqa: BLE001 - said plainly, exit code 1
        return _fail(f"the paired senders cannot be read: {err}", exitcodes.ERROR)
    try:
        return _run(args, senders)
    finally:
        senders.close()


def _run(args: argparse.Namespace, senders: Any) -> int:
    out = sys.stdout
    if args.what == "pair":
        code, expires = senders.issue(args.channel)
        if args.json:
            out.write(
                json.dumps({"channel": args.channel, "code": code, "expires": expires}) + "\n"
            )
            return exitcodes.ALLOW
        minutes = max(1, round((expires - time.time()) / 60))
        out.write(
            f"{code}\nthe sender sends `/pair {code}` to the agent on {args.channel}; "
            f"the code works once, for {minutes} min\n"
        )
    elif args.what == "list":
        rows = senders.paired(args.channel)
        if args.json:
            out.write(json.dumps({"senders": [row.to_json() for row in rows]}) + "\n")
        elif not rows:
            out.write("no paired senders\n")
        for row in [] if args.json else rows:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(row.paired_at))
            out.write(f"{row.channel}  {row.sender}  {when}\n")
    else:
        if not senders.revoke(args.channel, args.sender):
            return _fail(f"`{args.sender}` is not paired on {args.channel}", exitcodes.ERROR)
        out.write(f"revoked {args.channel} {args.sender}; their next message is refused\n")
    return exitcodes.ALLOW
