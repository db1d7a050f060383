"""`redline agents add|list|revoke`: the agents on other machines that may
send their calls to this service (issue 16). Run by the owner where the
service's database is reachable; the agent never runs it (never-run)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from redline.cli import exitcodes


def add_parser(sub: Any, name: str, help_text: str) -> None:
    parser = sub.add_parser(name, help=help_text, description=help_text)
    parser.add_argument("--store", help="the service database (default: as `redline serve`)")
    actions = parser.add_subparsers(dest="action", required=True)
    add = actions.add_parser("add", help="make an agent's token and print its install line")
    add.add_argument("name", help="the agent's name, shown to you with each of its calls")
    add.add_argument(
        "--url",
        default="https://SERVICE-HOST:8443",
        help="the service's agents address(es) for the install line, comma-separated replicas",
    )
    add.add_argument("--agent", default="claude-code", help="the agent for the install line")
    listing = actions.add_parser("list", help="the agents, their last call and whether revoked")
    listing.add_argument("--json", action="store_true", help="as JSON")
    revoke = actions.add_parser("revoke", help="refuse an agent's token from now on")
    revoke.add_argument("name")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from redline.approve.db import Database
    from redline.approve.remote_agents import AgentError, RemoteAgents
    from redline.audit.store import LogUnavailable, resolve_url

    try:
        db = Database(resolve_url(args.store, os.environ))
    except LogUnavailable as err:
        print(f"redline agents: {err}", file=sys.stderr)
        return exitcodes.ERROR
    try:
        agents = RemoteAgents(db)
        if args.action == "add":
            token = agents.add(args.name)
            print(f"agent `{args.name}` added. Its token, shown only now:\n\n  {token}\n")
            print("On the agent's machine, run:\n")
            print(f"  {_install_line(args, token)}\n")
            print("Revoke it with `redline agents revoke " + args.name + "`.")
        elif args.action == "revoke":
            agents.revoke(args.name)
            print(f"agent `{args.name}` revoked: its next call is refused")
        else:
            rows = [a.to_json() for a in agents.list()]
            if args.json:
                print(json.dumps(rows, indent=1))
            for row in [] if args.json else rows:
                state = "revoked" if row["revoked"] else "live"
                seen = f"last call from {row['last_from']}" if row["last_seen"] else "no call yet"
                print(f"{row['name']:24} {state:8} {seen}")
            if not rows and not args.json:
                print("no agents: add one with `redline agents add NAME`")
    except AgentError as err:
        print(f"redline agents: {err}", file=sys.stderr)
        return exitcodes.ERROR
    finally:
        db.close()
    return exitcodes.ALLOW


def _install_line(args: argparse.Namespace, token: str) -> str:
    from redline.approve.paths import ServicePaths
    from redline.home import home_dir

    line = f"redline install {args.agent} --service {args.url} --token {token}"
    try:
        with open(ServicePaths(home_dir()).public_key, encoding="utf-8") as file:
            key = file.read().strip()
    except OSError:
        return line + " --service-key KEY  # KEY: the service's signing.pub"
    return line + f" --service-key {key}"
