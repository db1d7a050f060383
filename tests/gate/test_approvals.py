"""Approval scopes: once, session, always (F-GATE-6)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from redline.decision import Verdict
from redline.gate.actions import ToolCall
from redline.gatekeeper import Gate
from redline.policy import allowlist as allowlist_module
from redline.rules.catalog import resolve

PUSH = "git push --force origin feature"
ASK_DEPLOY = "version: 1\nrules:\n  - {id: ask-deploy, verdict: ask, match: {program: deploy}}\n"


def run(command: str, session: str = "s1") -> ToolCall:
    return ToolCall("terminal", {"command": command, "workdir": "/srv/app"}, session=session)


def test_once_approves_nothing_more(gate: Gate) -> None:
    assert gate.check(run(PUSH)).verdict is Verdict.ASK
    assert gate.record_outcome("s1", run(PUSH), "approved", "once") == ()
    assert gate.check(run(PUSH)).verdict is Verdict.ASK


def test_session_approval_covers_the_same_command_in_that_session_only(gate: Gate) -> None:
    grants = gate.record_outcome("s1", run(PUSH), "approved", "session")
    assert grants == (
        ("vcs.push-force", ("run", "git", "--force", "--", "push", "origin", "feature")),
    )
    again = gate.check(run(PUSH))
    assert (again.verdict, again.rule_ids, again.notes) == (
        Verdict.ALLOW,
        ("vcs.push-force",),
        ("`vcs.push-force` was approved before (session)",),
    )
    assert gate.check(run(PUSH, session="s2")).verdict is Verdict.ASK


@pytest.mark.parametrize(
    "other",
    [
        "git push --force origin main",  # another branch
        "git push --force origin feature main",  # and more
        "git push -f origin feature",  # another spelling of the flag asks again
        "rm -rf /srv/app/build",  # anything else a rule flags
        "git push --force --all origin feature",
    ],
)
def test_an_approval_is_keyed_by_rule_and_exact_command(gate: Gate, other: str) -> None:
    gate.record_outcome("s1", run(PUSH), "approved", "always")
    decision = gate.check(run(other, session="s9"))
    assert not any("approved before" in note for note in decision.notes), decision


def test_always_is_saved_to_the_allowlist_and_survives_a_new_gate(
    make_gate: Callable[..., Gate],
) -> None:
    gate = make_gate(ASK_DEPLOY)
    gate.record_outcome("s1", run("deploy --prod web"), "approved", "always")
    data = json.loads(Path(gate.allowlist.path).read_text())
    assert [(e["rule"], e["subject"], e["note"]) for e in data["entries"]] == [
        ("policy:ask-deploy", ["run", "deploy", "--prod", "--", "web"], "deploy --prod web")
    ]
    fresh = make_gate(ASK_DEPLOY)
    decision = fresh.check(run("deploy --prod web", session="other"))
    assert (decision.verdict, decision.notes) == (
        Verdict.ALLOW,
        ("`policy:ask-deploy` was approved before (always)",),
    )
    assert fresh.check(run("deploy --prod api", session="other")).verdict is Verdict.ASK


def test_always_is_written_once(make_gate: Callable[..., Gate]) -> None:
    gate = make_gate(ASK_DEPLOY)
    for _ in range(3):
        gate.record_outcome("s1", run("deploy web"), "approved", "always")
    assert len(json.loads(Path(gate.allowlist.path).read_text())["entries"]) == 1


def test_file_tool_approvals_are_keyed_by_path(make_gate: Callable[..., Gate]) -> None:
    gate = make_gate(
        "version: 1\nrules:\n  - {id: ask-etc, verdict: ask, match: {kind: write, path: /etc/**}}\n"
    )
    hosts = ToolCall("write_file", {"path": "/etc/hosts", "content": "x"}, session="s1")
    gate.record_outcome(None, hosts, "approved", "session")
    assert gate.check(hosts).verdict is Verdict.ALLOW
    other = ToolCall("write_file", {"path": "/etc/passwd", "content": "x"}, session="s1")
    assert gate.check(other).verdict is Verdict.ASK


def test_old_rule_ids_in_the_allowlist_are_honoured(
    make_gate: Callable[..., Gate], monkeypatch: pytest.MonkeyPatch
) -> None:
    rule = resolve("vcs.push-force")
    assert rule is not None

    def renamed(rule_id: str) -> object:
        return rule if rule_id == "git.force-push-old-name" else resolve(rule_id)

    monkeypatch.setattr(allowlist_module, "resolve", renamed)
    gate = make_gate()
    subject = ["run", "git", "--force", "--", "push", "origin", "feature"]
    Path(gate.allowlist.path).parent.mkdir(parents=True, exist_ok=True)
    Path(gate.allowlist.path).write_text(
        json.dumps(
            {"version": 1, "entries": [{"rule": "git.force-push-old-name", "subject": subject}]}
        )
    )
    assert gate.check(run(PUSH)).verdict is Verdict.ALLOW


def test_never_lifts_a_hard_line_or_a_never_run_kind(gate: Gate) -> None:
    Path(gate.allowlist.path).parent.mkdir(parents=True, exist_ok=True)
    Path(gate.allowlist.path).write_text(
        json.dumps(
            {
                "version": 1,
                "entries": [
                    {"rule": "hardline.rm-root", "subject": ["run", "rm", "-f", "-r", "--", "/"]},
                    {"rule": "never-run.credentials", "subject": ["read", "/home/me/.ssh/id_rsa"]},
                ],
            }
        )
    )
    assert gate.allowlist.grants() == frozenset()
    for call in (run("rm -rf /"), ToolCall("read_file", {"path": "/home/me/.ssh/id_rsa"})):
        assert gate.record_outcome("s1", call, "approved", "always") == ()
        assert gate.check(call).verdict is Verdict.DENY
    assert (
        json.loads(Path(gate.allowlist.path).read_text())["entries"][0]["rule"]
        == "hardline.rm-root"
    )
