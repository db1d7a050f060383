"""F-SHELL-4: command words are de-obfuscated before any rule sees them."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from redline.shell import lexer
from redline.shell.model import DYNAMIC

Words = Callable[[str], list[list[str]]]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("r\\m -rf /", ["rm", "-rf", "/"]),
        ('"r"m -rf /', ["rm", "-rf", "/"]),
        ("r''m -rf /", ["rm", "-rf", "/"]),
        ("$'\\x72m' -rf /", ["rm", "-rf", "/"]),
        ("$'\\162m' -rf /", ["rm", "-rf", "/"]),
        ("$'\\u0072m' -rf /", ["rm", "-rf", "/"]),
        ("r$@m -rf /", ["rm", "-rf", "/"]),
        ("r${@}m -rf /", ["rm", "-rf", "/"]),
        ("rm${IFS}-rf${IFS}/", ["rm", "-rf", "/"]),
        ("rm$IFS-rf$IFS/", ["rm", "-rf", "/"]),
        ("{rm,-rf,/}", ["rm", "-rf", "/"]),
        ("\\rm -rf /", ["rm", "-rf", "/"]),
        ("${x:-r}m -rf /", ["rm", "-rf", "/"]),
        ('$"rm" -rf /', ["rm", "-rf", "/"]),
        ('echo "a$IFS"b', ["echo", "a b"]),
        ("echo ~/x $HOME/y ${HOME}/z", ["echo", "~/x", "~/y", "~/z"]),
        ("echo a{1..3}", ["echo", "a1", "a2", "a3"]),
        ("echo $USER", ["echo", DYNAMIC]),
        ('echo "$(date)"', ["echo", DYNAMIC]),
        ("echo 'it''s'", ["echo", "its"]),
        ('echo "a\\"b"', ["echo", 'a"b']),
        ('echo "\\x"', ["echo", "\\x"]),
    ],
)
def test_word_values(command_words: Words, command: str, expected: list[str]) -> None:
    assert command_words(command)[0] == expected


def test_empty_unquoted_expansion_disappears(command_words: Words) -> None:
    assert command_words("echo $@ x") == [["echo", "x"]]
    # In command position the unknown arguments are also read as the program.
    assert command_words("$@ rm x") == [["rm", "x"], ["\x00", "rm", "x"]]
    assert command_words('"" rm x') == [["", "rm", "x"]]


@pytest.mark.parametrize(
    ("body", "value"),
    [("\\x41\\102\\n", "AB\n"), ("\\cA", "\x01"), ("\\q", "\\q"), ("\\U0001F600", "\U0001f600")],
)
def test_ansi_c_decoding(body: str, value: str) -> None:
    assert lexer.decode_ansi_c(body) == value


@pytest.mark.parametrize(
    ("word", "expanded"),
    [
        ("{a,b}", ["a", "b"]),
        ("x{a,b}y", ["xay", "xby"]),
        ("{a,{b,c}}", ["a", "b", "c"]),
        ("{1..3}", ["1", "2", "3"]),
        ("{a..c}", ["a", "b", "c"]),
        ("{5..1..2}", ["5", "3", "1"]),
        ("{x}", ["{x}"]),
        ("{a,b", ["{a,b"]),
    ],
)
def test_brace_expansion(word: str, expanded: list[str]) -> None:
    assert lexer.brace_expand(word) == expanded


def test_brace_expansion_is_bounded() -> None:
    assert len(lexer.brace_expand("{1..100000}")) <= lexer.MAX_BRACE_WORDS + 1
    assert len(lexer.brace_expand("{a,b}" * 20)) == lexer.MAX_BRACE_WORDS


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("rm -rf ${HOME:?}/", ["rm", "-rf", "~/"]),
        ('rm -rf "${HOME:?home is unset}"', ["rm", "-rf", "~"]),
        ("echo ${HOME:+set} ${NOPE:?}", ["echo", "set", DYNAMIC]),
        ('"$@" x', [DYNAMIC, "x"]),
    ],
)
def test_error_and_alternate_expansions(
    command_words: Words, command: str, expected: list[str]
) -> None:
    assert command_words(command)[-1] == expected


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("X='rm -rf /'; $X", ["rm", "-rf", "/"]),
        ("X='-rf /'; rm $X", ["rm", "-rf", "/"]),
        ('X="rm -rf /"; "$X"', ["rm -rf /"]),
    ],
)
def test_unquoted_values_split_into_words(
    command_words: Words, command: str, expected: list[str]
) -> None:
    assert command_words(command)[-1] == expected


def test_assignments_keep_the_whole_value(command_words: Words) -> None:
    assert command_words("X='a b'; Y=$X; echo $Y") == [["echo", "a", "b"]]
