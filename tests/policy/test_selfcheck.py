"""A policy's rules carry examples; `test` runs them and pins each result."""

from __future__ import annotations

from pathlib import Path

from redline.decision import Verdict
from redline.policy import selfcheck
from redline.policy.load import Issue, default_policy_path
from redline.policy.selfcheck import lint, run_examples

POLICY = """version: 1
rules:
  - id: ask-send
    verdict: ask
    match: {tool: send_message}
    examples:
      - tool: send_message
        args: {target: "telegram:1", message: hi}
        expect: ask
      - tool: send_message
        args: {target: "telegram:1", message: hi}
        context: cron
        expect: deny
        code: no-approver
      - tool: send_message
        args: {target: "telegram:1", message: hi}
        expect: allow
"""


def test_the_shipped_policy_passes_its_own_examples() -> None:
    report = selfcheck.test(default_policy_path())
    assert report.ok and report.issues == ()
    assert len(report.results) >= 10 and all(r.passed for r in report.results)


def test_each_example_is_pinned_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(POLICY)
    report = selfcheck.test(path)
    assert [
        (r.example.line, r.decision.verdict, r.decision.code, r.passed) for r in report.results
    ] == [
        (7, Verdict.ASK, None, True),
        (10, Verdict.DENY, "no-approver", True),
        (15, Verdict.ASK, None, False),
    ]
    assert report.issues == (
        Issue(
            15,
            "example for rule `ask-send` expects allow, but the policy gives ask",
            "the policy said: policy rule `ask-send` says ask for this call",
        ),
    )
    assert not report.ok


def test_lint_leaves_examples_to_test(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(POLICY)
    report = lint(path)
    assert (report.ok, report.issues, report.results) == (True, (), ())


def test_lint_reports_a_policy_that_does_not_load(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("version: 1\nrulez: []\n")
    report = lint(path)
    assert (report.ok, report.policy) == (False, None)
    assert report.issues == (
        Issue(2, "unknown key `rulez` in the policy", "did you mean `rules`?"),
    )


def test_examples_run_in_a_fresh_session(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(POLICY)
    policy = lint(path).policy
    assert policy is not None
    assert run_examples(policy) == run_examples(policy)
