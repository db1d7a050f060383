"""Lexical pieces of bash that need no parser state.

ANSI-C quoting, brace expansion, the operator tables and the bounds every
parse must respect (F-SHELL-7).
"""

from __future__ import annotations

import re

from redline.shell.lazy_regex import lazy_regex

# Bounds: past any of them the parse stops with an error, which is never ALLOW.
MAX_INPUT_CHARS = 2 * 1024 * 1024
MAX_NESTING = 60
MAX_BRACE_WORDS = 256
# No real command line has more simple commands or pipeline stages than these.
MAX_COMMANDS = 10_000
MAX_PIPELINE_STAGES = 256

# Characters that end an unquoted word.
WORD_BREAK = frozenset(" \t\n;&|<>()")
# The lexical patterns compile on first use, through the module's
# `__getattr__` (read them as `lexer.NAME`; the first read stores the compiled
# pattern as a module global, so later reads cost nothing extra). A plain
# command line on the fast path needs only ASSIGNMENT; compiling them all cost
# every hook's start about 1 ms.
_PATTERNS = {
    # A run of characters that need no special treatment inside an unquoted word.
    "PLAIN_RUN": lazy_regex(r"[^\s;&|<>()'\"\\$`*?\[{~]+"),
    # Same, inside double quotes.
    "DQ_RUN": lazy_regex(r'[^"\\$`]+'),
    "BLANKS": lazy_regex(r"[ \t]+"),
    "NAME": lazy_regex(r"[A-Za-z_][A-Za-z0-9_]*"),
    "ASSIGNMENT": lazy_regex(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?="),
    "REDIRECT": lazy_regex(
        r"(\d+|\{[A-Za-z_][A-Za-z0-9_]*\})?(<<<|<<-|<<|<>|<&|>>|>&|>\||&>>|&>|<|>)"
    ),
    # A reserved word candidate at command position: it must end at a metacharacter.
    "KEYWORD": lazy_regex(r"(?:\[\[|[!{}]|[a-z]+)(?=[\s;&|<>()]|\Z)"),
}
TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    PLAIN_RUN: re.Pattern[str]
    DQ_RUN: re.Pattern[str]
    BLANKS: re.Pattern[str]
    NAME: re.Pattern[str]
    ASSIGNMENT: re.Pattern[str]
    REDIRECT: re.Pattern[str]
    KEYWORD: re.Pattern[str]


def __getattr__(name: str) -> re.Pattern[str]:
    lazy = _PATTERNS.get(name)
    if lazy is None:
        raise AttributeError(f"module `{__name__}` has no attribute `{name}`")
    compiled = globals()[name] = lazy.compiled
    return compiled


RESERVED = frozenset(
    {"if", "then", "elif", "else", "fi", "for", "select", "in", "do", "done", "while",
     "until", "case", "esac", "function", "time", "coproc", "!", "{", "}", "[[", "]]"}
)  # fmt: skip
# Reserved words recognised where a command starts (`in` and `]]` only
# mean something inside `for`/`case` and `[[`).
COMMAND_KEYWORDS = RESERVED - {"in", "]]"}
# Reserved words that open a block, and the word that closes each.
BLOCK_CLOSER = {"if": "fi", "for": "done", "select": "done", "while": "done",
                "until": "done", "case": "esac", "{": "}"}  # fmt: skip

_SIMPLE_ESCAPES = {
    "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
    "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}  # fmt: skip
_HEX = frozenset("0123456789abcdefABCDEF")


def decode_ansi_c(body: str) -> str:
    """The value of `$'...'` given the text between the quotes."""
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        i += 2
        if e in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[e])
        elif e in "01234567":
            j = i - 1
            while i < n and i - j < 3 and body[i] in "01234567":
                i += 1
            out.append(chr(int(body[j:i], 8) & 0xFF))
        elif e in "xuU":
            limit = {"x": 2, "u": 4, "U": 8}[e]
            j = i
            while i < n and i - j < limit and body[i] in _HEX:
                i += 1
            out.append(chr(min(int(body[j:i], 16), 0x10FFFF)) if i > j else "\\" + e)
        elif e == "c" and i < n:
            out.append(chr(ord(body[i]) & 0x1F))
            i += 1
        else:
            out.append("\\" + e)
    return "".join(out)


def _brace_span(text: str, start: int) -> tuple[int, list[str]] | None:
    """For `{` at `start`, the index of its `}` and the comma-separated parts."""
    depth, parts, last = 0, [], start + 1
    for i in range(start, len(text)):
        c = text[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                parts.append(text[last:i])
                return i, parts
        elif c == "," and depth == 1:
            parts.append(text[last:i])
            last = i + 1
    return None


_SEQUENCE = lazy_regex(r"(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?\Z")


def _sequence(body: str) -> list[str] | None:
    match = _SEQUENCE.match(body)
    if not match:
        return None
    a, b, step_text = match.groups()
    step = abs(int(step_text)) if step_text else 1
    step = step or 1
    if a.lstrip("-").isdigit() and b.lstrip("-").isdigit():
        lo, hi = int(a), int(b)
        if abs(hi - lo) // step > MAX_BRACE_WORDS:
            return None
        rng = range(lo, hi + 1, step) if lo <= hi else range(lo, hi - 1, -step)
        return [str(v) for v in rng]
    if len(a) == 1 and len(b) == 1 and a.isalpha() and b.isalpha():
        lo, hi = ord(a), ord(b)
        rng = range(lo, hi + 1, step) if lo <= hi else range(lo, hi - 1, -step)
        return [chr(v) for v in rng]
    return None


def brace_expand(text: str) -> list[str]:
    """Bash brace expansion of an unquoted word; at most MAX_BRACE_WORDS results."""
    start = text.find("{")
    while start != -1:
        found = _brace_span(text, start)
        if found is None:
            return [text]
        end, parts = found
        options = parts if len(parts) > 1 else _sequence(parts[0])
        if options is not None:
            prefix, suffix = text[:start], text[end + 1 :]
            results: list[str] = []
            for option in options:
                for tail in brace_expand(option + suffix):
                    results.append(prefix + tail)
                    if len(results) >= MAX_BRACE_WORDS:
                        return results
            return results
        start = text.find("{", start + 1)
    return [text]


def matching_close(text: str, start: int, opener: str, closer: str) -> int:
    """Index of the `closer` balancing `opener` at `start`, skipping quotes; -1 if none."""
    depth, i, n = 0, start, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            j = text.find("'", i + 1)
            i = n if j == -1 else j + 1
            continue
        if text.startswith(opener, i):
            depth += 1
            i += len(opener)
            continue
        if text.startswith(closer, i):
            depth -= 1
            if depth == 0:
                return i
            i += len(closer)
            continue
        i += 1
    return -1
