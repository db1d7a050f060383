"""Rules about the command line itself: what could not be parsed, and
command words the shell computes at run time (F-SHELL-4, F-SHELL-7)."""

from __future__ import annotations

from collections.abc import Iterator

from redline.decision import Severity, Span
from redline.rules.model import Rule, rule
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation
from redline.shell.model import DYNAMIC


def _unparsable(analysis: Analysis) -> Iterator[Span]:
    if analysis.errors:
        yield Span(0, len(analysis.text))


def _dynamic_command(inv: Invocation, analysis: Analysis) -> bool:
    return bool(inv.argv) and DYNAMIC in inv.argv[0].value


SHELL_RULES: tuple[Rule, ...] = (
    rule(
        "shell.unparsable",
        "shell",
        Severity.DANGEROUS,
        "the command could not be fully parsed, so it cannot be checked",
        "close every quote, bracket and block, and keep the command under 2 MB",
        scan=_unparsable,
        must_match=(
            "echo 'unterminated",
            "if true; then echo",
            "echo $(ls",
            "ls |",
            "cat <<EOF\nx",
            "a\x00b",
        ),
        must_not_match=("echo 'done'", "if true; then echo; fi", "echo $(ls)", "ls | wc -l"),
    ),
    rule(
        "shell.dynamic-command",
        "shell",
        Severity.DANGEROUS,
        "the program to run is computed at run time, so it cannot be checked",
        "write the program's name literally instead of through a variable or substitution",
        test=_dynamic_command,
        must_match=(
            "$CMD -rf /",
            "$(echo rm) x",
            "`which rm` -rf /tmp/x",
            '"$1" arg',
            "${TOOL} --version",
        ),
        must_not_match=("echo $CMD", "a=rm; $a --version", "ls $(pwd)", '"$HOME/bin/tool" x'),
    ),
)
