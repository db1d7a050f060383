"""A rejected effect is refused for the session, however it is spelled again;
a timed-out one is asked again (F-GATE-7)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from redline.decision import Verdict
from redline.gate.actions import ToolCall
from redline.gatekeeper import Gate

POLICY = (
    "version: 1\nrules:\n"
    "  - {id: ask-rm, verdict: ask, match: {program: rm}}\n"
    "  - {id: ask-etc, verdict: ask, match: {kind: [write, patch], path: /etc/**}}\n"
    "  - {id: ask-send, verdict: ask, match: {tool: send_message}}\n"
)
REJECTED = (
    "the owner rejected this same effect earlier in this session (`{summary}`); "
    "another tool, path or spelling does not change that"
)
REJECTED_REPAIR = (
    "do not try again; tell the owner plainly that it was not done because they declined it"
)


@pytest.fixture
def gate(make_gate: Callable[..., Gate]) -> Gate:
    return make_gate(POLICY)


def bash(command: str, session: str = "s1") -> ToolCall:
    return ToolCall("Bash", {"command": command}, cwd="/srv", session=session)


@pytest.mark.parametrize(
    "retry",
    [
        bash("rm -rf /tmp/x"),
        bash("/bin/rm -r -f /tmp/x/"),
        bash("rm --recursive --force /tmp/x"),
        bash("bash -c 'rm -rf /tmp/x'"),
        bash("cd /tmp && rm -rf x"),
        bash("sudo rm -rf /tmp//x"),
        ToolCall("terminal", {"command": "\\rm -rf '/tmp/x'", "workdir": "/"}, session="s1"),
        bash("find /tmp/x -delete"),  # the same tree, written through another program
    ],
)
def test_a_rejected_effect_is_refused_through_any_spelling(gate: Gate, retry: ToolCall) -> None:
    gate.record_outcome("s1", bash("rm -rf /tmp/x"), "rejected")
    decision = gate.check(retry)
    assert (decision.verdict, decision.code, decision.repair) == (
        Verdict.DENY,
        "rejected-before",
        REJECTED_REPAIR,
    )
    assert decision.reason == REJECTED.format(summary="rm -rf /tmp/x")


@pytest.mark.parametrize(
    "other",
    [bash("rm -rf /tmp/y"), bash("rm -rf /tmp/x", session="s2"), bash("ls /tmp/x")],
)
def test_other_effects_and_other_sessions_are_asked_as_usual(gate: Gate, other: ToolCall) -> None:
    gate.record_outcome("s1", bash("rm -rf /tmp/x"), "rejected")
    assert gate.check(other).code != "rejected-before"


@pytest.mark.parametrize(
    "retry",
    [
        ToolCall("Write", {"file_path": "/etc/hosts", "content": "y"}, cwd="/", session="s1"),
        ToolCall(
            "Edit",
            {"file_path": "/etc/hosts", "old_string": "a", "new_string": "b"},
            cwd="/",
            session="s1",
        ),
        bash("echo '1.2.3.4 x' >> /etc/hosts"),
        bash("sudo tee -a /etc/hosts < /tmp/h"),
        bash("sed -i s/a/b/ /etc/hosts"),
        bash("python3 -c \"open('/etc/hosts','a').write('x')\""),
        ToolCall("delegate_task", {"goal": "append a line to /etc/hosts"}, session="s1"),
    ],
)
def test_a_rejected_write_is_refused_through_another_tool(gate: Gate, retry: ToolCall) -> None:
    rejected = ToolCall("write_file", {"path": "/etc/hosts", "content": "x"}, session="s1")
    assert gate.check(rejected).verdict is Verdict.ASK
    gate.record_outcome(None, rejected, "rejected")
    assert gate.check(retry).code == "rejected-before"


def test_a_rejected_message_is_not_sent_again(gate: Gate) -> None:
    send = ToolCall("send_message", {"target": "telegram:1", "message": "hi"}, session="s1")
    gate.record_outcome(None, send, "rejected")
    again = ToolCall("send_message", {"target": "telegram:1", "message": "hello"}, session="s1")
    assert gate.check(again).code == "rejected-before"
    elsewhere = ToolCall("send_message", {"target": "telegram:2", "message": "hi"}, session="s1")
    assert gate.check(elsewhere).verdict is Verdict.ASK


def test_a_timeout_is_not_remembered_the_retry_is_asked_again(gate: Gate) -> None:
    gate.record_outcome("s1", bash("rm -rf /tmp/x"), "timeout")
    assert gate.check(bash("rm -r -f /tmp/x")).verdict is Verdict.ASK
    assert not gate.sessions.view("s1").memory


def test_a_timeout_keeps_an_earlier_rejection(gate: Gate) -> None:
    gate.record_outcome("s1", bash("rm -rf /tmp/x"), "rejected")
    gate.record_outcome("s1", bash("rm -rf /tmp/x"), "timeout")
    assert gate.check(bash("rm -rf /tmp/x")).code == "rejected-before"


def test_a_late_approval_lifts_the_memory(gate: Gate) -> None:
    gate.record_outcome("s1", bash("rm -rf /tmp/x"), "rejected")
    gate.record_outcome("s1", bash("rm -rf /tmp/x"), "approved", "once")
    assert gate.check(bash("rm -rf /tmp/x")).verdict is Verdict.ASK


def test_memory_lives_in_the_session_context(gate: Gate) -> None:
    from redline.gate import context

    with context.use_context("gateway", "chat-42"):
        gate.record_outcome(
            None, ToolCall("Bash", {"command": "rm -r /tmp/x"}, cwd="/"), "rejected"
        )
        assert gate.check(bash("rm -r /tmp/x", session="")).code == "rejected-before"
    assert gate.check(bash("rm -r /tmp/x", session="")).verdict is Verdict.ASK


def test_the_memory_can_be_listed_for_saving(gate: Gate) -> None:
    gate.record_outcome("s1", bash("rm -rf /tmp/x"), "rejected")
    (entry,) = gate.sessions.view("s1").memory.entries
    assert (entry.outcome, entry.fingerprint.summary, entry.fingerprint.writes) == (
        "rejected",
        "rm -rf /tmp/x",
        frozenset({"/tmp/x"}),
    )


def test_entries_lists_what_is_remembered_oldest_first() -> None:
    from redline.gate.memory import Fingerprint, Outcome, RejectionMemory

    memory = RejectionMemory()
    first = Fingerprint(
        frozenset({("write", "/etc/hosts")}), frozenset({"/etc/hosts"}), frozenset(), "a"
    )
    second = Fingerprint(
        frozenset({("read", "/etc/motd")}), frozenset(), frozenset({"/etc/motd"}), "b"
    )
    memory.remember(first, Outcome.REJECTED)
    memory.remember(second, Outcome.TIMEOUT)  # not a rejection: not remembered
    memory.remember(second, Outcome.REJECTED)
    assert [(e.fingerprint.summary, e.outcome) for e in memory.entries] == [
        ("a", Outcome.REJECTED),
        ("b", Outcome.REJECTED),
    ]
    assert memory.copy().entries == memory.entries
