"""From a command line to every invocation bash would run (F-SHELL-1..3).

Parses the text, follows wrappers (`sudo`, `env`, `xargs`, `find -exec`...)
and carriers (`sh -c`, `eval`, heredocs to a shell, static text piped to a
shell, shell calls inside inline interpreter code), and maps every span back
to the text the user gave.
"""

from collections.abc import Mapping
from types import MappingProxyType

from redline.decision import Span
from redline.fasttuple import NamedTuple
from redline.shell import (
    aliases,
    builtin_code,
    carriers,
    cwd_words,
    descriptors,
    fastpath,
    fed_names,
    find,
    made_links,
    paths,
    pure,
    subcommands,
)  # fmt: skip
from redline.shell import written_scripts as written
from redline.shell.carriers import SOURCE
from redline.shell.invocation import Invocation, command_name
from redline.shell.model import DYNAMIC, FunctionDef, Redirect, Script, SimpleCommand, Word
from redline.shell.wrappers import (
    SCRIPT_JOINERS,
    WRAPPERS,
    run_time_input,
    split_wrapper,
    xargs_replace,
)

TYPE_CHECKING = False  # not `typing`'s: kept off the hook's start (ADR 0004)
if TYPE_CHECKING:
    from redline.shell.bind_mounts import Mounts

MAX_CARRIER_DEPTH = 8
# Commands inside commands (wrappers, aliases, `find -exec`): past this many,
# wrappers are skipped to the innermost command and nothing more is followed.
MAX_NESTING = 64
# A bound on work: a command that expands to more invocations than this is
# not analysed further (and so is never allowed).
MAX_INVOCATIONS = 20_000
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
# Carriers that run their script in the current shell: a `cd` there stays.
_IN_PROCESS = SOURCE | {"eval"}
_NO_CHILDREN: Mapping[int, tuple[int, ...]] = MappingProxyType({})


class Analysis(NamedTuple):
    text: str
    invocations: tuple[Invocation, ...]
    functions: tuple[FunctionDef, ...]
    errors: tuple[str, ...]
    cwd: str | None = None
    # Parent index -> its children's indexes, built once per analysis.
    child_index: Mapping[int, tuple[int, ...]] = _NO_CHILDREN

    def children(self, inv: Invocation) -> tuple[Invocation, ...]:
        return tuple(self.invocations[k] for k in self.child_index.get(inv.index, ()))


class _Origin(NamedTuple):
    """Maps spans of a parsed text to the user's command: exactly when the
    text is a verbatim slice of it, else to the whole carrier word."""

    offset: int | None
    fallback: Span

    def map(self, span: Span) -> Span:
        if self.offset is None:
            return self.fallback
        return Span(self.offset + span.start, self.offset + span.end)

    def map_word(self, word: Word) -> Word:
        return word._replace(span=self.map(word.span))

    def map_redirect(self, redirect: Redirect) -> Redirect:
        target = redirect.target
        return redirect._replace(
            span=self.map(redirect.span), target=None if target is None else self.map_word(target)
        )

    def map_command(self, cmd: SimpleCommand) -> SimpleCommand:
        """The command with every word and redirect span in the user's text."""
        return cmd._replace(
            words=tuple(self.map_word(w) for w in cmd.words),
            redirects=tuple(self.map_redirect(r) for r in cmd.redirects),
            assignments=tuple(self.map_word(w) for w in cmd.assignments),
        )


class _Context(NamedTuple):
    """What the commands of a carried script get from their carrier: it is
    their parent, they share its stdin and run in the background with it."""

    parent: int = -1
    background: bool = False
    upstream: tuple[int, ...] = ()
    stdin: str | None = None


_TOP = _Context()


