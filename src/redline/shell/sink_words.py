"""What a program's code does, told as shell text (issue #13, family 7).

Shared by the readers of each language's code: the shell words for a value
the code computed, and what a reader found.
"""

from __future__ import annotations

from collections.abc import Sequence

from redline.fasttuple import NamedTuple
from redline.shell.carriers import quote


class Sinks(NamedTuple):
    """The shell commands that do what the code does to the system; and
    `rest`, the code less those calls (and the imports only they use), for
    the rules to judge whether it only reads, computes and prints: `None`
    when it cannot be told apart."""

    commands: tuple[str, ...]
    rest: str | None


def path_word(path: object) -> str:
    """A path as a shell word, its leading `~` left for the shell to expand."""
    text = str(path)
    if text == "~" or text.startswith("~/"):
        rest = text[1:]
        return "~" + (quote(rest) if rest else "")
    return quote(text)


def command(words: Sequence[object]) -> str | None:
    """A command line from argument values; `None` when one is unknown."""
    if not words or any(not isinstance(w, str | int) or isinstance(w, bool) for w in words):
        return None
    return " ".join(path_word(w) if str(w).startswith("~") else quote(str(w)) for w in words)
