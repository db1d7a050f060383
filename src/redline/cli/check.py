"""`redline check`: explain the verdict for a command or a tool call, or judge a batch."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from redline.cli import exitcodes
from redline.decision import Decision, Verdict

if TYPE_CHECKING:
    from redline.gatekeeper import Gate

# Judges one parsed batch line; raises ValueError for a malformed one.
LineJudge = Callable[[dict[str, Any]], Decision]


def add_parser(sub: Any, name: str, help_text: str) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        name,
        help=help_text,
        description="Judge a shell command or a tool call. Exit codes: 0 allow, 3 ask, "
        "4 deny, 1 error, 6 the policy cannot be loaded.",
    )
    parser.add_argument("command", nargs="?", help="the shell command line to judge")
    parser.add_argument("--cwd", help="the absolute directory the command would run in")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--batch",
        action="store_true",
        help='read JSON lines on stdin ({"command": ..., "cwd"?} or {"tool": ..., "args": '
        '{...}, "cwd"?, "context"?, "session"?}), write one verdict per line',
    )
    parser.add_argument("--tool", help="judge a call to this tool (`terminal`, `Write`...)")
    parser.add_argument("--args", default="{}", help="the tool call's arguments, a JSON object")
    parser.add_argument("--context", help="interactive, gateway, cron or single_query")
    parser.add_argument("--session", help="the session the call belongs to")
    parser.add_argument(
        "--policy",
        help="the policy file (default: $REDLINE_POLICY, else policy.yaml in $REDLINE_HOME, "
        "else the policy that ships with redline)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from redline.policy.load import PolicyError

    try:
        return _run(args)
    except PolicyError as error:
        print(f"error: the gate cannot start\n{error}", file=sys.stderr)
        return exitcodes.POLICY_FAILED


def _run(args: argparse.Namespace) -> int:
    gates = _GateOnce(args.policy)
    if args.batch:
        return run_batch(sys.stdin, sys.stdout, lambda line: judge_any_line(line, gates))
    if args.tool is not None:
        try:
            tool_args = json.loads(args.args)
        except ValueError as error:
            return _usage(f"`--args` is not JSON: {error}", '`--args \'{"path": "/tmp/x"}\'`')
        if not isinstance(tool_args, dict):
            return _usage("`--args` must be a JSON object", '`--args \'{"path": "/tmp/x"}\'`')
        line = {"tool": args.tool, "args": tool_args, "cwd": args.cwd, "context": args.context,
                "session": args.session}  # fmt: skip
        text = tool_args.get("command") if isinstance(tool_args.get("command"), str) else ""
        return _report(args, str(text), judge_tool_line(line, gates.get()))
    if args.command is None:
        return _usage("no command given", "`redline check 'rm -rf build'`")
    if args.policy or args.context or args.session:
        line = {"tool": "Bash", "args": {"command": args.command},
                "cwd": args.cwd or os.getcwd(), "context": args.context,
                "session": args.session}  # fmt: skip
        return _report(args, args.command, judge_tool_line(line, gates.get()))
    from redline.command import check_command

    return _report(args, args.command, check_command(args.command, cwd=args.cwd))


def _usage(message: str, example: str) -> int:
    print(f"error: {message}\n  help: {example}", file=sys.stderr)
    return exitcodes.USAGE


def _report(args: argparse.Namespace, text: str, decision: Decision) -> int:
    if args.json:
        print(json.dumps(decision.to_json()))
    else:
        print(render(text, decision))
    return exitcodes.BY_VERDICT[decision.verdict]


class _GateOnce:
    """The gate for this run, made on first use (command lines never need one)."""

    def __init__(self, policy: str | None) -> None:
        self._policy = policy
        self._gate: Gate | None = None

    def get(self) -> Gate:
        if self._gate is None:
            from redline.gatekeeper import Gate

            self._gate = Gate.from_environ(policy_path=self._policy)
        return self._gate


def judge_line(line: dict[str, Any]) -> Decision:
    from redline.command import check_command

    command = line.get("command")
    cwd = line.get("cwd")
    if not isinstance(command, str):
        raise ValueError('each line needs a string "command" or a "tool"')
    if cwd is not None and not isinstance(cwd, str):
        raise ValueError('"cwd" must be a string')
    return check_command(command, cwd=cwd)


def judge_tool_line(line: dict[str, Any], gate: Gate) -> Decision:
    from redline.gate.actions import ToolCall

    tool, args = line.get("tool"), line.get("args", {})
    if not isinstance(tool, str):
        raise ValueError('"tool" must be a string')
    if not isinstance(args, dict):
        raise ValueError('"args" must be a JSON object')
    for key in ("cwd", "context", "session"):
        if line.get(key) is not None and not isinstance(line[key], str):
            raise ValueError(f'"{key}" must be a string')
    call = ToolCall(tool, args, line.get("cwd"), line.get("context"), line.get("session"))
    return gate.check(call)


def judge_any_line(line: dict[str, Any], gates: _GateOnce) -> Decision:
    if "tool" in line:
        return judge_tool_line(line, gates.get())
    return judge_line(line)


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
    if decision.code:
        head += f" [{decision.code}]"
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
    lines.extend(f"  note: {note}" for note in decision.notes)
    return "\n".join(lines)
