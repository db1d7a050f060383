"""A bash parser that finds every simple command bash would run (F-SHELL-1).

It is tolerant: on malformed input it records an error and keeps going, so
the commands it could see are still judged, and the error makes the call at
least ASK. Nesting and input size are bounded (F-SHELL-7).
"""

from __future__ import annotations

from collections.abc import Mapping

from redline.decision import Span
from redline.shell import backticks, fastpath, lexer, positionals, trap_values, variables
from redline.shell.compound import CompoundParser
from redline.shell.model import DYNAMIC, FunctionDef, Redirect, Script, SimpleCommand, Word
from redline.shell.words import WordScanner


class _Cmd:
    """A simple command while the parser is still filling it in."""

    __slots__ = ("assignments", "background", "end", "home", "parent", "pipeline", "position",
                 "reads_parent", "redirects", "seen", "start", "words")  # fmt: skip

    def __init__(
        self, words: list[Word], redirects: list[Redirect], assignments: list[Word], start: int,
        end: int = 0, parent: int = -1, pipeline: int = -1, position: int = 0,
    ) -> None:  # fmt: skip
        self.words, self.redirects, self.assignments = words, redirects, assignments
        self.start, self.end, self.parent = start, end, parent
        self.pipeline, self.position = pipeline, position
        self.background = False
        self.reads_parent = False
        self.home: str | None = None
        self.seen: trap_values.Seen = ()


class ParseAbort(Exception):
    """Raised inside the parser when a bound is hit; the parse stops there."""


