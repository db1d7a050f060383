"""Properties of the command classifier, over generated input (F-SHELL-7)."""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from redline.command import check_command
from redline.decision import Verdict
from redline.shell.analysis import analyze

SHELLISH = st.text(
    alphabet=st.sampled_from(
        list(string.ascii_letters + string.digits + " \t\n;&|<>()'\"\\$`{}[]*?~#=-./_,!@%^")
    ),
    max_size=80,
)
WORDS = st.lists(
    st.sampled_from(
        [
            "rm",
            "-rf",
            "/",
            "ls",
            "echo",
            "sudo",
            "sh",
            "-c",
            "'",
            '"',
            "$(",
            ")",
            "|",
            ";",
            "&&",
            "eval",
            "{",
            "}",
            "if",
            "then",
            "fi",
            "<<",
            "EOF",
            "\n",
            "x",
            "~",
            "$HOME",
            "`",
            "bash",
            "find",
            "-delete",
            "xargs",
            "dd",
            "of=/dev/sda",
            ">",
        ]
    ),
    max_size=14,
).map(" ".join)
ANY_TEXT = st.text(max_size=60)


@settings(max_examples=400, deadline=None)
@given(st.one_of(SHELLISH, WORDS, ANY_TEXT))
def test_never_raises(command: str) -> None:
    decision = check_command(command)
    assert decision.verdict in (Verdict.ALLOW, Verdict.ASK, Verdict.DENY)


@settings(max_examples=400, deadline=None)
@given(st.one_of(SHELLISH, WORDS))
def test_unparsable_is_never_allowed(command: str) -> None:
    if analyze(command).errors:
        assert check_command(command).verdict >= Verdict.ASK


@settings(max_examples=300, deadline=None)
@given(st.one_of(SHELLISH, WORDS))
def test_appending_a_hard_line_never_lowers_the_verdict(command: str) -> None:
    before = check_command(command).verdict
    after = check_command(command + "\n; rm -rf /")
    assert after.verdict >= before
    assert after.verdict >= Verdict.ASK


@settings(max_examples=300, deadline=None)
@given(
    WORDS,
    st.sampled_from(["", " ", "  ", "\t", "\n", " \n\t "]),
    st.sampled_from(["", " ", "\n", "\t\n"]),
)
def test_surrounding_whitespace_does_not_change_the_verdict(
    command: str, before: str, after: str
) -> None:
    plain = check_command(command)
    padded = check_command(before + command + after)
    assert (padded.verdict, sorted(padded.rule_ids)) == (plain.verdict, sorted(plain.rule_ids))


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=400))
def test_deep_nesting_is_bounded_and_not_allowed(depth: int) -> None:
    for opener, closer in (("$(", ")"), ("(", ")"), ("{ ", "; }"), ("`", "`")):
        command = opener * depth + "ls" + closer * depth
        decision = check_command(command)
        assert decision.verdict in (Verdict.ALLOW, Verdict.ASK, Verdict.DENY)


HOSTILE = [
    "echo " + "a" * 1_000_000,
    "ls; " * 50_000,
    "$(" * 10_000 + "ls",
    "'" * 100_001,
    "{a,b}" * 40,
    "cat <<EOF\n" * 5_000,
    "x" + "\\" * 100_000,
    "`" * 9_999,
    "$((" * 5_000,
    "if " * 10_000,
    "f() { " * 3_000,
    "sh -c " * 3_000 + "ls",
    "echo ${" * 10_000,
    "a | " * 20_000 + "b",
]


def test_hostile_input_finishes_and_is_never_allowed_when_unparsable() -> None:
    """A hang guard, not a speed test: each input must finish at all."""
    import signal

    def hang(signum: int, frame: object) -> None:
        raise TimeoutError("classifier did not finish within 20 s")

    previous = signal.signal(signal.SIGALRM, hang)
    try:
        for command in HOSTILE:
            signal.alarm(20)
            decision = check_command(command)
            signal.alarm(0)
            if analyze(command).errors:
                assert decision.verdict >= Verdict.ASK, command[:40]
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
