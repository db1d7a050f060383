"""`redline check`: explain the verdict for a command, or judge a batch."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any, TextIO

from redline.cli import exitcodes
from redline.decision import Decision, Verdict

# Judges one parsed batch line; raises ValueError for a malformed one.
LineJudge = Callable[[dict[str, Any]], Decision]


def add_parser(sub: Any, name: str, help_text: str) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        name,
        help=help_text,
        description="Judge a shell command. Exit codes: 0 allow, 3 ask, 4 deny, 1 error.",
    )
    parser.add_argument("command", nargs="?", help="the shell command line to judge")
    parser.add_argument("--cwd", help="the absolute directory the command would run in")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--batch",
        action="store_true",
        help='read JSON lines ({"command": ..., "cwd"?}) on stdin, write one verdict per line',
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.batch:
        return run_batch(sys.stdin, sys.stdout, judge_line)
    if args.command is None:
        print("error: no command given\n  help: `redline check 'rm -rf build'`", file=sys.stderr)
        return exitcodes.USAGE
    from redline.command import check_command

    decision = check_command(args.command, cwd=args.cwd)
    if args.json:
        print(json.dumps(decision.to_json()))
    else:
        print(render(args.command, decision))
    return exitcodes.BY_VERDICT[decision.verdict]


def judge_line(line: dict[str, Any]) -> Decision:
    from redline.command import check_command

    command = line.get("command")
    cwd = line.get("cwd")
    if not isinstance(command, str):
        raise ValueError('each line needs a string "command"')
    if cwd is not None and not isinstance(cwd, str):
        raise ValueError('"cwd" must be a string')
    return check_command(command, cwd=cwd)


def run_batch(stdin: TextIO, stdout: TextIO, judge: LineJudge) -> int:
    """One JSON object out per line in, in order; a bad line is denied, and the batch goes on."""
    for number, raw in enumerate(stdin, 1):
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
            if not isinstance(line, dict):
                raise ValueError("each line must be a JSON object")
            out: dict[str, Any] = judge(line).to_json()
        except (ValueError, TypeError) as error:
            out = {"verdict": "deny", "hardline": False, "rules": [], "reason": "",
                   "error": f"line {number}: {error}"}  # fmt: skip
        stdout.write(json.dumps(out) + "\n")
        stdout.flush()
    return exitcodes.ALLOW


_LABEL = {Verdict.ALLOW: "ALLOW", Verdict.ASK: "ASK", Verdict.DENY: "DENY"}


def render(command: str, decision: Decision) -> str:
    """The verdict for a person: rules, the matched part marked, the repair."""
    head = _LABEL[decision.verdict] + (" (hard line)" if decision.hardline else "")
    lines = [f"{head}: {decision.reason}"]
    one_line = "\n" not in command and len(command) <= 200
    for hit in decision.hits:
        lines.append(f"  rule {hit.rule_id} [{hit.severity}]: {hit.description}")
        if hit.span is not None and one_line:
            lines.append(f"    {command}")
            width = max(1, hit.span.end - hit.span.start)
            lines.append("    " + " " * hit.span.start + "^" * width)
        elif hit.span is not None:
            lines.append(f"    matched: {hit.span.excerpt(command)[:200]!r}")
    if decision.repair:
        lines.append(f"  repair: {decision.repair}")
    return "\n".join(lines)
