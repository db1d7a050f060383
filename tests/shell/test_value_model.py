"""The value model: text turned into text, parameter operators, variables
set by builtins, and the code builtins and functions run (F-SHELL-4)."""

from __future__ import annotations

import pytest

from redline.shell import (
    awk_print,
    decoders,
    glob_match,
    parameters,
    sed_script,
    static_text,
    transforms,
    variables,
)  # fmt: skip
from redline.shell.analysis import analyze
from redline.shell.model import DYNAMIC


@pytest.mark.parametrize(
    ("name", "values", "stdin", "expected"),
    [
        ("echo", ("-e", "\\x72eboot"), None, "reboot\n"),
        ("echo", ("-n", "\\x72"), None, "\\x72"),
        ("echo", ("-e", "\\0162m", "x\\cy"), None, "rm x"),
        ("printf", ("\\162\\155 -rf /\\n",), None, "rm -rf /\n"),
        ("printf", ("%s %s\\n", "a", "b", "c"), None, "a b\nc \n"),
        ("printf", ("%b", "\\x72eboot"), None, "reboot"),
        ("printf", ("%c%s", "rx", "eboot"), None, "reboot"),
        ("printf", ("%05d", "42"), None, "00042"),
        ("printf", ("-v", "x", "y"), None, None),
        ("cat", (), "a\n", "a\n"),
        ("cat", ("f",), "a\n", None),
        ("rev", (), "toober\n", "reboot\n"),
        ("tac", (), "a\nb\n", "b\na\n"),
        ("tr", ("A-Z", "a-z"), "REBOOT\n", "reboot\n"),
        ("tr", ("a-z", "n-za-m"), "erobbg", "reboot"),
        ("tr", ("-d", "x"), "rxexboot", "reboot"),
        ("tr", ("[:upper:]", "[:lower:]"), "AB", "ab"),
        ("tr", ("-c", "a", "b"), "x", None),
        ("cut", ("-d", " ", "-f2"), "x reboot\n", "reboot\n"),
        ("cut", ("-c3-",), "xxreboot\n", "reboot\n"),
        ("head", ("-n", "1"), "a\nb\n", "a\n"),
        ("tail", ("-1",), "a\nb\n", "b\n"),
        ("base64", ("-d",), "cmVib290\n", "reboot"),
        ("base64", ("-d", "f.b64"), None, None),
        ("base64", (), "x", None),
        ("base32", ("--decode",), "OJSWE33POQ======", "reboot"),
        ("xxd", ("-r", "-p"), "7265626f6f74", "reboot"),
        ("xxd", ("-r",), "00000000: 7265 626f 6f74  reboot\n", "reboot"),
        ("openssl", ("base64", "-d"), "cmVib290", "reboot"),
        ("sed", ("s/x/r/",), "xeboot\n", "reboot\n"),
        ("sed", ("s/.*/\\U&/",), "ab\n", "AB\n"),
        ("sed", ("-E", "s/(a)(b)/\\2\\1/g"), "abab\n", "baba\n"),
        ("sed", ("-n", "s/a/b/p"), "a\nc\n", "b\n"),
        ("sed", ("y/ab/ba/",), "ab\n", "ba\n"),
        ("sed", ("-i", "s/a/b/", "f"), "a", None),
        ("sed", ("1d",), "a", None),
        ("awk", ('{print "reboot"}',), "a\n", "reboot\n"),
        ("awk", ('BEGIN{print "rm -rf /"}',), None, "rm -rf /\n"),
        (
            "awk",
            (
                "-F:",
                "{print $2}",
            ),
            "a:b\n",
            "b\n",
        ),
        ("awk", ('BEGIN { printf "%s\\n", "x" }',), None, "x\n"),
        ("awk", ("/x/ {print}",), "x\n", None),
        ("awk", ("{print $1}", "file"), None, None),
        ("rev", (), None, None),
        ("dirname", ("/etc/x",), None, "/etc\n"),
        ("dirname", ("x", "/a/b/"), None, ".\n/a\n"),
        ("dirname", ("/",), None, "/\n"),
        ("basename", ("/a/b.txt", ".txt"), None, "b\n"),
        ("basename", ("-a", "x"), None, None),
        ("echo", (DYNAMIC,), None, None),
    ],
)
def test_static_output(
    name: str, values: tuple[str, ...], stdin: str | None, expected: str | None
) -> None:
    assert static_text.output(name, values, stdin) == expected


def test_decoders_refuse_bad_input() -> None:
    assert decoders.decode("base32", ("-d",), "!!!") is None
    assert decoders.decode("xxd", ("-r", "-p"), "zz") is None
    assert sed_script.run(("s/(/x/",), "a") is not None  # a literal `(` in BRE
    assert transforms.tr_set("z-a") is None
    assert awk_print.run(("{x=1}",), "a") is None


