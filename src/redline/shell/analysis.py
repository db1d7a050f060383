"""From a command line to every invocation bash would run (F-SHELL-1..3).

Parses the text, follows wrappers (`sudo`, `env`, `xargs`, `find -exec`...)
and carriers (`sh -c`, `eval`, heredocs to a shell, static text piped to a
shell, shell calls inside inline interpreter code), and maps every span back
to the text the user gave.
"""

from __future__ import annotations

from typing import NamedTuple

from redline.decision import Span
from redline.shell import carriers, fastpath, find, paths, subcommands
from redline.shell.invocation import Invocation, command_name
from redline.shell.model import DYNAMIC, FunctionDef, Redirect, Script, SimpleCommand, Word
from redline.shell.parser import Parser
from redline.shell.wrappers import SCRIPT_JOINERS, WRAPPERS, split_wrapper

MAX_CARRIER_DEPTH = 8
# A bound on work: a command that expands to more invocations than this is
# not analysed further (and so is never allowed).
MAX_INVOCATIONS = 20_000
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


class Analysis(NamedTuple):
    text: str
    invocations: tuple[Invocation, ...]
    functions: tuple[FunctionDef, ...]
    errors: tuple[str, ...]
    cwd: str | None = None

    def children(self, inv: Invocation) -> tuple[Invocation, ...]:
        return tuple(other for other in self.invocations if other.parent == inv.index)


class _Origin(NamedTuple):
    """Maps spans of a parsed text to the user's command: exactly when the
    text is a verbatim slice of it, else to the whole carrier word."""

    offset: int | None
    fallback: Span

    def map(self, span: Span) -> Span:
        if self.offset is None:
            return self.fallback
        return Span(self.offset + span.start, self.offset + span.end)


