"""`redline policy lint|test [FILE]`: check a policy file, or run its examples."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from redline.cli import exitcodes

if TYPE_CHECKING:
    from redline.policy.selfcheck import Report

_DESCRIPTION = (
    "Check a policy file (lint) or run the examples its rules carry (test). FILE defaults "
    "to the policy the gate would use. Exit codes: 0 ok, 6 problems found, 2 usage."
)


def add_parser(sub: Any, name: str, help_text: str) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(name, help=help_text, description=_DESCRIPTION)
    actions = parser.add_subparsers(dest="policy_action", metavar="ACTION")
    for action, text in (
        ("lint", "check structure, names and values, with file:line for each problem"),
        ("test", "lint, then run every example the policy's rules carry"),
    ):
        child = actions.add_parser(action, help=text, description=text)
        child.add_argument("file", nargs="?", help="the policy file")
        child.add_argument("--json", action="store_true", help="print one JSON object")
        child.set_defaults(handler=run, policy_action=action)
    parser.set_defaults(handler=_no_action)


def _no_action(args: argparse.Namespace) -> int:
    print("error: name an action\n  help: `redline policy lint FILE`", file=sys.stderr)
    return exitcodes.USAGE


def _target(file: str | None) -> str:
    if file:
        return file
    from redline.home import configured_policy
    from redline.policy.load import default_policy_path

    return configured_policy() or default_policy_path()


def run(args: argparse.Namespace) -> int:
    from redline.policy import selfcheck

    path = _target(args.file)
    report = selfcheck.test(path) if args.policy_action == "test" else selfcheck.lint(path)
    if args.json:
        print(json.dumps(_json(report)))
    else:
        print(_text(report, args.policy_action))
    return exitcodes.ALLOW if report.ok else exitcodes.POLICY_FAILED


def _text(report: Report, action: str) -> str:
    lines = [issue.render(report.source) for issue in report.issues]
    policy = report.policy
    if policy is None:
        lines.append(f"{report.source}: the policy cannot be loaded")
        return "\n".join(lines)
    examples = sum(len(r.examples) for r in policy.rules)
    if action == "test":
        failed = sum(not r.passed for r in report.results)
        lines.append(f"{report.source}: {len(report.results)} examples, {failed} failed")
    else:
        errors = sum(not i.warning for i in report.issues)
        state = "ok" if report.ok else f"{errors} problems"
        lines.append(f"{report.source}: {state} ({len(policy.rules)} rules, {examples} examples)")
    return "\n".join(lines)


def _json(report: Report) -> dict[str, Any]:
    return {
        "file": report.source,
        "ok": report.ok,
        "issues": [
            {
                "line": i.line,
                "level": "warning" if i.warning else "error",
                "message": i.message,
                "help": i.help,
            }
            for i in report.issues
        ],
        "examples": [
            {
                "rule": r.rule_id,
                "line": r.example.line,
                "tool": r.example.tool,
                "expect": str(r.example.expect),
                "got": str(r.decision.verdict),
                "code": r.decision.code,
                "passed": r.passed,
            }
            for r in report.results
        ],
    }
