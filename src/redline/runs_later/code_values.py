"""Small pieces shared by the readers of build files written in a programming
language (`build_code`, `rust_build`): string literals, argument lists cut
at their top-level commas, and argv told as a shell line.

A value the reader cannot know is the word `value` (a relative name, as the
make reader does): the command is still judged by what is known of it.
"""

from __future__ import annotations

from redline.shell.code_tokens import unescape
from redline.shell.lazy_regex import lazy_regex

UNKNOWN = "value"
# `"..."` or `'...'` with backslash escapes; a Rust raw string `r"..."`, `r#"..."#`.
STRING = lazy_regex(r"""r(#*)"(.*?)"\1|"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'""", flags=16)
_PAIRS = {"(": ")", "[": "]", "{": "}"}


def literal(text: str) -> str | None:
    """The value of `text` when it is one string literal, else `None`."""
    text = text.strip()
    match = STRING.fullmatch(text)
    if match is None:
        return None
    if match.group(2) is not None:
        return match.group(2)
    body = match.group(3) if match.group(3) is not None else match.group(4)
    return unescape(body or "")


def closing(text: str, start: int) -> int:
    """The index of the bracket closing the one at `start` (strings skipped), or -1."""
    stack: list[str] = []
    k = start
    while k < len(text):
        char = text[k]
        if char in "\"'":
            match = STRING.match(text, k)
            if match is not None:
                k = match.end()
                continue
        if char in _PAIRS:
            stack.append(_PAIRS[char])
        elif stack and char == stack[-1]:
            stack.pop()
            if not stack:
                return k
        k += 1
    return -1


def split_args(text: str) -> list[str]:
    """`a, f(b, c), "d,e"` as its top-level arguments."""
    parts: list[str] = []
    depth, start, k = 0, 0, 0
    while k < len(text):
        char = text[k]
        if char in "\"'":
            match = STRING.match(text, k)
            if match is not None:
                k = match.end()
                continue
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:k].strip())
            start = k + 1
        k += 1
    last = text[start:].strip()
    if last:
        parts.append(last)
    return parts


def argv_line(words: list[str]) -> str:
    """Words run without a shell, as a shell line (`~` left to expand: the
    readers spell the owner's home as `~`)."""
    from redline.shell.sink_words import path_word

    return " ".join(path_word(w) for w in words)
