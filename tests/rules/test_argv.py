"""Reading options that take values, and subcommands after global options."""

from __future__ import annotations

from redline.rules.argv import Args, parse


def test_short_values_separate_attached_and_clustered() -> None:
    assert parse(["-c", "SQL", "-dapp", "-sNe", "Q", "db"], "cde") == Args(
        flags=frozenset({"-c", "-d", "-s", "-N", "-e"}),
        operands=("db",),
        values=(("-c", "SQL"), ("-d", "app"), ("-e", "Q")),
    )


def test_long_values_with_and_without_equals() -> None:
    assert parse(["--command=A", "--file", "f", "--verbose", "x"], "", ["file"]) == Args(
        flags=frozenset({"--command", "--file", "--verbose"}),
        operands=("x",),
        values=(("--command", "A"), ("--file", "f")),
    )


def test_double_dash_ends_options() -> None:
    args = parse(["-f", "--", "-x", "y"])
    assert (args.flags, args.operands) == (frozenset({"-f"}), ("-x", "y"))


def test_stop_at_operand_keeps_the_rest() -> None:
    args = parse(["-C", "dir", "--no-pager", "push", "-f"], "C", stop_at_operand=True)
    assert args == Args(
        flags=frozenset({"-C", "--no-pager"}),
        operands=(),
        values=(("-C", "dir"),),
        rest=("push", "-f"),
    )
    assert args.has("--no-pager") and args.value("-C") == ("dir",)


def test_a_value_option_at_the_end_has_no_value() -> None:
    assert parse(["-c"], "c").values == ()


def test_abbreviated_long_options_resolve_when_unambiguous() -> None:
    words = ["--forc", "--comm", "SQL", "--dry=x"]
    args = parse(words, "", ["command"], long_names=["force", "dry-run"])
    assert args == Args(
        flags=frozenset({"--force", "--command", "--dry-run"}),
        operands=(),
        values=(("--command", "SQL"), ("--dry-run", "x")),
    )


def test_ambiguous_prefixes_count_as_each_option_and_unknown_ones_stay() -> None:
    # git refuses `--f` here; counting it as both options fails closed.
    args = parse(["--f", "--no-forc", "--zzz"], long_names=["force", "force-with-lease"])
    assert args.flags == frozenset({"--force", "--force-with-lease", "--no-forc", "--zzz"})


def test_without_long_names_nothing_is_unabbreviated() -> None:
    assert parse(["--forc"]).flags == frozenset({"--forc"})
