"""An invocation: one program as it will really run, after wrappers and carriers.

This is what rules look at. `name` is the program's normalised name (`rm` for
`/bin/rm`, `\\rm`, `r''m`, `RM`), or `""` when the shell computes it at run time.
"""

from redline.decision import Span
from redline.fasttuple import NamedTuple
from redline.shell.longopts import LONG_OPTIONS, candidates, expand
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


class Options(NamedTuple):
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
    program: str | None = None
    for word in argv[1:]:
        text = word.value
        if done or not text.startswith("-") or text == "-":
            operands.append(word)
        elif text == "--":
            done = True
        elif text.startswith("--"):
            key, eq, value = text[2:].partition("=")
            if program is None:
                program = command_name(argv[0])
            if program in LONG_OPTIONS:
                names = candidates(program, key)
                key = names[0]
                long.update(names[1:])
            long.add(key.lower())
            if eq:
                values.append((key.lower(), value))
        else:
            short.update(text[1:])
    return Options(frozenset(short), frozenset(long), tuple(operands), tuple(values))


_NO_OPTIONS = Options(frozenset(), frozenset(), ())


class Invocation:
    """One program run. Built once by the analysis and never changed after;
    a plain slotted class (not a named tuple) so its options can be read
    lazily: most invocations meet no rule that asks for them."""

    __slots__ = (
        "_options", "_values", "appended_args", "argv", "background", "cwd", "depth", "index",
        "links", "name", "oldcwd", "parent", "redirects", "remote", "span", "stdin_text",
        "upstream", "via",
    )  # fmt: skip

    def __init__(
        self,
        name: str,
        argv: tuple[Word, ...],
        redirects: tuple[Redirect, ...],
        span: Span,
        index: int = 0,
        via: tuple[str, ...] = (),
        depth: int = 0,
        remote: bool = False,
        appended_args: bool = False,
        upstream: tuple[int, ...] = (),
        parent: int = -1,
        stdin_text: str | None = None,
        cwd: str | None = None,
        background: bool = False,
    ) -> None:
        self.name = name
        self.argv = argv
        self.redirects = redirects
        self.span = span
        self.index = index
        # Wrappers and carriers this invocation was reached through, outermost first.
        self.via = via
        self.depth = depth
        self.remote = remote
        # More arguments are appended at run time (`xargs rm`, `find -exec rm {}`).
        self.appended_args = appended_args
        # Invocations whose output is piped into this one, and the one whose
        # argument holds this one inside `$( )`.
        self.upstream = upstream
        self.parent = parent
        # Text it reads on stdin, when known (heredoc, `<<<`, a static `echo` piped in).
        self.stdin_text = stdin_text
        # The working directory it runs in, when known (`cd /x && cmd` updates it).
        self.cwd = cwd
        # The directory before the last `cd`, when known (`~-`, `$OLDPWD`, `cd -`).
        self.oldcwd: str | None = None
        # Symbolic links made earlier in the command: path -> where it leads.
        self.links: dict[str, str] | None = None
        # It runs in the background (its list ends with `&`).
        self.background = background
        self._options: Options | None = None
        self._values: tuple[str, ...] | None = None

    def __repr__(self) -> str:
        return (
            f"Invocation({self.name!r}, argv={[w.value for w in self.argv]!r}, index={self.index})"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Invocation):
            return NotImplemented
        return all(
            getattr(self, k) == getattr(other, k)
            for k in self.__slots__
            if k not in ("_options", "_values")
        )

    __hash__ = None  # type: ignore[assignment]

    @property
    def options(self) -> Options:
        if self._options is None:
            self._options = read_options(self.argv) if self.argv else _NO_OPTIONS
        return self._options

    @property
    def args(self) -> tuple[Word, ...]:
        return self.argv[1:]

    @property
    def values(self) -> tuple[str, ...]:
        # Read by many rules per invocation: build it once.
        if self._values is None:
            values = tuple(word.value for word in self.argv[1:])
            known = LONG_OPTIONS.get(self.name)
            # `--recur` is `--recursive` for every rule that reads the words.
            self._values = values if known is None else expand(values, known)
        return self._values

    def has_flag(self, short: str = "", long: tuple[str, ...] = ()) -> bool:
        """Any of the short flag letters or long option names is present."""
        options = self.options
        return any(ch in options.short for ch in short) or any(n in options.long for n in long)

    def subcommand(self) -> str:
        """The first operand, lower-cased (`git push` -> `push`)."""
        operands = self.options.operands
        return operands[0].value.lower() if operands else ""