class _Builder:
    def __init__(self, text: str, cwd: str | None) -> None:
        self.text = text
        self.cwd = cwd
        self.oldcwd: str | None = None
        self.invocations: list[Invocation] = []
        self.functions: list[FunctionDef] = []
        self.errors: list[str] = []
        self.process_substitution = False
        self.background = False
        # Aliases defined so far, in the order the shell runs the commands.
        self.aliases: dict[str, str] = {}
        self.bodies: dict[str, str] = {}  # function name -> its body
        self.written: written.Written = {}  # files this command writes, with their text
        self.copies: written.Copies = {}  # files it copies from files on disk, by source
        self.links: made_links.Links = {}  # symbolic links it makes, to where they lead
        # What containers run with host paths mounted: invocations [start, end).
        self.mounted: list[tuple[int, int, Mounts]] = []
        # `$HOME` for the scripts the current command carries, when moved.
        self.home: str | None = None
        self.sockets: dict[str, Word] = {}  # descriptor -> `/dev/tcp/...` opened by `exec`
        self.seen: tuple[tuple[str, str], ...] = ()  # what the current `trap`'s action sees

    def add_script(
        self, text: str, origin: _Origin, depth: int, via: tuple[str, ...],
        env: tuple[tuple[str, str], ...] = (), remote: bool = False, context: _Context = _TOP,
    ) -> None:  # fmt: skip
        if depth > MAX_CARRIER_DEPTH:
            self.errors.append(f"scripts nested deeper than {MAX_CARRIER_DEPTH} levels")
            return
        dynamic = depth > 0 and DYNAMIC in text
        if dynamic:
            # Script text computed at run time is code no one can read: it
            # stands as a command whose program is unknown, never as text.
            self._unknown_code(origin.fallback, depth, via, remote, context)
            if not text.strip(DYNAMIC + " \t\n;"):
                return
        script = None if env or dynamic else fastpath.parse(text)
        if script is None:
            # Here, not at the top: most command lines take the fast path,
            # and the general parser and its modules are ~1 ms of a hook's start.
            from redline.shell.parser import Parser

            script = Parser(text, dict(env), dynamic).parse_full()
        if "<(" in text or ">(" in text:
            self.process_substitution = True
        where = f" (inside {via[-1]})" if via else ""
        self.errors.extend(error + where for error in script.errors)
        self.functions.extend(f._replace(span=origin.map(f.span)) for f in script.functions)
        if script.functions:
            self.bodies.update((f.name, f.text) for f in script.functions)
        first_of: list[int] = []
        # The innermost invocation of each command's wrapper chain: `$( )` in
        # `sudo kill $(pgrep x)` belongs to `kill`, not to `sudo`.
        innermost: list[int] = []
        mapped = origin.offset != 0
        marked = pure.may_mark(text)
        if env and not marked:  # a `trap`'s values may hold marks (`tmp=$(mktemp -d)`)
            marked = any(DYNAMIC in value for _, value in env)
        tildes = "~" in text and ("~+" in text or "~-" in text)
        for cmd in script.commands:
            first_of.append(len(self.invocations))
            if len(self.invocations) > MAX_INVOCATIONS:
                self.errors.append("command expands to too many invocations to analyse")
                return
            if mapped:
                cmd = origin.map_command(cmd)
            if marked:  # `$(pwd)`, `$(dirname "$PWD")`: their values, where this runs
                cmd = pure.resolve_command(cmd, self.cwd, pure.tmpdir_of(self.text))
            if tildes:  # `~+` is `$PWD`, `~-` is `$OLDPWD`
                cmd = cwd_words.tilde_dirs(cmd, self.cwd, self.oldcwd)
            upstream = self._upstream(script, cmd, first_of)
            stdin = self._stdin(script, cmd, first_of)
            if cmd.parent >= 0:
                parent = innermost[cmd.parent] if cmd.parent < len(innermost) else -1
                if cmd.reads_parent and parent >= 0:
                    upstream, stdin = self._reads(self.invocations[parent])
            else:
                parent = context.parent
                if cmd.position == 0 and not any(r.op[0] == "<" for r in cmd.redirects):
                    upstream = upstream or context.upstream
                    stdin = context.stdin if stdin is None else stdin
            self.background = cmd.background or context.background
            before = (self.cwd, self.oldcwd)
            self.home, self.seen = cmd.home, cmd.seen
            innermost.append(
                self.add_command(
                    cmd.words, cmd.redirects, origin.map(cmd.span), origin, depth, via, remote,
                    appended=False, upstream=upstream, parent=parent, stdin=stdin,
                )
            )  # fmt: skip
            if cmd.parent >= 0:  # a `cd` inside `$( )` stays in its subshell
                self.cwd, self.oldcwd = before
            if cmd.assignments:  # `GIT_SSH_COMMAND=CMD git fetch`: CMD runs too
                self._add_env_commands(cmd.assignments, innermost[-1], depth, via, remote)

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

    def _reads(self, writer: Invocation) -> tuple[tuple[int, ...], str | None]:
        """What a command inside `>( )` reads: its holder's output, and through
        `tee` what the holder read."""
        if writer.name == "tee":
            return (writer.index, *writer.upstream), writer.stdin_text
        return (writer.index,), carriers.static_output(writer)

    def _stdin(self, script: Script, cmd: SimpleCommand, first_of: list[int]) -> str | None:
        for redirect in cmd.redirects:
            if redirect.op in ("<<", "<<-", "<<<") and redirect.body is not None:
                body = redirect.body
                return body + "\n" if redirect.op == "<<<" else body
            if redirect.op == "<" and redirect.target and redirect.target.feeds:  # `< <(echo x)`
                return None if DYNAMIC in redirect.target.feeds else redirect.target.feeds
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
        deep = len(via) >= MAX_NESTING
        if deep:
            # `env env env ... rm -rf /`: the wrappers are skipped and the
            # innermost command is added, but nothing it runs is followed.
            argv = _peel_wrappers(argv)
            self._too_deep()
        expanded = None if deep else aliases.expand(argv, self.aliases, via)
        if expanded is not None:
            words, script = expanded
            label = (*via, aliases.label(argv[0].value))
            if script is None:
                return self.add_command(words, redirects, span, origin, depth, label, remote,
                                        appended, upstream, parent, stdin)  # fmt: skip
            first = len(self.invocations)
            self.add_script(script, _Origin(None, span), depth + 1, label, remote=remote,
                            context=_Context(parent, self.background, upstream, stdin))  # fmt: skip
            return first if first < len(self.invocations) else parent
        name = command_name(argv[0]) if argv else ""
        if self.sockets:  # `cat key >&3` after `exec 3<>/dev/tcp/h/80`
            piped = bool(upstream) or stdin is not None
            redirects = descriptors.through_sockets(redirects, self.sockets, piped)
        if name == "exec" and redirects:
            descriptors.sockets_opened(argv, redirects, self.sockets, self.text)
        index = innermost = len(self.invocations)
        inv = Invocation(
            name=name, argv=argv, redirects=redirects, span=span, index=index, via=via,
            depth=depth, remote=remote, appended_args=appended, upstream=upstream,
            parent=parent, stdin_text=stdin, cwd=self.cwd, background=self.background,
        )  # fmt: skip
        inv.oldcwd = self.oldcwd
        if self.links:
            inv.links = self.links
        if name in made_links.MAKERS:
            self.links = made_links.made(self.links, inv)
        self.invocations.append(inv)
        if self.written or self.copies or redirects or name in written.NOTED:  # `echo x > f; sh f`
            for carried in written.runs(self.written, self.copies, inv, self.text):
                self._add_carried(carried, inv, origin, depth, via, remote)
            written.note(self.written, self.copies, inv, self.invocations, self.text)
        if not argv or deep:
            return innermost
        if name in ("cd", "pushd") and not remote:
            self._change_directory(inv)
        elif name == "alias":
            self.aliases.update(aliases.definitions(inv))
        elif name == "hash":  # `hash -p FILE NAME`: NAME runs FILE from here on
            self.aliases.update(aliases.hashed(inv))
        if name in _SETS_ENVIRONMENT:  # `env PAGER=CMD man x`, `export GIT_SSH_COMMAND=CMD`
            self._add_env_commands(argv[1:], index, depth, via, remote)
        split = split_wrapper(name, argv)
        if split is not None:
            inner, lookup_only = split
            spec = WRAPPERS[name]
            if inner and not lookup_only:
                if name in SCRIPT_JOINERS:
                    text = " ".join(w.value for w in inner)
                    fallback = Span(inner[0].span.start, inner[-1].span.end)
                    self.add_script(text, _Origin(None, fallback), depth + 1, (*via, name),
                                    remote=remote or spec.remote,
                                    context=_Context(index, self.background))  # fmt: skip
                else:
                    replace = xargs_replace(argv) if name == "xargs" else None
                    labels: tuple[str, ...] = (name,)
                    feeder = self.invocations[upstream[-1]] if upstream else None
                    if name in _FED:  # `echo ~ | xargs rm -rf`: the names it runs on
                        known = fed_names.fed(name, argv, inner, feeder, stdin, replace)
                        if known is not None:
                            inner, labels = known[0], (known[1], name)
                    if replace:
                        inner = run_time_input(inner, replace)
                    innermost = self.add_command(
                        inner, redirects, span, origin, depth, (*via, *labels),
                        remote or spec.remote, appended or spec.appends_args,
                        upstream, index, stdin,
                    )  # fmt: skip
        if name == "find":
            self._find_exec(inv, origin, depth, via, remote)
        elif name in find.FD_NAMES:
            for flag, inner in find.fd_exec(argv):
                self.add_command(inner, (), inv.span, origin, depth, (*via, f"fd {flag}"), remote,
                                 True, (), inv.index, None)  # fmt: skip
        carried_here = carriers.carried_scripts(inv)
        if self.bodies or name in builtin_code.KEEPS_CODE:  # a function, a `trap`, `fc -s`
            carried_here = [*carried_here, *builtin_code.carried(inv, self.bodies, via)]
        if name in builtin_code.NAMERS:  # `read 'a[$(cmd)]'`: the subscript runs
            carried_here = [*carried_here, *builtin_code.subscripts(inv)]
        for carried in carried_here:
            self._add_carried(carried, inv, origin, depth, via, remote)
        for launch in subcommands.launches(inv):
            label, inner_remote = (*via, launch.label), remote or launch.remote
            first = len(self.invocations)
            if launch.script is not None:
                self.add_script(launch.script, _Origin(None, span), depth + 1, label,
                                remote=inner_remote,
                                context=_Context(index, self.background))  # fmt: skip
            elif launch.argv:
                self.add_command(launch.argv, (), span, origin, depth, label, inner_remote,
                                 appended, (), index, None)  # fmt: skip
            if launch.mounts is not None:
                self.mounted.append((first, len(self.invocations), launch.mounts))
        return innermost

    def _add_env_commands(
        self, words: tuple[Word, ...], parent: int, depth: int, via: tuple[str, ...],
        remote: bool,
    ) -> None:  # fmt: skip
        for word in words:
            text = carriers.env_command(word.value) if "=" in word.value else None
            if text is not None:
                label = (*via, word.value.split("=", 1)[0] + "=")
                self.add_script(text, _Origin(None, word.span), depth + 1, label, remote=remote,
                                context=_Context(parent, self.background))  # fmt: skip

    def _too_deep(self) -> None:
        error = f"commands nested deeper than {MAX_NESTING} levels (wrappers, aliases, -exec)"
        if error not in self.errors:
            self.errors.append(error)

    def _change_directory(self, inv: Invocation) -> None:
        operands = inv.options.operands
        old, self.oldcwd = self.cwd, self.cwd
        if not operands:
            self.cwd = "~"
            return
        word = operands[0]
        if word.value == "-":
            self.cwd, self.oldcwd = inv.oldcwd, old
            return
        value = cwd_words.spelled(word.raw or word.value, self.cwd, inv.oldcwd) or word.value
        if not value.startswith(("/", "~", ".")) and "CDPATH=" in self.text:
            value = cwd_words.through_cdpath(self.text, value)
        target = paths.normalize(value, self.cwd)
        # Only a known absolute or home directory keeps later targets exact.
        self.cwd = target if target is not None and target.startswith(("/", "~")) else None

    def _add_carried(
        self, carried: carriers.Carried, inv: Invocation, origin: _Origin, depth: int,
        via: tuple[str, ...], remote: bool,
    ) -> None:  # fmt: skip
        # Word spans are already in the user's text (`add_script` mapped them).
        word = carried.word
        if word is not None and origin.offset is not None and _verbatim(word):
            inner_origin = _Origin(word.span.start + (1 if word.quoted else 0), word.span)
        else:
            inner_origin = _Origin(None, word.span if word else inv.span)
        # A script read from stdin consumes it; any other shares it.
        shares = carried.shares_stdin
        context = _Context(
            inv.index, inv.background, inv.upstream if shares else (),
            inv.stdin_text if shares else None,
        )  # fmt: skip
        cwd, home = self.cwd, self.home
        env = carried.env if home is None or remote else (*carried.env, ("HOME", home))
        text = carried.text
        if carried.label == "trap":  # run later, with the variables as they were set
            env = (*env, *self.seen)
            if DYNAMIC in text and pure.only_marks(text):  # `trap "rm -rf $tmp" EXIT`
                text = pure.resolve(text, cwd, True, pure.tmpdir_of(self.text))
        self.add_script(text, inner_origin, depth + 1, (*via, carried.label),
                        env, remote or carried.remote, context)  # fmt: skip
        self.home = home
        if inv.name not in _IN_PROCESS:
            self.cwd = cwd  # a child shell's `cd` ends with it

    def _unknown_code(
        self, span: Span, depth: int, via: tuple[str, ...], remote: bool, context: _Context
    ) -> None:
        word = Word(self.text[span.start : span.end], span, DYNAMIC)
        self.background = context.background
        self.add_command((word,), (), span, _Origin(None, span), depth, via, remote, False,
                         context.upstream, context.parent, context.stdin)  # fmt: skip

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


