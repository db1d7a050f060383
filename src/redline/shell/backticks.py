"""The command inside backticks: its text after the backslashes that quote
there are removed, and where each character of it is in the source, so spans
found in it point at what the user wrote."""

from __future__ import annotations

from redline.decision import Span
from redline.shell.model import Redirect, Word


def unescape(text: str, offset: int) -> tuple[str, list[int]]:
    """The command inside backticks, and where each of its characters is in
    the source: a backslash quotes only `` ` ``, `$` and `\\` there."""
    if "\\" not in text:
        return text, list(range(offset, offset + len(text) + 1))
    out: list[str] = []
    where: list[int] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] == "\\" and i + 1 < n and text[i + 1] in "`$\\":
            i += 1
        out.append(text[i])
        where.append(offset + i)
        i += 1
    where.append(offset + n)
    return "".join(out), where


def remap(span: Span, where: list[int]) -> Span:
    last = len(where) - 1
    start = where[min(span.start, last)]
    if span.end <= span.start:
        return Span(start, start)
    return Span(start, where[min(span.end - 1, last)] + 1)


def remap_word(word: Word, where: list[int]) -> Word:
    return word._replace(span=remap(word.span, where))


def remap_redirect(redirect: Redirect, where: list[int]) -> Redirect:
    target = redirect.target
    return redirect._replace(
        span=remap(redirect.span, where),
        target=None if target is None else remap_word(target, where),
    )
