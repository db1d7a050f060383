"""What the shell analysis produces: words, redirects and simple commands.

These are named tuples: immutable, and cheap to build and to import.

Offsets are into the text that was parsed; `Origin` maps them back to the
command the user gave when the text came out of a carrier (`sh -c '...'`).
"""

from redline.decision import Span
from redline.fasttuple import NamedTuple

# Stands for text the shell computes at run time (`$VAR`, `$(cmd)`).
DYNAMIC = "\x00"


class Word(NamedTuple):
    """One shell word: its source text and its value after quote removal.

    `value` has every part that cannot be known statically replaced by
    `DYNAMIC`; `quoted` tells whether any quoting was used.
    """

    raw: str
    span: Span
    value: str
    quoted: bool = False
    # Unquoted glob characters make the value a pattern, not a name.
    glob: bool = False
    # For `<( )`: the text its reader reads, when the commands inside only
    # make text (`DYNAMIC` when that text cannot be known); else `None`.
    feeds: str | None = None

    @property
    def dynamic(self) -> bool:
        return DYNAMIC in self.value


class Redirect(NamedTuple):
    """`op` is the operator as written (`>`, `>>`, `<<<`, `&>`...)."""

    op: str
    target: Word | None
    span: Span
    fd: int | None = None
    # The text of a heredoc or here-string: what the command reads on stdin.
    body: str | None = None
    # A heredoc whose delimiter was quoted has no expansions in its body.
    body_literal: bool = True

    @property
    def writes(self) -> bool:
        if self.op in _WRITE_OPS:
            return True
        # `>&file` writes a file; `>&2` only duplicates a descriptor.
        return self.op == ">&" and self.target is not None and not _is_fd(self.target.value)


_WRITE_OPS = frozenset({">", ">>", ">|", "&>", "&>>", "<>"})


def _is_fd(text: str) -> bool:
    return text == "-" or text.rstrip("-").isdigit()


class SimpleCommand(NamedTuple):
    """A command as bash would run it: assignments, argv and redirects."""

    words: tuple[Word, ...]
    redirects: tuple[Redirect, ...]
    span: Span
    assignments: tuple[Word, ...] = ()
    # Which pipeline this command sits in, and where; both index into the
    # `Script.pipelines` of the same parse.
    pipeline: int = -1
    position: int = 0
    # The command whose word holds this one inside `$( )` or backticks.
    parent: int = -1
    # Its list ends with `&`: it runs in the background.
    background: bool = False
    # It runs inside `>( )`: it reads what its parent writes there.
    reads_parent: bool = False
    # `$HOME` as the programs it starts see it, when an earlier command or its
    # own assignment moved it (`HOME=/ bash -c 'rm -rf ~/etc'`); `None`: the owner's.
    home: str | None = None
    # The variables a `trap` action names, as they are where it is set.
    seen: tuple[tuple[str, str], ...] = ()


class FunctionDef(NamedTuple):
    name: str
    span: Span
    body: tuple[SimpleCommand, ...]
    # True when the body runs something in the background or in a pipeline.
    forks: bool = False
    # The body as written (`{ ...; }`), run again with a call's arguments.
    text: str = ""


class Script(NamedTuple):
    """Everything one parse found: every simple command, at any nesting."""

    commands: tuple[SimpleCommand, ...]
    pipelines: tuple[tuple[int, ...], ...]
    functions: tuple[FunctionDef, ...] = ()
    errors: tuple[str, ...] = ()
