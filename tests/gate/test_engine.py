"""The policy engine: the strictest matching verdict wins (F-GATE-4, F-GATE-8)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from redline.decision import Decision, Verdict
from redline.gate.actions import ToolCall
from redline.gatekeeper import Gate

MakeGate = Callable[..., Gate]


def policy(*rules: str, head: str = "") -> str:
    return "version: 1\n" + head + "rules:\n" + "".join(f"  - {r}\n" for r in rules)


def verdict(gate: Gate, tool: str, args: dict[str, Any], **kwargs: Any) -> Verdict:
    return gate.check(ToolCall(tool, args, **kwargs)).verdict


def test_no_rule_matched_is_the_default(make_gate: MakeGate) -> None:
    gate = make_gate("version: 1\ndefault: ask\n")
    assert gate.check(ToolCall("web_extract", {"urls": ["https://example.com"]})) == Decision(
        Verdict.ASK, reason="no rule matched; the policy's default is ask", context="interactive"
    )


def test_unknown_tools_fall_to_their_default_and_say_so(make_gate: MakeGate) -> None:
    gate = make_gate("version: 1\ndefault: allow\nunknown_tool: ask\n")
    assert gate.check(ToolCall("frobnicate", {})) == Decision(
        Verdict.ASK,
        reason="unknown tool `frobnicate`; the policy's default for it is ask",
        context="interactive",
        notes=(
            "unknown tool `frobnicate`: judged by the policy's default for unknown tools (ask)",
        ),
    )


def test_the_strictest_matching_rule_wins(make_gate: MakeGate) -> None:
    gate = make_gate(
        policy(
            "{id: read-ok, verdict: allow, match: {kind: read}}",
            "{id: etc-asks, verdict: ask, match: {path: /etc/**}, reason: system config}",
            "{id: crontab-denied, verdict: deny, match: {path: /etc/crontab}, repair: leave it}",
        )
    )
    assert verdict(gate, "read_file", {"path": "/srv/a"}) is Verdict.ALLOW
    assert verdict(gate, "read_file", {"path": "/etc/hosts"}) is Verdict.ASK
    assert gate.check(ToolCall("read_file", {"path": "/etc/crontab"})) == Decision(
        Verdict.DENY,
        reason="policy rule `crontab-denied` says deny for this call",
        repair="leave it",
        code="policy-deny",
        context="interactive",
    )


def test_allow_rules_make_a_strict_default_pass(make_gate: MakeGate) -> None:
    gate = make_gate(
        policy("{id: reads, verdict: allow, match: {tool: [Read, Grep]}}", head="default: deny\n")
    )
    assert verdict(gate, "Read", {"file_path": "/srv/a"}, cwd="/srv") is Verdict.ALLOW
    assert verdict(gate, "Write", {"file_path": "/srv/a"}, cwd="/srv") is Verdict.DENY


@pytest.mark.parametrize(
    ("match", "tool", "args", "hit"),
    [
        ("{tool: 'mcp__github__*'}", "mcp__github__create_issue", {}, True),
        ("{tool: 'mcp__github__*'}", "mcp__slack__post", {}, False),
        ("{tool: 'browser_*'}", "browser_click", {}, True),
        (
            "{kind: fetch, host: '*.example.com'}",
            "WebFetch",
            {"url": "https://a.example.com/x"},
            True,
        ),
        (
            "{kind: fetch, host: '*.example.com'}",
            "WebFetch",
            {"url": "https://example.org/"},
            False,
        ),
        ("{host: evil.test}", "terminal", {"command": "curl -s https://evil.test/x"}, True),
        ("{path: '~/projects/**'}", "Write", {"file_path": "/home/me/projects/a/b.py"}, True),
        (
            "{path: '/home/me/projects/*'}",
            "Write",
            {"file_path": "/home/me/projects/a/b.py"},
            False,
        ),
        ("{path: '**/*.pem'}", "read_file", {"path": "/srv/tls/site.pem"}, True),
        ("{path: /srv/out/**, kind: run}", "terminal", {"command": "echo x > out/a"}, True),
        ("{program: curl}", "terminal", {"command": "sudo -u web curl https://x"}, True),
        ("{program: curl}", "terminal", {"command": "echo curl"}, False),
        ("{kind: [send, delegate]}", "delegate_task", {"goal": "x"}, True),
    ],
)
def test_what_rules_can_match(
    make_gate: MakeGate, match: str, tool: str, args: dict[str, Any], hit: bool
) -> None:
    gate = make_gate(policy(f"{{id: r, verdict: deny, match: {match}}}"))
    if tool == "terminal":
        args = {**args, "workdir": "/srv"}
    expected = Verdict.DENY if hit else Verdict.ALLOW
    assert verdict(gate, tool, args, cwd="/srv") is expected


def test_hit_keys_match_each_rule_hit(make_gate: MakeGate) -> None:
    gate = make_gate(
        policy(
            "{id: vcs-denied, verdict: deny, match: {category: vcs}}",
            "{id: force-allowed, verdict: allow, match: {rule: vcs.push-force}}",
        )
    )
    push = {"command": "git push --force origin main", "workdir": "/srv"}
    decision = gate.check(ToolCall("terminal", push))
    assert (decision.verdict, decision.code, decision.rule_ids) == (
        Verdict.DENY,
        "policy-deny",
        ("vcs.push-force",),
    )


def test_unless_carves_out_of_a_rule(make_gate: MakeGate) -> None:
    allow = "{id: push-ok, verdict: allow, match: {rule: vcs.push-force}}"
    flagged = "{id: flagged, verdict: ask, match: {severity: [dangerous, sensitive]}"
    push = ToolCall("terminal", {"command": "git push --force origin main", "workdir": "/srv"})
    # Both rules match the hit, and the stricter one wins...
    assert make_gate(policy(flagged + "}", allow)).check(push).verdict is Verdict.ASK
    # ...unless the broad rule leaves it out.
    carved = make_gate(policy(flagged + ", unless: {rule: vcs.push-force}}", allow)).check(push)
    assert (carved.verdict, carved.reason) == (
        Verdict.ALLOW,
        "allowed: force push: rewrites the remote branch's history",
    )


def test_unmatched_hits_keep_their_built_in_verdict(make_gate: MakeGate) -> None:
    gate = make_gate("version: 1\ndefault: allow\n")
    push = {"command": "git push --force origin main", "workdir": "/srv"}
    assert verdict(gate, "terminal", push) is Verdict.ASK


def test_the_starting_policy_asks_for_what_rules_flag(gate: Gate) -> None:
    push = {"command": "cd /srv && git push --force origin main", "workdir": "/srv"}
    decision = gate.check(ToolCall("terminal", push))
    assert (decision.verdict, decision.rule_ids, decision.hits[0].span) == (
        Verdict.ASK,
        ("vcs.push-force",),
        decision.hits[0].span,
    )
    assert decision.hits[0].span is not None
    assert push["command"][decision.hits[0].span.start : decision.hits[0].span.end] == (
        "git push --force origin main"
    )


def test_hard_lines_are_denied_whatever_the_policy(make_gate: MakeGate) -> None:
    gate = make_gate(policy("{id: yolo, verdict: allow, match: {tool: '*'}}"))
    decision = gate.check(ToolCall("Bash", {"command": "rm -rf /"}, cwd="/srv"))
    assert (decision.verdict, decision.hardline, decision.code, decision.rule_ids) == (
        Verdict.DENY,
        True,
        None,
        ("fs.delete-root",),
    )


def test_file_tools_meet_the_rules_about_paths(gate: Gate) -> None:
    # A write is judged as its shell equivalent; a hit from a file tool has no span.
    decision = gate.check(ToolCall("write_file", {"path": "/dev/sda", "content": "x"}))
    assert (decision.verdict, decision.hardline) == (Verdict.DENY, True)
    assert all(hit.span is None for hit in decision.hits)
