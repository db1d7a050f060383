"""Endless loops that start a background process on every pass (F-RULES-1,
hard line: the same end as a fork bomb, the process table filled until the
machine stops answering): `while true; do sleep 9 & done`, `while :; do
./worker & done`, `for ((;;)); do x & done`, `until false; do y & done`.

A loop that waits for its jobs, sleeps, or can leave (`wait`, `sleep`,
`break`, `exit`, `return`) is bounded in rate or count, and is not one.
"""

from __future__ import annotations

from collections.abc import Iterator

from redline.decision import Severity, Span
from redline.rules.model import Rule, rule
from redline.shell.analysis import Analysis
from redline.shell.carriers import CARRIER_NAMES, carried_scripts
from redline.shell.lazy_regex import lazy_regex

# An endless loop's head, then its body up to `done`.
_ENDLESS = lazy_regex(
    r"(?:^|[;&|(\s{])(?:while\s+(?:true|:|\[\s+1\s+\]|\(\(\s*1\s*\)\)|/bin/true)"
    r"|until\s+(?:false|/bin/false|!\s*:)|for\s*\(\(\s*;\s*;\s*\)\))\s*;?\s*do\b"
    r"(?P<body>(?:(?!\bdone\b)[\s\S])*)\bdone\b"
)
# Where one command of the body ends: a lone `&` (a job put in the
# background, not `&&`, `>&`, `&>` or `|&`), `;`, `&&`, `||`, a newline.
_ENDS = lazy_regex(r"(?<![&>|])&(?![&>])|;|&&|\|\||\n")
_BOUNDING = frozenset({"wait", "sleep", "break", "exit", "return", "read"})


def _spawns_without_bound(body: str) -> bool:
    """A job in the background, and no command in the foreground that waits,
    pauses or leaves the loop."""
    background, start = False, 0
    for end in [*_ENDS.finditer(body), None]:
        stop = len(body) if end is None else end.start()
        words = body[start:stop].replace("(", " ").replace(")", " ").split()
        if end is not None and end.group() == "&" and words:
            background = True
        elif words and words[0] in _BOUNDING:
            return False
        start = stop if end is None else end.end()
    return background


def _spawn_loops(analysis: Analysis) -> Iterator[Span]:
    text = analysis.text
    if "do" not in text or "&" not in text:
        return
    for match in _ENDLESS.finditer(text):
        if _spawns_without_bound(match.group("body")):
            yield Span(match.start(), match.end())
    for inv in analysis.invocations:  # a loop a shell is given: `bash -c 'while ...'`
        if inv.name in CARRIER_NAMES and any("done" in w.value for w in inv.argv[1:]):
            for carried in carried_scripts(inv):
                if any(
                    _spawns_without_bound(m.group("body")) for m in _ENDLESS.finditer(carried.text)
                ):
                    yield inv.span
                    break


SPAWN_LOOP_RULES: tuple[Rule, ...] = (
    rule(
        "proc.spawn-loop",
        "process",
        Severity.HARDLINE,
        "an endless loop starts a background process on every pass, filling the process "
        "table like a fork bomb",
        "bound the loop (`for i in $(seq 4)`), or wait for each job (`wait`) or pause "
        "(`sleep`) inside it",
        scan=_spawn_loops,
        must_match=(
            "while true; do sleep 1000 & done",
            "while :; do ./worker & done",
            "while true; do bash -c 'x' & done",
            "for ((;;)); do yes > /dev/null & done",
            "until false; do nc -l 9 & done",
            "while [ 1 ]; do (sleep 9 &) ; done",
            "while true\ndo\n  python3 w.py &\ndone",
        ),
        must_not_match=(
            "while true; do ./server & wait; done",
            "while true; do job & sleep 5; done",
            "for i in 1 2 3; do sleep 9 & done",
            "while true; do make && break; done",
            'while read -r f; do gzip "$f" & done < list',
            "while true; do curl -fsS x && echo ok; done",
            "while true; do date >&2; sleep 1; done",
        ),
    ),
)