# Wrappers that make arguments of what they read on stdin.
_FED = frozenset({"xargs", "parallel"})
# Commands whose arguments set environment variables for what runs next.
_SETS_ENVIRONMENT = frozenset({"env", "export", "declare", "typeset", "local", "readonly"})


def _peel_wrappers(argv: tuple[Word, ...]) -> tuple[Word, ...]:
    """The command inside a chain of wrappers, found with a loop (no recursion)."""
    while argv:
        name = command_name(argv[0])
        split = split_wrapper(name, argv)
        if split is None or split[1] or not split[0] or name in SCRIPT_JOINERS:
            return argv
        argv = split[0]
    return argv


def _verbatim(word: Word) -> bool:
    """The word's value is its source text, less one pair of quotes."""
    raw = word.raw
    if raw == word.value:
        return True
    return len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"" and raw[1:-1] == word.value


def analyze(text: str, cwd: str | None = None) -> Analysis:
    builder = _Builder(text, cwd)
    try:
        builder.add_script(text, _Origin(0, Span(0, len(text))), 0, ())
    except RecursionError:
        # A backstop behind `MAX_NESTING`: what was found so far is kept, and
        # the error makes the command unparsed (never allowed).
        builder.errors.append("the command is nested too deeply to analyse")
    invocations = builder.invocations
    if builder.mounted:
        from redline.shell import bind_mounts  # only after `docker run -v`

        bind_mounts.map_scopes(invocations, builder.mounted)
    children: dict[int, list[int]] = {}
    for inv in invocations:
        if inv.parent >= 0:
            children.setdefault(inv.parent, []).append(inv.index)
    child_index = {k: tuple(v) for k, v in children.items()} if children else _NO_CHILDREN
    if builder.process_substitution:
        descriptors.link_process_substitutions(invocations, child_index)
    return Analysis(text, tuple(invocations), tuple(builder.functions),
                    tuple(builder.errors), cwd, child_index)  # fmt: skip
