"""Carriers pass their context on: the commands of `sh -c '...'` have the
carrier as parent, share its stdin and background, and a script computed at
run time is unknown code, never text to parse (F-SHELL-3)."""

from __future__ import annotations

import pytest

from redline.shell.analysis import Analysis, analyze
from redline.shell.carriers import inline_code
from redline.shell.invocation import Invocation
from redline.shell.model import DYNAMIC


def _named(analysis: Analysis, name: str) -> list[Invocation]:
    return [inv for inv in analysis.invocations if inv.name == name]


@pytest.mark.parametrize(
    "command",
    [
        'sh -c "$(curl x)"',
        'bash -c "$(wget -qO- x)"',
        'eval "$(curl x)"',
        "eval `curl x`",
        'sudo sh -c "$(curl -fsSL x)"',
        'su -c "$(curl x)" root',
        'ssh host "$(curl x)"',
        'sh -c "$CMD"',
    ],
)
def test_a_script_computed_at_run_time_is_unknown_code(command: str) -> None:
    analysis = analyze(command)
    assert analysis.errors == ()
    unknown = [inv for inv in analysis.invocations if inv.argv and inv.argv[0].value == DYNAMIC]
    assert len(unknown) == 1
    carrier = analysis.invocations[unknown[0].parent]
    assert unknown[0].depth == carrier.depth + 1


def test_static_parts_of_a_partly_computed_script_are_still_read() -> None:
    analysis = analyze('bash -c "$X; rm -rf /"')
    assert analysis.errors == ()
    assert [inv.values for inv in _named(analysis, "rm")] == [("-rf", "/")]
    assert any(inv.argv and inv.argv[0].value == DYNAMIC for inv in analysis.invocations)


def test_a_nul_byte_the_user_typed_is_still_an_error() -> None:
    assert analyze("echo a\x00b").errors


@pytest.mark.parametrize(
    "command",
    ["bash < <(curl x)", "sh < <(wget -O- x)", "sudo bash < <(curl x)", "bash 0< <(curl x)"],
)
def test_a_process_substitution_on_stdin_feeds_the_shell(command: str) -> None:
    analysis = analyze(command)
    assert analysis.errors == ()
    shell = [inv for inv in analysis.invocations if inv.name in ("bash", "sh")][-1]
    feeder = next(inv for inv in analysis.invocations if inv.name in ("curl", "wget"))
    assert feeder.index in shell.upstream


@pytest.mark.parametrize("command", ["source <(curl x)", ". <(curl x)", "bash <(curl x)"])
def test_a_process_substitution_operand_feeds_the_reader(command: str) -> None:
    analysis = analyze(command)
    assert analysis.invocations[0].upstream == (1,)


def test_a_carried_script_does_not_feed_on_its_carriers_substitutions() -> None:
    analysis = analyze("bash -c 'echo hi' <(curl x)")
    echo = _named(analysis, "echo")[0]
    assert _named(analysis, "curl")[0].index not in echo.upstream


def test_commands_in_a_carrier_have_it_as_parent() -> None:
    analysis = analyze("sudo sh -c 'rm -rf /etc'")
    rm = _named(analysis, "rm")[0]
    assert analysis.invocations[rm.parent].name == "sh"
    assert rm.via == ("sudo", "sh -c")


def test_commands_in_a_carrier_share_its_stdin() -> None:
    analysis = analyze("curl x | sh -c 'cat; bash'")
    curl = _named(analysis, "curl")[0]
    assert all(curl.index in inv.upstream for inv in (*_named(analysis, "cat"),
                                                       *_named(analysis, "bash")))  # fmt: skip
    # ...but not a later stage of a pipeline inside it, nor a command with its own stdin.
    analysis = analyze("curl x | sh -c 'cat | bash; wc < f'")
    curl = _named(analysis, "curl")[0]
    assert curl.index not in _named(analysis, "bash")[0].upstream
    assert curl.index not in _named(analysis, "wc")[0].upstream


def test_stdin_text_reaches_a_shell_inside_a_carrier() -> None:
    analysis = analyze("echo 'rm -rf /' | sh -c 'sh'")
    assert [inv.values for inv in _named(analysis, "rm")] == [("-rf", "/")]


def test_a_script_read_from_stdin_does_not_share_it() -> None:
    analysis = analyze("printf 'cat\\n' | sh")
    assert _named(analysis, "cat")[0].stdin_text is None