@pytest.mark.parametrize(
    ("value", "op", "expected"),
    [
        ("/sbin/reboot/x", "%/*", "/sbin/reboot"),
        ("a/b/halt", "##*/", "halt"),
        ("foo/shutdown", "#*/", "shutdown"),
        ("a.tar.gz", "%%.*", "a"),
        ("rm_-rf_/", "//_/ ", "rm -rf /"),
        ("xm", "/x/r", "rm"),
        ("foo", "/#foo/reboot", "reboot"),
        ("REBOOT", ",,", "reboot"),
        ("reboot", "^", "Reboot"),
        ("rEbOoT", "~~", "ReBoOt"),
        ("a", "/$x/b", DYNAMIC),
    ],
)
def test_parameter_operators(value: str, op: str, expected: str) -> None:
    found = parameters.expand("x" + op, {"x": value})
    assert found is not None and found.value == expected


def test_glob_match_shortest_and_longest() -> None:
    assert glob_match.remove_prefix("a/b/c", "*/", longest=False) == "b/c"
    assert glob_match.remove_suffix("a/b/c", "/*", longest=True) == "a"
    assert glob_match.tokens("+(a)") is None
    assert glob_match.replace("aXbXc", "X", "/", every=True, anchor="") == "a/b/c"
    assert glob_match.replace("abc", "[ab]", "", every=False, anchor="") == "bc"
    assert glob_match.remove_suffix("x.tar.gz", ".*", longest=False) == "x.tar"


def test_indirection_arrays_and_prompt_code() -> None:
    table = {"c": "reboot", "n": "c"}
    assert parameters.expand("!n", table) == parameters.Expanded("reboot")
    variables.assign(table, "a=" + DYNAMIC, ("rm", "-rf", "/"))
    found = parameters.expand("a[@]", table)
    assert found is not None and found.elements == ("rm", "-rf", "/")
    prompt = parameters.expand("v@P", {"v": "$(reboot)"})
    assert prompt is not None and prompt.code == ": $(reboot)"
    unknown = parameters.expand("v@P", {})
    assert unknown is not None and unknown.code == DYNAMIC
    assert parameters.arithmetic_code("x + 1", {"x": "a[$(id)]"}) == [": a[$(id)]"]


def _vars(text: str) -> dict[str, str]:
    from redline.shell.parser import Parser

    parser = Parser(text)
    parser.parse_full()
    return parser.vars


@pytest.mark.parametrize(
    ("text", "name", "expected"),
    [
        ("read -r c rest <<< 'shutdown now'", "c", "shutdown"),
        ("read -r c rest <<< 'shutdown now -h'", "rest", "now -h"),
        ("IFS=, read -ra p <<< 'rm,-rf,/'", "p[@]", "rm\x1f-rf\x1f/"),
        ("mapfile -t a <<< reboot", "a", "reboot"),
        ("printf -v c '%s' reboot", "c", "reboot"),
        ("declare -l c=REBOOT", "c", "reboot"),
        ("declare -i n=2+3", "n", "5"),
        ("let n=0-1", "n", "-1"),
        ("((n=4)); ((n++))", "n", "5"),
        ("x=re; x+=boot", "x", "reboot"),
        ("a[0]=rm; a[1]=-rf", "a[@]", "rm\x1f-rf"),
    ],
)
def test_variables_set_by_builtins(text: str, name: str, expected: str) -> None:
    assert _vars(text).get(name) == expected


def test_unknown_input_forgets_the_old_value() -> None:
    assert "c" not in _vars("c=ls; read c")
    assert "c" not in _vars("c=ls; c=$(cat f)")


def _commands(text: str) -> list[str]:
    return [" ".join(w.value for w in inv.argv) for inv in analyze(text).invocations]


def test_trap_and_function_calls_run_their_code() -> None:
    assert "reboot" in _commands("trap 'reboot' EXIT")
    assert "rm -rf /" in _commands("f() { $1 -rf /; }; f rm")
    assert not any(c.startswith("ls") for c in _commands("trap - EXIT; trap ls"))
    # A function calling itself is followed once.
    assert len(_commands("f() { f; }; f")) < 10


def test_substitutions_take_their_static_value() -> None:
    assert "reboot" in _commands("$(echo cmVib290 | base64 -d)")
    assert "reboot" in _commands("bash <(printf 'reboot')")
    assert _commands("$(cat cmd.txt)")[0] == DYNAMIC


def test_decompressors_after_a_decoder() -> None:
    packed = decoders.decode("base64", ("-d",), "H4sIAGwVF2sC/ytKTcrPL+ECAByaGNYHAAAA")
    assert packed is not None and DYNAMIC not in packed
    assert static_text.output("gunzip", (), packed) == "reboot\n"
    assert static_text.output("gzip", (), packed) is None  # compresses: not computed
    assert static_text.output("gunzip", ("f.gz",), packed) is None
    assert decoders.decompress("zcat", (), "not gzip") is None
