"""`redline doctor`: which agents are wired up, and whether their hook answers."""

from __future__ import annotations

import argparse
import os
from typing import Any

from redline.cli import exitcodes


def add_parser(sub: Any, name: str, help_text: str) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        name,
        help=help_text,
        description="For each agent, list redline's hook entries and run each installed "
        "hook on a harmless call and on a hard line. Exit codes: 0 every wired hook "
        "answers, 1 one does not (or a config file cannot be read).",
    )
    parser.add_argument("--home", metavar="DIR", help="the home directory (default: $HOME)")
    parser.add_argument("--project", metavar="DIR", help="also check this project's config")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from redline.hooks.doctor import diagnose

    findings = diagnose(args.home, args.project, os.environ)
    width = max(len(f.host) for f in findings)
    for f in findings:
        mark = "ok  " if f.ok else "FAIL"
        where = f" {f.path}" + (f" ({f.event})" if f.event else "") + ":" if f.path else ""
        print(f"{mark} {f.host:<{width}}{where} {f.detail}")
    from redline.sandbox.level import probe

    print(f"sandbox for `redline run`: {probe().line()}")
    return exitcodes.ALLOW if all(f.ok for f in findings) else exitcodes.ERROR