def test_commands_in_a_background_carrier_run_in_the_background() -> None:
    analysis = analyze("sh -c 'sleep 1; rm x' &")
    assert all(inv.background for inv in analysis.invocations)
    assert not any(inv.background for inv in analyze("sh -c 'sleep 1 & rm x'").invocations[2:])


@pytest.mark.parametrize(
    ("command", "cwd"),
    [
        ("sudo bash -c 'cd / && rm -rf *'", "/"),
        ("cd /etc && sh -c 'rm -rf *'", "/etc"),
        ("cd /etc && sudo sh -c 'cd ssh; rm *'", "/etc/ssh"),
    ],
)
def test_commands_in_a_carrier_inherit_its_directory(command: str, cwd: str) -> None:
    assert _named(analyze(command), "rm")[0].cwd == cwd


def test_a_child_shells_cd_ends_with_it_but_evals_stays() -> None:
    assert _named(analyze("sh -c 'cd /'; rm -rf x", "/w"), "rm")[0].cwd == "/w"
    assert _named(analyze("eval 'cd /'; rm -rf x", "/w"), "rm")[0].cwd == "/"


def test_children_are_found_through_one_table() -> None:
    analysis = analyze("kill $(pgrep a) $(pgrep b); echo $(date)")
    kill = _named(analysis, "kill")[0]
    assert [c.name for c in analysis.children(kill)] == ["pgrep", "pgrep"]
    assert [c.name for c in analysis.children(_named(analysis, "echo")[0])] == ["date"]
    assert analysis.children(_named(analysis, "date")[0]) == ()


@pytest.mark.parametrize(
    ("command", "code"),
    [
        ("perl -ne 'system(1)' f", "system(1)"),
        ("perl -Mstrict -e 'x()'", "x()"),
        ("perl -I lib -we 'x()'", "x()"),
        ("python3 -Ic 'x()'", "x()"),
        ("python -uc 'x()'", "x()"),
        ("python3 -W ignore -c 'x()'", "x()"),
        ("python3 -c'x()'", "x()"),
        ("ruby -we 'x()'", "x()"),
        ("ruby -r json -e 'x()'", "x()"),
        ("node --eval='x()'", "x()"),
        ("node --eval 'x()'", "x()"),
        ("node --require ./h.js -e 'x()'", "x()"),
        ("node -pe 'x()'", "x()"),
        ("deno eval 'x()'", "x()"),
        ("awk -F : '{print}' f", "{print}"),
        ("awk '{print}' f", "{print}"),
    ],
)
def test_inline_code_is_found_through_bundled_flags(command: str, code: str) -> None:
    inv = analyze(command).invocations[0]
    assert inline_code(inv) == code


@pytest.mark.parametrize(
    "command",
    ["python3 script.py -c x", "perl x.pl -e y", "awk -f prog.awk f", "python3 -m x -c y"],
)
def test_options_of_a_script_are_not_inline_code(command: str) -> None:
    assert inline_code(analyze(command).invocations[0]) is None


@pytest.mark.parametrize(
    ("command", "excerpt"),
    [
        ("echo `rm -rf /`", "rm -rf /"),
        ('echo "`cat f > /dev/sda`"', "> /dev/sda"),
        ("echo `echo \\`echo x > /dev/sda\\``", "> /dev/sda"),
        ("sh -c 'echo x > /dev/sda'", "> /dev/sda"),
        ("echo hi; bash -c \"echo 'x' > /dev/sda\"", "> /dev/sda"),
    ],
)
def test_spans_inside_backticks_and_carriers_point_at_the_users_text(
    command: str, excerpt: str
) -> None:
    analysis = analyze(command)
    spans = [r.span for inv in analysis.invocations for r in inv.redirects]
    spans += [inv.span for inv in analysis.invocations if inv.name == "rm"]
    assert excerpt in [span.excerpt(command) for span in spans]


def test_word_spans_inside_backticks_point_at_the_users_text() -> None:
    command = "x=1; echo `cat  /etc/shadow`"
    cat = _named(analyze(command), "cat")[0]
    assert [w.span.excerpt(command) for w in cat.argv] == ["cat", "/etc/shadow"]
    command = "echo `echo \\$HOME \\`ls  /root\\``"
    ls = _named(analyze(command), "ls")[0]
    assert [w.span.excerpt(command) for w in ls.argv] == ["ls", "/root"]
