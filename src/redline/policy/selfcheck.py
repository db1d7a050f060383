"""`redline policy lint` and `redline policy test`: a policy checks itself.

Each policy rule may carry examples (a tool call and the verdict the whole
policy must give it); they run with a fresh session, no approvals, and the
default places (home `/root`, Hermes home `~/.hermes`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from redline.decision import Decision
from redline.gate.actions import ToolCall
from redline.gate.context import CallContext, ContextKind
from redline.gate.engine import evaluate
from redline.gate.never_run import Guard
from redline.gate.protected import Places
from redline.policy.load import Issue, PolicyError, load_policy
from redline.policy.model import Example, Policy


@dataclass(frozen=True, slots=True)
class ExampleResult:
    rule_id: str
    example: Example
    decision: Decision

    @property
    def passed(self) -> bool:
        expected = self.example
        if self.decision.verdict is not expected.expect:
            return False
        return expected.code is None or self.decision.code == expected.code

    def issue(self) -> Issue:
        expected, got = self.example, self.decision
        want = f"{expected.expect}" + (f" ({expected.code})" if expected.code else "")
        have = f"{got.verdict}" + (f" ({got.code})" if got.code else "")
        return Issue(
            expected.line,
            f"example for rule `{self.rule_id}` expects {want}, but the policy gives {have}",
            f"the policy said: {got.reason}" if got.reason else "check the rule's `match`",
        )


def example_guard(policy: Policy) -> Guard:
    return Guard.build(
        Places(
            hermes_home=policy.hermes_home or "~/.hermes",
            approval_port=policy.approval_port,
            approval_socket=policy.approval_socket,
        )
    )


def run_examples(policy: Policy) -> tuple[ExampleResult, ...]:
    guard = example_guard(policy)
    results: list[ExampleResult] = []
    for rule in policy.rules:
        for example in rule.examples:
            call = ToolCall(example.tool, example.args, example.cwd, example.context)
            ctx = CallContext(ContextKind(example.context or "interactive"), "policy-test")
            decision = evaluate(call, ctx, policy, guard).decision
            results.append(ExampleResult(rule.id, example, decision))
    return tuple(results)


def example_issues(policy: Policy) -> list[Issue]:
    return [r.issue() for r in run_examples(policy) if not r.passed]


@dataclass(frozen=True, slots=True)
class Report:
    """What lint or test found: the policy (if it loaded), problems, results."""

    source: str
    policy: Policy | None
    issues: tuple[Issue, ...]
    results: tuple[ExampleResult, ...] = ()

    @property
    def ok(self) -> bool:
        return (
            self.policy is not None
            and not any(not i.warning for i in self.issues)
            and all(r.passed for r in self.results)
        )


def lint(path: str | os.PathLike[str]) -> Report:
    """Structure, names and values; examples are left to `test`."""
    try:
        policy = load_policy(path, check_examples=False)
    except PolicyError as error:
        return Report(error.source, None, error.issues)
    return Report(os.fspath(path), policy, _warnings(policy))


def test(path: str | os.PathLike[str]) -> Report:
    report = lint(path)
    if report.policy is None:
        return report
    results = run_examples(report.policy)
    issues = report.issues + tuple(r.issue() for r in results if not r.passed)
    return Report(report.source, report.policy, issues, results)


def _warnings(policy: Policy) -> tuple[Issue, ...]:
    return tuple(
        Issue(line, message, help_text, True) for line, message, help_text in policy.warnings
    )
