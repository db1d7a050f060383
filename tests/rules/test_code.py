"""Where shells and interpreters take the code they run."""

from __future__ import annotations

import pytest

from redline.rules.code import code_source, inline_code, safe_options
from redline.shell.analysis import analyze


def first(command: str) -> tuple[str, str] | None:
    return code_source(analyze(command).invocations[0])


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("sh -c 'ls'", ("inline", "ls")),
        ("bash -xc 'ls'", ("inline", "ls")),
        ("bash -c", ("inline", "")),
        ("bash", ("stdin", "")),
        ("bash -s -- a", ("stdin", "")),
        ("bash -", ("stdin", "")),
        ("bash -o pipefail run.sh", ("file", "run.sh")),
        ("source /dev/stdin", ("stdin", "")),
        (". ./env.sh", ("file", "./env.sh")),
        ("source", None),
        ("eval x y", ("inline", "x y")),
        ("python3 -c 'x'", ("inline", "")),
        ("python3 -Ic 'x'", ("inline", "")),
        ("python3 -W ignore run.py", ("file", "run.py")),
        ("python3 -m json.tool", None),
        ("python3", ("stdin", "")),
        ("perl -ne 'print' f", ("inline", "")),
        ("perl -MPOSIX -e 'print 1'", ("inline", "")),
        ("node --eval=1", ("inline", "")),
        ("php -f x.php", ("file", "x.php")),
        ("irb", ("stdin", "")),
        ("ls -c", None),
    ],
)
def test_code_source(command: str, expected: tuple[str, str] | None) -> None:
    assert first(command) == expected


def test_inline_code_reads_bundled_and_long_flags() -> None:
    assert inline_code(analyze("perl -lane 'print $F[0]' f").invocations[0]) == "print $F[0]"
    assert inline_code(analyze("node --eval='1+1'").invocations[0]) == "1+1"
    assert inline_code(analyze("python3 -W ignore -c 'x'").invocations[0]) == "x"
    assert inline_code(analyze("python3 run.py -c x").invocations[0]) is None


@pytest.mark.parametrize(
    ("family", "values", "safe"),
    [
        ("perl", ("-MList::Util=sum", "-le", "print sum(1)"), True),
        ("perl", ("-MIO::Socket", "-e", "1"), False),
        ("ruby", ("-rjson", "-e", "1"), True),
        ("ruby", ("-r", "socket", "-e", "1"), False),
        ("node", ("-r", "./hook.js", "-e", "1"), False),
        ("node", ("-e", "-r"), True),
        ("php", ("-d", "auto_prepend_file=x", "-r", "1;"), False),
        ("php", ("-r", "echo 1;"), True),
        ("python", ("-c", "1"), True),
    ],
)
def test_safe_options(family: str, values: tuple[str, ...], safe: bool) -> None:
    assert safe_options(family, values) is safe
