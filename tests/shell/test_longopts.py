"""Abbreviated long options resolve to the one option they can only mean."""

from __future__ import annotations

import pytest

from redline.decision import Span
from redline.shell.invocation import read_options
from redline.shell.longopts import resolve
from redline.shell.model import Word


@pytest.mark.parametrize(
    ("program", "key", "resolved"),
    [
        ("rm", "recur", "recursive"),
        ("rm", "re", "recursive"),
        ("rm", "f", "force"),
        ("rm", "force", "force"),
        ("rm", "no", "no-preserve-root"),
        ("rm", "v", "v"),  # --verbose or --version: ambiguous, stays as written
        ("tar", "to-com", "to-command"),
        ("tar", "to", "to"),  # --to-command or --to-stdout
        ("cp", "recursive", "recursive"),
        ("ls", "recur", "recur"),  # not a program the table knows
    ],
)
def test_resolve(program: str, key: str, resolved: str) -> None:
    assert resolve(program, key) == resolved


def test_read_options_resolves_prefixes() -> None:
    argv = tuple(Word(v, Span(0, 0), v) for v in ("rm", "--recur", "--force", "/"))
    options = read_options(argv)
    assert (options.long, [w.value for w in options.operands]) == (
        frozenset({"recursive", "force"}),
        ["/"],
    )


def test_expand_writes_unambiguous_prefixes_whole_up_to_the_end_of_options() -> None:
    from redline.shell.longopts import LONG_OPTIONS, expand

    words = ("--recur", "--forc=x", "--ver", "--", "--recur")
    assert expand(words, LONG_OPTIONS["rm"]) == (
        "--recursive", "--force=x", "--ver", "--", "--recur",
    )  # fmt: skip


def test_an_ambiguous_prefix_counts_as_each_option_it_could_be() -> None:
    from redline.shell.longopts import candidates

    assert candidates("rm", "pre") == ("preserve-root",)
    assert candidates("rm", "no-pres") == ("no-preserve-root",)
    assert candidates("cp", "no") == ("no-clobber", "no-dereference", "no-preserve",
                                      "no-target-directory")  # fmt: skip
