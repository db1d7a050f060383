"""An invocation: one program as it will really run, after wrappers and carriers.

This is what rules look at. `name` is the program's normalised name (`rm` for
`/bin/rm`, `\\rm`, `r''m`, `RM`), or `""` when the shell computes it at run time.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from redline.decision import Span
from redline.shell.model import DYNAMIC, Redirect, Word


def command_name(word: Word) -> str:
    """The name a rule matches: absolute paths lose their directory (`/bin/rm`
    is `rm`), relative ones keep it (`./rm` is a local script, not `rm`)."""
    value = word.value
    if DYNAMIC in value:
        return ""
    if value.startswith("/"):
        value = value.rstrip("/").rsplit("/", 1)[-1]
    return value.lower()


@dataclass(slots=True)
class Options:
    """A generic reading of an argv's options; rules refine it where needed."""

    short: frozenset[str]
    long: frozenset[str]
    operands: tuple[Word, ...]
    # Long options with their values, `--output=FILE` as `output -> FILE`.
    values: tuple[tuple[str, str], ...] = ()


def read_options(argv: tuple[Word, ...]) -> Options:
    short: set[str] = set()
    long: set[str] = set()
    values: list[tuple[str, str]] = []
    operands: list[Word] = []
    done = False
    for word in argv[1:]:
        text = word.value
        if done or not text.startswith("-") or text == "-":
            operands.append(word)
        elif text == "--":
            done = True
        elif text.startswith("--"):
            key, eq, value = text[2:].partition("=")
            long.add(key.lower())
            if eq:
                values.append((key.lower(), value))
        else:
            short.update(text[1:])
    return Options(frozenset(short), frozenset(long), tuple(operands), tuple(values))


@dataclass(slots=True)
class Invocation:
    name: str
    argv: tuple[Word, ...]
    redirects: tuple[Redirect, ...]
    span: Span
    index: int = 0
    # Wrappers and carriers this invocation was reached through, outermost first.
    via: tuple[str, ...] = ()
    depth: int = 0
    remote: bool = False
    # More arguments are appended at run time (`xargs rm`, `find -exec rm {}`).
    appended_args: bool = False
    # Invocations whose output is piped into this one, and the one whose
    # argument holds this one inside `$( )`.
    upstream: tuple[int, ...] = ()
    parent: int = -1
    # Text this invocation reads on stdin, when it is known (heredoc, `<<<`,
    # a static `echo` piped in).
    stdin_text: str | None = None
    # The working directory it runs in, when known (`cd /x && cmd` updates it).
    cwd: str | None = None
    # Read on first use: most invocations meet no rule that asks.
    _options: Options | None = field(default=None, repr=False, compare=False)

    @property
    def options(self) -> Options:
        if self._options is None:
            self._options = read_options(self.argv)
        return self._options

    @property
    def args(self) -> tuple[Word, ...]:
        return self.argv[1:]

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(word.value for word in self.argv[1:])

    def has_flag(self, short: str = "", long: tuple[str, ...] = ()) -> bool:
        """Any of the short flag letters or long option names is present."""
        options = self.options
        return any(ch in options.short for ch in short) or any(n in options.long for n in long)

    def subcommand(self) -> str:
        """The first operand, lower-cased (`git push` -> `push`)."""
        operands = self.options.operands
        return operands[0].value.lower() if operands else ""
