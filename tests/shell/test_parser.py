"""F-SHELL-1 and F-SHELL-7: every simple command, any nesting, bounded."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from redline.decision import Span
from redline.shell import lexer
from redline.shell.model import DYNAMIC
from redline.shell.parser import Parser

Words = Callable[[str], list[list[str]]]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("a; b && c || d | e & f", [["a"], ["b"], ["c"], ["d"], ["e"], ["f"]]),
        ("a\nb\n\nc", [["a"], ["b"], ["c"]]),
        ("(a; b) | c", [["a"], ["b"], ["c"]]),
        ("{ a; b; } > out", [["a"], ["b"]]),
        ("echo $(a | b)", [["echo", DYNAMIC], ["a"], ["b"]]),
        ("echo `a`", [["echo", DYNAMIC], ["a"]]),
        ("diff <(a) >(b)", [["diff", "/dev/fd/" + DYNAMIC, "/dev/fd/" + DYNAMIC], ["a"], ["b"]]),
        ("f() { a; }; f", [["a"], ["f"]]),
        ("function g { a; }", [["a"]]),
        ("if a; then b; elif c; then d; else e; fi", [["a"], ["b"], ["c"], ["d"], ["e"]]),
        ("for x in 1 2; do a $x; done", [["a", "1"], ["a", "2"]]),
        ("for x in $(b); do a $x; done", [["b"], ["a", DYNAMIC]]),
        ("for ((i=0;i<3;i++)); do a; done", [["a"]]),
        ("while a; do b; done", [["a"], ["b"]]),
        ("until a; do b; done", [["a"], ["b"]]),
        ("case $x in y|z) a;; *) b;; esac", [["a"], ["b"]]),
        ("[[ -f $(a) ]] && b", [["a"], ["b"]]),
        ("echo $(( $(a) + 1 ))", [["echo", DYNAMIC], ["a"]]),
        ("x=$(a) y=2", [["a"]]),
        ("ls # ; rm -rf /", [["ls"]]),
        ("! a | b", [["a"], ["b"]]),
        ("time -p a", [["a"]]),
        ("a |& b", [["a"], ["b"]]),
        ("a &&\nb", [["a"], ["b"]]),
        ("echo \\\nhi", [["echo", "hi"]]),
    ],
)
def test_finds_every_simple_command(command_words: Words, command: str, expected: object) -> None:
    assert command_words(command) == expected


def test_words_after_a_redirect_belong_to_the_command(command_words: Words) -> None:
    assert command_words("rm >/dev/null -rf /") == [["rm", "-rf", "/"]]
    assert command_words("2>&1 rm -rf /") == [["rm", "-rf", "/"]]


def test_heredoc_body_is_data_and_the_line_continues() -> None:
    script = Parser("cat <<EOF | sh\nrm -rf /\nEOF\necho after").parse()
    first = script.commands[0]
    assert first.redirects[0].body == "rm -rf /\n"
    assert [[w.value for w in c.words] for c in script.commands] == [
        ["cat"],
        ["sh"],
        ["echo", "after"],
    ]
    assert script.errors == ()


def test_unquoted_heredoc_runs_its_substitutions(command_words: Words) -> None:
    assert command_words("cat <<EOF\n$(rm -rf x)\nEOF") == [["cat"], ["rm", "-rf", "x"]]
    assert command_words("cat <<'EOF'\n$(rm -rf x)\nEOF") == [["cat"]]


def test_tab_stripping_heredoc() -> None:
    script = Parser("cat <<-END\n\tline\n\tEND\necho ok").parse()
    assert script.commands[0].redirects[0].body == "\tline\n"
    assert script.errors == ()


def test_pipelines_record_positions() -> None:
    script = Parser("a | b | c; d").parse()
    assert [(c.pipeline, c.position) for c in script.commands] == [(0, 0), (0, 1), (0, 2), (-1, 0)]


def test_spans_point_into_the_text() -> None:
    text = "ls; sudo rm -rf /"
    script = Parser(text).parse()
    assert [c.span.excerpt(text) for c in script.commands] == ["ls", "sudo rm -rf /"]
    assert script.commands[1].words[2].span == Span(12, 15)


def test_function_definitions_are_recorded() -> None:
    script = Parser(":(){ :|:& };:").parse()
    assert [(f.name, f.forks, len(f.body)) for f in script.functions] == [(":", True, 2)]


@pytest.mark.parametrize(
    ("command", "error"),
    [
        ("echo 'open", "unterminated single quote at offset 5"),
        ('echo "open', "unterminated double quote"),
        ("echo $(ls", "command substitution is never closed"),
        ("echo `ls", "unterminated backtick at offset 5"),
        ("if true; then a", "`if` is never closed"),
        ("a; fi", "`fi` does not close an open block"),
        ("cat <<EOF\nbody", "heredoc `EOF` is never closed"),
        ("a |", "`|` with no command after it"),
        ("&& a", "`&&` with no command before it"),
        ("echo )", "unexpected `)` at offset 5"),
        ("a\x00b", "command contains a NUL byte"),
        ("echo >", "redirect `>` has no target"),
    ],
)
def test_malformed_input_is_an_error_not_a_crash(command: str, error: str) -> None:
    assert error in Parser(command).parse().errors


def test_nesting_is_bounded() -> None:
    deep = "$(" * 5000 + "ls" + ")" * 5000
    errors = Parser("echo " + deep).parse().errors
    assert f"command nests deeper than {lexer.MAX_NESTING} levels" in errors


def test_oversized_input_is_refused() -> None:
    script = Parser("a" * (lexer.MAX_INPUT_CHARS + 1)).parse()
    assert script.commands == ()
    assert script.errors == (f"command is longer than {lexer.MAX_INPUT_CHARS} characters",)


def test_known_assignments_are_substituted(command_words: Words) -> None:
    assert command_words("a=rm; b=-rf; $a $b /") == [["rm", "-rf", "/"]]
    assert command_words("a=$(x); $a") == [["x"], [DYNAMIC]]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("declare -a v=(a b)", [["declare", "-a", "v=" + DYNAMIC]]),
        ("local -A m=([k]=v) && echo ok", [["local", "-A", "m=" + DYNAMIC], ["echo", "ok"]]),
        ("readonly a=($(id)) b=1", [["readonly", "a=" + DYNAMIC, "b=1"], ["id"]]),
        ("coproc name { sleep 1; }", [["sleep", "1"]]),
        ("coproc name (ls)", [["ls"]]),
        ("coproc sleep 1", [["sleep", "1"]]),
    ],
)
def test_array_declarations_and_coprocesses_parse(
    command_words: Words, command: str, expected: list[list[str]]
) -> None:
    script = Parser(command).parse()
    assert (command_words(command), script.errors) == (expected, ())


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ('set -- rm -rf /; "$@"', [["set", "--", "rm", "-rf", "/"], ["rm", "-rf", "/"]]),
        ("set -e -- a b; echo $2 $#", [["set", "-e", "--", "a", "b"], ["echo", "b", DYNAMIC]]),
        ('set -- a "b c"; echo "$*"', [["set", "--", "a", "b c"], ["echo", "a b c"]]),
        ("set -o pipefail; echo $1", [["set", "-o", "pipefail"], ["echo", DYNAMIC]]),
        # A function's parameters are its caller's, not the script's.
        ("set -- /; f() { rm -rf $1; }", [["set", "--", "/"], ["rm", "-rf", DYNAMIC]]),
    ],
)
def test_set_gives_the_positional_parameters(
    command_words: Words, command: str, expected: list[list[str]]
) -> None:
    assert command_words(command) == expected
