"""`redline opinion report`: how often the second opinion tightened a verdict,
and how often the owner agreed (F-APPROVE-6)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from redline.cli import exitcodes


def add_parser(sub: Any, name: str, help_text: str) -> None:
    parser = sub.add_parser(name, help=help_text, description=help_text)
    parser.add_argument("what", choices=["report"])
    from redline.cli.log import _moment

    parser.add_argument(
        "--since", type=_moment, metavar="WHEN", help="ISO time (UTC) or age: 2h, 7d"
    )
    parser.add_argument("--store", help="the log's URL (default: `$REDLINE_STORE`, else the home)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import os

    from redline.audit.store import LogUnavailable, open_store, resolve_url
    from redline.opinion.report import render, report

    try:
        store = open_store(resolve_url(args.store, os.environ), create=False)
    except LogUnavailable as err:
        sys.stderr.write(f"redline opinion: {err}\n")
        return exitcodes.ERROR
    try:
        data = report(store, args.since)
    finally:
        store.close()
    sys.stdout.write(json.dumps(data) + "\n" if args.json else render(data))
    return exitcodes.ALLOW
