"""A fast parse for plain command lines, which are most of them.

Words, quotes without expansions, pipes, lists and simple redirects are
tokenised by one regular expression. Anything else (`$`, backslashes,
braces, keywords, heredocs, subshells, comments, assignments...) returns
`None` and goes to the general parser. A differential test holds the two
to the same result on every command the fast path accepts.
"""

from __future__ import annotations

import re

from redline.decision import Span
from redline.shell import lexer
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import Redirect, Script, SimpleCommand, Word

_TOKEN = lazy_regex(
    r"(?P<blank>[ \t]+)"
    r"|(?P<op>&&|\|\||\|&|[|;\n]|&(?!>))"
    r"|(?P<redirect>[0-9]*(?:>>|>&|&>>|&>|>\||<&|<>|>(?!\()|<(?![<(])))"
    r"""|(?P<word>(?:[^\s;&|<>()'"\\$`{}~#!]|'[^']*'|"[^"\\$`!]*")+)"""
    r"|(?P<other>.)",
    re.DOTALL,
)
# Words of plain characters separated by single spaces: one command, no quoting.
_PLAIN_LINE = re.compile(r"[^;&|<>()'\"\\$`{}~#!\s]+(?: [^;&|<>()'\"\\$`{}~#!\s]+)*")
_QUOTED_PART = lazy_regex(r"'([^']*)'|\"([^\"]*)\"|([^'\"]+)")
_GLOB = frozenset("*?[")
_PIPE = frozenset({"|", "|&"})


def _word(text: str, start: int, end: int) -> Word:
    if "'" not in text and '"' not in text:
        return Word(text, Span(start, end), text, False, not _GLOB.isdisjoint(text))
    value: list[str] = []
    glob = False
    for single, double, plain in _QUOTED_PART.findall(text):
        if plain:
            glob = glob or not _GLOB.isdisjoint(plain)
            value.append(plain)
        else:
            value.append(single or double)
    return Word(text, Span(start, end), "".join(value), True, glob)


def parse(src: str) -> Script | None:
    """The parse of `src`, or `None` when it needs the general parser."""
    if len(src) > 4096 or "\x00" in src:
        return None
    if _PLAIN_LINE.fullmatch(src):
        return _plain_line(src)
    commands: list[SimpleCommand] = []
    pipelines: list[tuple[int, ...]] = []
    stage: list[int] = []  # the current pipeline's commands
    words: list[Word] = []
    redirects: list[Redirect] = []
    pending_op: str | None = None  # a redirect waiting for its target
    pending_start = 0
    start = end = -1
    last_op = "start"
    list_start = 0  # the first command of the current `&&`/`||` list

    def finish(op: str) -> bool:
        nonlocal words, redirects, start
        if not words:
            return redirects == [] and op == "\n" and last_op in ("start", "\n", ";", "&")
        first = words[0].raw
        if first in lexer.COMMAND_KEYWORDS or ("=" in first and lexer.ASSIGNMENT.match(first)):
            return False
        commands.append(SimpleCommand(tuple(words), tuple(redirects), Span(start, end)))
        stage.append(len(commands) - 1)
        words, redirects, start = [], [], -1
        return True

    def close_pipeline() -> None:
        if len(stage) > 1:
            index = len(pipelines)
            for position, k in enumerate(stage):
                commands[k] = commands[k]._replace(pipeline=index, position=position)
            pipelines.append(tuple(stage))
        stage.clear()

    for match in _TOKEN.finditer(src):
        kind = match.lastgroup
        if kind == "blank":
            continue
        text = match.group()
        if kind == "word":
            if pending_op is not None:
                target = _word(text, match.start(), match.end())
                op = pending_op.lstrip("0123456789")
                fd_text = pending_op[: len(pending_op) - len(op)]
                redirects.append(
                    Redirect(op, target, Span(pending_start, match.end()),
                             int(fd_text) if fd_text else None, None, False)
                )  # fmt: skip
                pending_op = None
            else:
                if not words and not redirects:
                    start = match.start()
                words.append(_word(text, match.start(), match.end()))
            end = match.end()
            last_op = "word"
        elif kind == "redirect":
            if pending_op is not None:
                return None
            if not words and not redirects:
                start = match.start()
            pending_op, pending_start = text, match.start()
        elif kind == "op":
            if pending_op is not None or not finish(text):
                return None
            if text not in _PIPE:
                close_pipeline()
            if text == "&":
                for k in range(list_start, len(commands)):
                    commands[k] = commands[k]._replace(background=True)
            if text in ("&", ";", "\n"):
                list_start = len(commands)
            last_op = text
        else:
            return None
    if pending_op is not None or last_op in ("|", "|&", "&&", "||"):
        return None
    if words and not finish("end"):
        return None
    if redirects:
        return None
    close_pipeline()
    return Script(tuple(commands), tuple(pipelines))


def _plain_line(src: str) -> Script | None:
    words: list[Word] = []
    position = 0
    for text in src.split(" "):
        end = position + len(text)
        words.append(Word(text, Span(position, end), text, False, not _GLOB.isdisjoint(text)))
        position = end + 1
    first = words[0].raw
    # `=` first: a word without one is no assignment, and the pattern stays uncompiled.
    if first in lexer.COMMAND_KEYWORDS or ("=" in first and lexer.ASSIGNMENT.match(first)):
        return None
    return Script((SimpleCommand(tuple(words), (), Span(0, len(src))),), ())
