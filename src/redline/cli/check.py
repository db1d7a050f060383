"""`redline check`: explain the verdict for a command or a tool call, or judge a batch.

`redline check` is started once per question, so its common command lines
are read by `checkargs.fast_args` without argparse; anything it is not sure
of (help, abbreviations, errors) goes to the argparse parser, which has the
last word. A command line is judged as an installed hook judges a terminal
call in the current directory (or `--cwd`): the policy given, configured or
shipped, and the never-run kinds; `--rules-only` gives the rules' verdict
alone. A policy that cannot be loaded stops it (exit 6, naming `file:line`).
With `--record` every verdict is appended to the approval log first; a log
that cannot be written turns the verdict into a deny (`log-unavailable`).
"""

from __future__ import annotations

import os
import sys

from redline.cli import exitcodes
from redline.decision import Decision, Verdict

TYPE_CHECKING = False  # not `typing`'s: `redline check ls` starts without it (ADR 0004)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Iterator
    from types import SimpleNamespace
    from typing import Any, TextIO

    from redline.audit.store import Store
    from redline.gatekeeper import Gate

    Args = argparse.Namespace | SimpleNamespace

    # Judges one parsed batch line; raises ValueError for a malformed one.
    LineJudge = Callable[[dict[str, Any]], Decision]


