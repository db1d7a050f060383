"""Patterns compiled once per process, on first use (docs/adr/0003).

It lives with the shell analysis, the lowest layer, so that the shell's own
patterns, the rules' and the gate's all use it and `compile_all` sees them all.

A hook judges one command and starts once per tool call: compiling every
rule's patterns when the catalogue loads cost it ~16 ms, mostly for rules
that cannot apply (a hook judging `ls` never runs the SQL rules). A
`LazyPattern` compiles on its first match and keeps the result for the life
of the process, so classifying still never compiles a pattern twice. The
catalogue's self-check calls `compile_all` whenever the rules change, so a
broken pattern still stops the catalogue from loading.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from typing import Any


Replacement = str | Callable[[re.Match[str]], str]

_ALL: list[LazyPattern] = []
"""Every pattern made in this process, for `compile_all`."""


class LazyPattern:
    """The matching half of `re.Pattern[str]`, compiled on first use."""

    __slots__ = ("_compiled", "flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None
        _ALL.append(self)

    @property
    def compiled(self) -> re.Pattern[str]:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self.pattern, self.flags)
        return compiled

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.search(string, pos, endpos)

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.match(string, pos, endpos)

    def fullmatch(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[str] | None:
        return self.compiled.fullmatch(string, pos, endpos)

    def finditer(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        return self.compiled.findall(string, pos, endpos)

    def sub(self, repl: Replacement, string: str, count: int = 0) -> str:
        return self.compiled.sub(repl, string, count)

    def subn(self, repl: Replacement, string: str, count: int = 0) -> tuple[str, int]:
        return self.compiled.subn(repl, string, count)

    def split(self, string: str, maxsplit: int = 0) -> list[str | Any]:
        return self.compiled.split(string, maxsplit)

    def __repr__(self) -> str:
        return f"lazy_regex({self.pattern!r}, {self.flags!r})"


def lazy_regex(pattern: str, flags: int = 0) -> LazyPattern:
    """`re.compile(pattern, flags)`, deferred to the first match."""
    return LazyPattern(pattern, flags)


def compile_all() -> int:
    """Compile every pattern made so far (a bad one raises `re.error`); how many."""
    for pattern in _ALL:
        pattern.compiled  # noqa: B018 - compiling is the point
    return len(_ALL)
