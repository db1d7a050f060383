"""Fork bombs: a shell function that calls itself in the background, and
inline code that forks in a loop that never ends (`proc.fork-bomb`'s scan)."""

from __future__ import annotations

from collections.abc import Iterator

from redline.decision import Span
from redline.shell.analysis import Analysis
from redline.shell.carriers import inline_code
from redline.shell.lazy_regex import lazy_regex


def fork_bomb(analysis: Analysis) -> Iterator[Span]:
    for function in analysis.functions:
        if function.forks and any(
            cmd.words and cmd.words[0].value == function.name for cmd in function.body
        ):
            yield function.span
    for inv in analysis.invocations:
        code = inline_code(inv)
        if code and _CODE_FORK_BOMB.search(code):
            yield inv.span


# A fork inside a loop that never ends: a statement modifier (`fork while 1`,
# `fork while fork`, `fork until 0`) or a block whose condition is constant
# (`while(1){fork}`, `while True: os.fork()`, `loop { fork }`, `for(;;)`)
# with no `break`/`last`/`exit` before the fork.
_CODE_FORK_BOMB = lazy_regex(
    r"\bfork\b(?:\s*\(\s*\))?\s*(?:while\s*\(?\s*(?:1|true|True|fork\b)|until\s*\(?\s*(?:0|false))"
    r"(?!\s*[-+<>=!.\w])"
    r"|(?:\bwhile\s*\(?\s*(?:1|true|True)\s*\)?|\bloop|\bfor\s*\(\s*;\s*;\s*\))\s*(?::|\{|\bdo\b)"
    r"(?:(?!\bbreak\b|\blast\b|\bexit\b)[^}])*?\bfork\b"
)