class _Builder:
    def __init__(self, text: str, cwd: str | None) -> None:
        self.text = text
        self.cwd = cwd
        self.invocations: list[Invocation] = []
        self.functions: list[FunctionDef] = []
        self.errors: list[str] = []
        self.process_substitution = False
        self.background = False

    def add_script(
        self, text: str, origin: _Origin, depth: int, via: tuple[str, ...],
        env: tuple[tuple[str, str], ...] = (), remote: bool = False,
    ) -> None:  # fmt: skip
        if depth > MAX_CARRIER_DEPTH:
            self.errors.append(f"scripts nested deeper than {MAX_CARRIER_DEPTH} levels")
            return
        script = (None if env else fastpath.parse(text)) or Parser(text, dict(env)).parse_full()
        if "<(" in text or ">(" in text:
            self.process_substitution = True
        where = f" (inside {via[-1]})" if via else ""
        self.errors.extend(error + where for error in script.errors)
        self.functions.extend(f._replace(span=origin.map(f.span)) for f in script.functions)
        first_of: list[int] = []
        # The innermost invocation of each command's wrapper chain: `$( )` in
        # `sudo kill $(pgrep x)` belongs to `kill`, not to `sudo`.
        innermost: list[int] = []
        for cmd in script.commands:
            first_of.append(len(self.invocations))
            if len(self.invocations) > MAX_INVOCATIONS:
                self.errors.append("command expands to too many invocations to analyse")
                return
            upstream = self._upstream(script, cmd, first_of)
            parent = innermost[cmd.parent] if 0 <= cmd.parent < len(innermost) else -1
            stdin = self._stdin(script, cmd, first_of)
            self.background = cmd.background
            innermost.append(
                self.add_command(
                    cmd.words, cmd.redirects, origin.map(cmd.span), origin, depth, via, remote,
                    appended=False, upstream=upstream, parent=parent, stdin=stdin,
                )
            )  # fmt: skip

    def _upstream(self, script: Script, cmd: SimpleCommand, first_of: list[int]) -> tuple[int, ...]:
        if cmd.pipeline < 0 or cmd.position == 0:
            return ()
        members = script.pipelines[cmd.pipeline]
        found: list[int] = []
        for k in members:
            other = script.commands[k]
            if other.position < cmd.position and k < len(first_of):
                end = first_of[k + 1] if k + 1 < len(first_of) else len(self.invocations)
                found.extend(range(first_of[k], end))
        return tuple(found)

    def _stdin(self, script: Script, cmd: SimpleCommand, first_of: list[int]) -> str | None:
        for redirect in cmd.redirects:
            if redirect.op in ("<<", "<<-", "<<<") and redirect.body is not None:
                body = redirect.body
                return body + "\n" if redirect.op == "<<<" else body
        if cmd.pipeline < 0 or cmd.position == 0:
            return None
        feeders = [
            k for k in script.pipelines[cmd.pipeline]
            if script.commands[k].position == cmd.position - 1 and k < len(first_of)
        ]  # fmt: skip
        if len(feeders) != 1 or first_of[feeders[0]] >= len(self.invocations):
            return None
        return carriers.static_output(self.invocations[first_of[feeders[0]]])

    def add_command(
        self, argv: tuple[Word, ...], redirects: tuple[Redirect, ...], span: Span,
        origin: _Origin, depth: int, via: tuple[str, ...], remote: bool, appended: bool,
        upstream: tuple[int, ...], parent: int, stdin: str | None,
    ) -> int:  # fmt: skip
        """Add one invocation and whatever it runs; return the innermost of its
        wrapper chain (`rm` for `sudo timeout 5 rm`)."""
        if not argv and not redirects:
            return parent
        name = command_name(argv[0]) if argv else ""
        index = innermost = len(self.invocations)
        inv = Invocation(
            name=name, argv=argv, redirects=redirects, span=span, index=index, via=via,
            depth=depth, remote=remote, appended_args=appended, upstream=upstream,
            parent=parent, stdin_text=stdin, cwd=self.cwd, background=self.background,
        )  # fmt: skip
        self.invocations.append(inv)
        if not argv:
            return innermost
        if name in ("cd", "pushd") and not remote:
            self._change_directory(inv)
        split = split_wrapper(name, argv)
        if split is not None:
            inner, lookup_only = split
            spec = WRAPPERS[name]
            if inner and not lookup_only:
                if name in SCRIPT_JOINERS:
                    text = " ".join(w.value for w in inner)
                    fallback = Span(origin.map(inner[0].span).start, origin.map(inner[-1].span).end)
                    self.add_script(text, _Origin(None, fallback), depth + 1, (*via, name),
                                    remote=remote or spec.remote)  # fmt: skip
                else:
                    innermost = self.add_command(
                        inner, redirects, span, origin, depth, (*via, name),
                        remote or spec.remote, appended or spec.appends_args,
                        upstream, index, stdin,
                    )  # fmt: skip
        if name == "find":
            self._find_exec(inv, origin, depth, via, remote)
        for carried in carriers.carried_scripts(inv):
            self._add_carried(carried, inv, origin, depth, via, remote)
        for launch in subcommands.launches(inv):
            label, inner_remote = (*via, launch.label), remote or launch.remote
            if launch.script is not None:
                self.add_script(launch.script, _Origin(None, span), depth + 1, label,
                                remote=inner_remote)  # fmt: skip
            elif launch.argv:
                self.add_command(launch.argv, (), span, origin, depth, label, inner_remote,
                                 appended, (), index, None)  # fmt: skip
        return innermost

    def _change_directory(self, inv: Invocation) -> None:
        operands = inv.options.operands
        if not operands:
            self.cwd = "~"
            return
        target = paths.normalize(operands[0].value, self.cwd)
        # Only a known absolute or home directory keeps later targets exact.
        self.cwd = target if target is not None and target.startswith(("/", "~")) else None

    def _add_carried(
        self, carried: carriers.Carried, inv: Invocation, origin: _Origin, depth: int,
        via: tuple[str, ...], remote: bool,
    ) -> None:  # fmt: skip
        word = carried.word
        if word is not None and origin.offset is not None and _verbatim(word):
            inner_origin = _Origin(origin.offset + word.span.start + (1 if word.quoted else 0),
                                   origin.map(word.span))  # fmt: skip
        else:
            inner_origin = _Origin(None, origin.map(word.span) if word else inv.span)
        self.add_script(carried.text, inner_origin, depth + 1, (*via, carried.label),
                        carried.env, remote or carried.remote)  # fmt: skip

    def _find_exec(
        self, inv: Invocation, origin: _Origin, depth: int, via: tuple[str, ...], remote: bool
    ) -> None:
        argv = inv.argv
        starts = find.roots(argv) or (Word(".", inv.span, "."),)
        k = 1
        while k < len(argv):
            if argv[k].value in _FIND_EXEC:
                end = k + 1
                while end < len(argv) and argv[end].value not in (";", "+"):
                    end += 1
                inner: list[Word] = []
                for word in argv[k + 1 : end]:
                    if "{}" not in word.value:
                        inner.append(word)
                        continue
                    # Each file found replaces `{}`: stand for them by the roots.
                    for root in starts:
                        found = find.standing_for_found(root.value, argv)
                        inner.append(word._replace(value=word.value.replace("{}", found)))
                if inner:
                    self.add_command(tuple(inner), (), inv.span, origin, depth,
                                     (*via, "find " + argv[k].value), remote, True, (),
                                     inv.index, None)  # fmt: skip
                k = end
            k += 1


def _verbatim(word: Word) -> bool:
    """The word's value is its source text, less one pair of quotes."""
    raw = word.raw
    if raw == word.value:
        return True
    return len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"" and raw[1:-1] == word.value


def analyze(text: str, cwd: str | None = None) -> Analysis:
    builder = _Builder(text, cwd)
    builder.add_script(text, _Origin(0, Span(0, len(text))), 0, ())
    invocations = builder.invocations
    if builder.process_substitution:
        invocations = _link_process_substitutions(invocations)
    return Analysis(text, tuple(invocations), tuple(builder.functions),
                    tuple(builder.errors), cwd)  # fmt: skip


def _link_process_substitutions(invocations: list[Invocation]) -> list[Invocation]:
    """`bash <(curl ...)`: what runs in the substitution feeds the reader.
    Runs while the analysis is still being built, before anyone sees it."""
    for inv in invocations:
        if any(w.value.startswith("/dev/fd/" + DYNAMIC) for w in inv.argv[1:]):
            feeders = tuple(o.index for o in invocations if o.parent == inv.index)
            inv.upstream = inv.upstream + feeders
    return invocations