def add_parser(sub: Any, name: str, help_text: str) -> None:
    import argparse

    parser: argparse.ArgumentParser = sub.add_parser(
        name,
        help=help_text,
        description="Judge a shell command or a tool call. The command may be quoted "
        "(`redline check 'rm -rf /'`) or not (`redline check rm -rf /`); after its first "
        "word only check's own long options, spelled in full, are read as options, and "
        "after `--` none are.",
        epilog=exitcodes.epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
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
    parser.add_argument(
        "--rules-only",
        action="store_true",
        help="judge a command line by the rules alone (no policy, no never-run checks); "
        "without it a command is judged as an installed hook judges a terminal call",
    )
    parser.add_argument(
        "--record",
        action="store_true",
        help="append each verdict to the approval log ($REDLINE_STORE, else $REDLINE_HOME); "
        "a log that cannot be written makes the verdict a deny (`log-unavailable`)",
    )
    parser.set_defaults(handler=run)


def run(args: Args) -> int:
    try:
        return _run(args)
    except Exception as error:
        # Imported here: the policy loader is not needed to judge a command line.
        from redline.policy.load import PolicyError

        if not isinstance(error, PolicyError):
            raise
        print(f"error: the gate cannot start\n{error}", file=sys.stderr)
        return exitcodes.POLICY_FAILED


def _collect_again() -> None:
    """A batch judges many lines: the cyclic collector a check process starts
    without (`cli.main._check_process`) runs again, past what is loaded."""
    import gc

    if not gc.isenabled():
        gc.freeze()
        gc.enable()


def _run(args: Args) -> int:
    from redline.home import configured_policy

    gates = _GateOnce(args.policy or configured_policy())
    if gates.policy is not None:
        gates.get()  # a broken policy stops every path before any verdict
    log = _Log(args.context, args.session) if args.record else None
    if args.batch:
        _collect_again()
        rules_only = getattr(args, "rules_only", False)
        judge = lambda line: judge_any_line(line, gates, rules_only)  # noqa: E731
        try:
            return run_batch(sys.stdin, sys.stdout, judge if log is None else log.judging(judge))
        finally:
            if log is not None:
                log.close()
    if args.tool is not None:
        import json

        try:
            tool_args = json.loads(args.args)
        except ValueError as error:
            return _usage(f"`--args` is not JSON: {error}", '`--args \'{"path": "/tmp/x"}\'`')
        if not isinstance(tool_args, dict):
            return _usage("`--args` must be a JSON object", '`--args \'{"path": "/tmp/x"}\'`')
        line = {"tool": args.tool, "args": tool_args, "cwd": args.cwd, "context": args.context,
                "session": args.session}  # fmt: skip
        text = tool_args.get("command") if isinstance(tool_args.get("command"), str) else ""
        decision = judge_tool_line(line, gates.get())
    elif args.command is None:
        return _usage("no command given", "`redline check 'rm -rf build'`")
    elif getattr(args, "rules_only", False):
        from redline.command import check_command

        line = {"command": args.command, "cwd": args.cwd}
        text, decision = args.command, check_command(args.command, cwd=args.cwd)
    else:
        # What an installed hook would say: a terminal call in this directory,
        # through the policy and the never-run kinds (one verdict everywhere).
        bash = {"tool": "Bash", "args": {"command": args.command},
                "cwd": args.cwd or os.getcwd(), "context": args.context,
                "session": args.session}  # fmt: skip
        line = {"command": args.command, "cwd": bash["cwd"]}
        text, decision = args.command, judge_tool_line(bash, gates.get())
    if log is not None:
        decision = log.record_once(line, decision)
    return _report(args, str(text), decision)


def _usage(message: str, example: str) -> int:
    print(f"error: {message}\n  help: {example}", file=sys.stderr)
    return exitcodes.USAGE


def _report(args: Args, text: str, decision: Decision) -> int:
    if args.json:
        import json

        print(json.dumps(decision.to_json()))
    else:
        print(render(text, decision))
    return exitcodes.BY_VERDICT[decision.verdict]


class _GateOnce:
    """The gate for this run, made on first use (command lines never need one)."""

    def __init__(self, policy: str | None) -> None:
        self.policy = policy
        """The policy given or configured; `None`: the one that ships with redline."""
        self._gate: Gate | None = None

    def get(self) -> Gate:
        if self._gate is None:
            from redline.gatekeeper import Gate

            self._gate = Gate.from_environ(policy_path=self.policy)
        return self._gate


AGENT = "cli"
"""The agent named in the log for calls judged by `redline check --record`."""
COMMAND_TOOL = "command"
"""The tool named in the log for a bare command line (not a tool call)."""


class _Log:
    """The approval log for `--record`: opened on first use, kept for a batch,
    and opened again after a failure (the next verdict retries it)."""

    def __init__(self, context: str | None, session: str | None) -> None:
        self._context, self._session = context, session
        self._store: Store | None = None

    def record(self, line: dict[str, Any], decision: Decision) -> Decision:
        """`decision` once it is in the log; a deny (`log-unavailable`) if it
        cannot be written: no verdict of redline's goes unrecorded."""
        from redline.audit.recorder import (
            LogUnavailable,
            deny_log_unavailable,
            open_log,
            record_decision,
        )

        if "tool" in line:
            tool, call_args = str(line["tool"]), line.get("args") or {}
        else:
            tool = COMMAND_TOOL
            call_args = {key: line[key] for key in ("command", "cwd") if line.get(key) is not None}
        try:
            if self._store is None:
                self._store = open_log()
            record_decision(
                self._store,
                session=line.get("session") or self._session,
                context=line.get("context") or self._context,
                agent=AGENT,
                tool=tool,
                args=call_args,
                decision=decision,
            )
        except LogUnavailable as error:
            self.close()
            denied = deny_log_unavailable(error)
            return denied._replace(context=decision.context, hits=decision.hits)
        return decision

    def record_once(self, line: dict[str, Any], decision: Decision) -> Decision:
        try:
            return self.record(line, decision)
        finally:
            self.close()

    def judging(self, judge: LineJudge) -> LineJudge:
        """`judge`, each verdict recorded; a malformed line is judged by no one
        (the batch denies it) and so is not recorded."""
        return lambda line: self.record(line, judge(line))

    def close(self) -> None:
        store, self._store = self._store, None
        if store is not None:
            store.close()


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


def judge_any_line(line: dict[str, Any], gates: _GateOnce, rules_only: bool = False) -> Decision:
    if "tool" in line:
        return judge_tool_line(line, gates.get())
    if rules_only:
        return judge_line(line)
    command, cwd = line.get("command"), line.get("cwd")
    if not isinstance(command, str):
        raise ValueError('each line needs a string "command" or a "tool"')
    if cwd is not None and not isinstance(cwd, str):
        raise ValueError('"cwd" must be a string')
    bash = {"tool": "Bash", "args": {"command": command}, "cwd": cwd or os.getcwd()}
    return judge_tool_line(bash, gates.get())


def run_batch(stdin: TextIO, stdout: TextIO, judge: LineJudge) -> int:
    """One JSON object out per line in, in order; a bad line is denied, and the
    batch goes on: nothing in a line (JSON nested past `MAX_DEPTH`, bytes that
    are not UTF-8, input that breaks the gate) ends it, except a broken policy."""
    import json

    from redline.jsoninput import loads

    for number, raw in enumerate(_lines(stdin), 1):
        if isinstance(raw, str) and not raw.strip():
            continue
        try:
            if not isinstance(raw, str):
                raise ValueError("the line is not UTF-8 text")
            line = loads(raw)
            if not isinstance(line, dict):
                raise ValueError("each line must be a JSON object")
            out: dict[str, Any] = judge(line).to_json()
        except (ValueError, TypeError) as error:
            out = _denied_line(number, str(error))
        except RecursionError:
            out = _denied_line(number, "it is nested too deeply to judge")
        except Exception as error:
            from redline.policy.load import PolicyError

            if isinstance(error, PolicyError):
                raise
            out = _denied_line(number, f"the gate failed on it ({type(error).__name__}: {error})")
        stdout.write(json.dumps(out) + "\n")
        stdout.flush()
    return exitcodes.ALLOW


def _lines(stdin: TextIO) -> Iterator[str | bytes]:
    """The lines of `stdin`, decoded one by one: a line that is not UTF-8 comes
    as its bytes (denied) instead of ending the batch."""
    binary = getattr(stdin, "buffer", None)
    if binary is None:
        yield from stdin
        return
    for raw in binary:
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError:
            yield raw


def _denied_line(number: int, problem: str) -> dict[str, Any]:
    return {"verdict": "deny", "hardline": False, "rules": [], "reason": "",
            "error": f"line {number}: {problem}"}  # fmt: skip


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