class Parser(CompoundParser, WordScanner):
    def __init__(
        self, src: str, env: Mapping[str, str] | None = None, dynamic: bool = False
    ) -> None:
        self.src = src
        # The text came from a carrier with parts computed at run time: its NUL
        # characters are `DYNAMIC` markers, not bytes the user typed.
        self.dynamic = dynamic
        self.n = len(src)
        self.i = 0
        self.cmds: list[_Cmd] = []
        self.pipelines: list[tuple[int, ...]] = []
        self.functions: list[FunctionDef] = []
        self.errors: list[str] = []
        self.depth = 0
        self.blocks: list[str] = []
        self.heredoc_resume: int | None = None
        # Variables with values known at parse time; `$HOME` is spelled `~`.
        self.vars: dict[str, str] = {"HOME": "~"}
        if env:
            self.vars.update(env)
        self.current_cmd = -1
        self.caller_args_read = 0  # `$@`, `$*` of unknown parameters read
        self.arrays: dict[int, tuple[str, ...]] = {}  # `a=(x y)`: its elements, by offset

    # -- entry -------------------------------------------------------------

    def parse(self) -> Script:
        quick = fastpath.parse(self.src) if len(self.vars) == 1 else None
        return quick if quick is not None else self.parse_full()

    def parse_full(self) -> Script:
        """The general parser, for anything the fast path declines."""
        if self.n > lexer.MAX_INPUT_CHARS:
            self.errors.append(f"command is longer than {lexer.MAX_INPUT_CHARS} characters")
            return self._script()
        if "\x00" in self.src and not self.dynamic:
            self.errors.append("command contains a NUL byte")
        try:
            self.parse_list(closer=None)
        except ParseAbort:
            pass
        except RecursionError:
            self.errors.append("command is nested too deeply to analyse")
        if self.blocks:
            self.errors.append(f"`{self.blocks[-1]}` is never closed")
        return self._script()

    def _script(self) -> Script:
        commands = tuple(
            SimpleCommand(
                words=tuple(c.words),
                redirects=tuple(c.redirects),
                span=Span(c.start, max(c.end, c.start)),
                assignments=tuple(c.assignments),
                pipeline=c.pipeline,
                position=c.position,
                parent=c.parent,
                background=c.background,
                reads_parent=c.reads_parent,
                home=c.home,
                seen=c.seen,
            )
            for c in self.cmds
        )
        return Script(commands, tuple(self.pipelines), tuple(self.functions), tuple(self.errors))

    # -- structure ---------------------------------------------------------

    def _enter(self) -> None:
        self.depth += 1
        if self.depth > lexer.MAX_NESTING:
            self.errors.append(f"command nests deeper than {lexer.MAX_NESTING} levels")
            raise ParseAbort

    def skip_blanks(self) -> None:
        src, n = self.src, self.n
        while self.i < n:
            c = src[self.i]
            if c == " " or c == "\t":
                m = lexer.BLANKS.match(src, self.i)
                self.i = m.end() if m else self.i + 1
            elif c == "\\" and src.startswith("\\\n", self.i):
                self.i += 2
            elif c == "#":
                nl = src.find("\n", self.i)
                self.i = n if nl == -1 else nl
            else:
                return

    def parse_list(self, closer: str | None) -> None:
        """Parse commands until `closer` (`)`, `;;`, a block word) or the end."""
        self._enter()
        src = self.src
        while True:
            self.skip_blanks()
            if self.i >= self.n:
                break
            c = src[self.i]
            if c == "\n":
                self._newline()
                continue
            if c == ")":
                if closer == ")":
                    break
                self.errors.append(f"unexpected `)` at offset {self.i}")
                self.i += 1
                continue
            if src.startswith(";;", self.i) or src.startswith(";&", self.i):
                if closer == ";;":
                    break
                self.errors.append(f"unexpected `;;` at offset {self.i}")
                self.i += 2
                continue
            if c in ";&|":
                if src.startswith("&&", self.i) or src.startswith("||", self.i):
                    self.errors.append(f"`{src[self.i : self.i + 2]}` with no command before it")
                    self.i += 2
                elif c == "|":
                    self.errors.append(f"`|` with no command before it at offset {self.i}")
                    self.i += 1
                else:
                    self.errors.append(f"`{c}` with no command before it at offset {self.i}")
                    self.i += 1
                continue
            if closer == ";;" and self._at_word("esac"):
                break
            before = self.i
            self.parse_and_or()
            if self.i == before:
                self.errors.append(f"unexpected `{c}` at offset {self.i}")
                self.i += 1
        self.depth -= 1

    def _newline(self) -> None:
        self.i += 1
        if self.heredoc_resume is not None:
            self.i = max(self.i, self.heredoc_resume)
            self.heredoc_resume = None

    def _at_word(self, word: str) -> bool:
        end = self.i + len(word)
        return self.src.startswith(word, self.i) and (
            end >= self.n or self.src[end] in lexer.WORD_BREAK
        )

    def parse_and_or(self) -> None:
        src = self.src
        first = len(self.cmds)
        while True:
            self.parse_pipeline()
            self.skip_blanks()
            if src.startswith("&&", self.i) or src.startswith("||", self.i):
                self.i += 2
                while True:  # a newline may follow && and ||
                    self.skip_blanks()
                    if self.i < self.n and src[self.i] == "\n":
                        self._newline()
                    else:
                        break
                continue
            at_separator = self.i < self.n and src[self.i] in ";&"
            if at_separator and not src.startswith((";;", ";&", "&>", "&&"), self.i):
                if src[self.i] == "&":
                    for cmd in self.cmds[first:]:
                        cmd.background = True
                self.i += 1
            return

    def parse_pipeline(self) -> None:
        stages: list[range] = []
        src = self.src
        while True:
            first = len(self.cmds)
            self.parse_command()
            stages.append(range(first, len(self.cmds)))
            self.skip_blanks()
            if src.startswith("|", self.i) and not src.startswith("||", self.i):
                self.i += 2 if src.startswith("|&", self.i) else 1
                while True:
                    self.skip_blanks()
                    if self.i < self.n and src[self.i] == "\n":
                        self._newline()
                    else:
                        break
                if self.i >= self.n:
                    self.errors.append("`|` with no command after it")
                continue
            break
        if len(stages) > lexer.MAX_PIPELINE_STAGES:
            self.errors.append(f"pipeline has more than {lexer.MAX_PIPELINE_STAGES} stages")
        elif len(stages) > 1:
            index = len(self.pipelines)
            members: list[int] = []
            for position, stage in enumerate(stages):
                for k in stage:
                    cmd = self.cmds[k]
                    if cmd.pipeline == -1 and cmd.parent == self.current_cmd:
                        cmd.pipeline, cmd.position = index, position
                        members.append(k)
            self.pipelines.append(tuple(members))

    def parse_command(self) -> None:
        """One command: a keyword construct, a subshell, a group or a simple command."""
        self.skip_blanks()
        src = self.src
        if self.i >= self.n:
            return
        c = src[self.i]
        if c == "(":
            if src.startswith("((", self.i):
                self._arithmetic_command()
            else:
                self.i += 1
                self.parse_list(closer=")")
                self._expect(")")
            self._trailing_redirects()
            return
        keyword = self._peek_keyword()
        if keyword is not None:
            self._keyword(keyword)
            return
        self.parse_simple()

    def _expect(self, token: str) -> None:
        self.skip_blanks()
        if self.src.startswith(token, self.i):
            self.i += len(token)
        else:
            self.errors.append(f"expected `{token}` at offset {self.i}")

    def _peek_keyword(self) -> str | None:
        match = lexer.KEYWORD.match(self.src, self.i)
        if match is None or match.group(0) not in lexer.COMMAND_KEYWORDS:
            return None
        word = match.group(0)
        end = match.end()
        if word in ("{", "}") and end < self.n and self.src[end] not in " \t\n;":
            return None
        return word

    # -- simple commands ---------------------------------------------------

    def command_count(self) -> int:
        return len(self.cmds)

    def mark_readers(self, first: int) -> None:
        """The commands from `first` on that the current one holds read its output."""
        for cmd in self.cmds[first:]:
            if cmd.parent == self.current_cmd:
                cmd.reads_parent = True

    def _wordless(self, redirects: list[Redirect], start: int) -> None:
        """Redirects of a compound command, kept as a command with no words."""
        self.cmds.append(_Cmd([], redirects, [], start, self.i, parent=self.current_cmd))

    def parse_simple(self) -> None:
        src = self.src
        if len(self.cmds) >= lexer.MAX_COMMANDS:
            self.errors.append(f"command holds more than {lexer.MAX_COMMANDS} simple commands")
            raise ParseAbort
        cmd = _Cmd([], [], [], self.i, parent=self.current_cmd)
        caller_args_before = self.caller_args_read
        index = len(self.cmds)
        self.cmds.append(cmd)
        outer, self.current_cmd = self.current_cmd, index
        try:
            while True:
                cmd.end = self.i  # the span ends at the last word, not at trailing blanks
                self.skip_blanks()
                if self.i >= self.n:
                    break
                c = src[self.i]
                if c in "\n;|)" or (c == "&" and not src.startswith("&>", self.i)):
                    break
                redirect = self.scan_redirect()
                if redirect is not None:
                    cmd.redirects.append(redirect)
                    continue
                if c == "(":
                    if len(cmd.words) == 1 and not cmd.assignments:
                        close = src.find(")", self.i)
                        if close != -1 and not src[self.i + 1 : close].strip():
                            self.i = close + 1
                            name = cmd.words[0].value
                            self.cmds.pop()
                            self.current_cmd = outer
                            self.skip_blanks()
                            while self.i < self.n and src[self.i] == "\n":
                                self._newline()
                                self.skip_blanks()
                            self._function_body(name, self.i)
                            return
                    self.errors.append(f"unexpected `(` at offset {self.i}")
                    self.i += 1
                    continue
                if not cmd.words and lexer.ASSIGNMENT.match(src, self.i):
                    cmd.assignments.extend(self._assignment())
                    continue
                if cmd.words and cmd.words[0].value in positionals.DECLARATIONS:
                    match = lexer.ASSIGNMENT.match(src, self.i)
                    if match and src.startswith("(", match.end()):
                        # `declare -a v=(1 2)`: an array value is one argument.
                        cmd.words.extend(self._assignment())
                        continue
                cmd.words.extend(self.scan_word())
        finally:
            self.current_cmd = outer
        cmd.home = variables.home_seen(self.vars, cmd.assignments)
        if len(cmd.words) > 2 and cmd.words[0].value == "trap":  # its action runs later
            cmd.seen = trap_values.seen(cmd.words, self.vars, self.src[self.i :], self.functions)
        if self.caller_args_read != caller_args_before and len(cmd.words) > 1:
            self._both_readings(cmd)
        for code in variables.after(self.vars, cmd.words, cmd.assignments, cmd.redirects,
                                    self.arrays):  # fmt: skip
            self.evaluates(code, cmd.start)

    def _both_readings(self, cmd: _Cmd) -> None:
        """`$@ rm x`: no arguments (most often), or they are the program: both."""
        kept, program = positionals.readings(cmd.words)
        if program:
            reading = _Cmd(program, list(cmd.redirects), [], cmd.start, cmd.end, cmd.parent)
            self.cmds.append(reading)
        cmd.words = kept

    def _assignment(self) -> list[Word]:
        match = lexer.ASSIGNMENT.match(self.src, self.i)
        if match and self.src.startswith("(", match.end()):
            start = self.i
            self.i = match.end() + 1
            values: list[Word] = []
            while self.i < self.n and self.src[self.i] != ")":
                if self.src[self.i] in " \t\n":
                    self.i += 1
                    continue
                before = self.i
                values.extend(self.scan_word())
                if self.i == before:
                    self.i += 1
            self.i = min(self.i + 1, self.n)
            raw = self.src[start : self.i]
            self.arrays[start] = tuple(w.value for w in values)
            return [Word(raw, Span(start, self.i), match.group(0) + DYNAMIC)]
        return self.scan_word(split=False)

    def scan_redirect(self) -> Redirect | None:
        src = self.src
        match = lexer.REDIRECT.match(src, self.i)
        if match is None:
            return None
        op = match.group(2)
        if op in ("<", ">") and src.startswith("(", match.end()):
            return None  # process substitution: a word, not a redirect
        start = self.i
        fd_text = match.group(1)
        fd = int(fd_text) if fd_text and fd_text.isdigit() else None
        self.i = match.end()
        self.skip_blanks()
        if op in ("<<", "<<-"):
            return self._heredoc(op, fd, start)
        at_substitution = src.startswith(("<(", ">("), self.i)
        if self.i >= self.n or (src[self.i] in "\n;&|<>)" and not at_substitution):
            self.errors.append(f"redirect `{op}` has no target")
            return Redirect(op, None, Span(start, self.i), fd)
        words = self.scan_word(split=False)
        target = words[0] if words else None
        body = target.value if op == "<<<" and target is not None else None
        return Redirect(op, target, Span(start, self.i), fd, body=body, body_literal=False)

    def _heredoc(self, op: str, fd: int | None, start: int) -> Redirect:
        words = self.scan_word(split=False)
        if not words:
            self.errors.append("heredoc has no delimiter")
            return Redirect(op, None, Span(start, self.i), fd)
        delim_word = words[0]
        delimiter = delim_word.value.replace(DYNAMIC, "")
        body_start = self.heredoc_resume
        if body_start is None:
            newline = self.src.find("\n", self.i)
            body_start = self.n if newline == -1 else newline + 1
        lines: list[str] = []
        pos = body_start
        closed = False
        while pos < self.n:
            newline = self.src.find("\n", pos)
            line_end = self.n if newline == -1 else newline
            line = self.src[pos:line_end]
            pos = line_end + 1
            if (line.lstrip("\t") if op == "<<-" else line) == delimiter:
                closed = True
                break
            lines.append(line)
        if not closed:
            self.errors.append(f"heredoc `{delimiter}` is never closed")
        self.heredoc_resume = min(pos, self.n)
        body = "\n".join(lines) + ("\n" if lines else "")
        literal = delim_word.quoted
        if not literal:
            self._substitutions_in(body_start, min(pos, self.n))
        return Redirect(op, delim_word, Span(start, self.i), fd, body=body, body_literal=literal)

    def _substitutions_in(self, start: int, end: int) -> None:
        """Parse the `$( )` and backticks inside text that is otherwise data."""
        src = self.src
        i = start
        while i < end:
            dollar = src.find("$(", i, end)
            tick = src.find("`", i, end)
            if dollar == -1 and tick == -1:
                return
            if dollar != -1 and (tick == -1 or dollar < tick):
                if src.startswith("$((", dollar):
                    i = dollar + 3
                    continue
                saved = self.i
                self.i = dollar + 2
                self.parse_list(closer=")")
                i = self.i + 1
                self.i = saved
            else:
                close = src.find("`", tick + 1, end)
                if close == -1:
                    self.errors.append("backtick is never closed")
                    return
                self._sub_parse(src[tick + 1 : close], tick + 1)
                i = close + 1

    def _sub_parse(self, text: str, offset: int, pinned: bool = False) -> None:
        """Parse `text` (the inside of backticks) as commands at `offset`;
        `pinned`: text that is not in the source, all of it at `offset`."""
        self._enter()
        inner_text, where = backticks.unescape(text, offset)
        where = [offset] * len(where) if pinned else where
        inner = Parser(inner_text, self.vars, self.dynamic)
        inner.depth = self.depth
        script = inner.parse()
        self.depth -= 1
        base = len(self.cmds)
        for command in script.commands:
            span = backticks.remap(command.span, where)
            parent = command.parent + base if command.parent >= 0 else self.current_cmd
            pipeline = command.pipeline + len(self.pipelines) if command.pipeline >= 0 else -1
            copied = _Cmd(
                [backticks.remap_word(w, where) for w in command.words],
                [backticks.remap_redirect(r, where) for r in command.redirects],
                [backticks.remap_word(w, where) for w in command.assignments],
                span.start,
                span.end,
                parent,
                pipeline,
                command.position,
            )
            copied.background = command.background
            copied.reads_parent, copied.home = command.reads_parent, command.home
            self.cmds.append(copied)
        self.pipelines.extend(tuple(m + base for m in p) for p in script.pipelines)
        functions = script.functions
        self.functions.extend(f._replace(span=backticks.remap(f.span, where)) for f in functions)
        self.errors.extend(script.errors)
