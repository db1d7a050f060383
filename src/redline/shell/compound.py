"""Compound commands: `if`, loops, `case`, `[[ ]]`, `(( ))` and functions.

A mixin for `Parser`. Reserved words are structure, their bodies are parsed
like any command list, and every block must be closed (F-SHELL-1).
"""

from __future__ import annotations

from redline.decision import Span
from redline.shell import lexer, variables
from redline.shell.lazy_regex import lazy_regex
from redline.shell.loop_values import MAX_REPEATS, bind, loop_values
from redline.shell.model import FunctionDef, Redirect, SimpleCommand, Word
from redline.shell.read_loops import ReadLoops

_ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from typing import Any


# A coprocess's name, when a compound command follows it.
_COPROC_NAME = lazy_regex(
    r"[A-Za-z_][A-Za-z0-9_]*[ \t]+(?=\{[ \t\n]|\(|(?:while|until|for|if|case|\[\[)[ \t\n;(])"
)


class CompoundParser(ReadLoops):
    src: str
    n: int
    i: int
    cmds: list[Any]
    functions: list[FunctionDef]
    errors: list[str]
    blocks: list[str]
    current_cmd: int
    vars: dict[str, str]
    arrays: dict[int, tuple[str, ...]]

    if TYPE_CHECKING:

        def skip_blanks(self) -> None: ...

        def _newline(self) -> None: ...

        def _at_word(self, word: str) -> bool: ...

        def _peek_keyword(self) -> str | None: ...

        def parse_list(self, closer: str | None) -> None: ...

        def parse_and_or(self) -> None: ...

        def parse_pipeline(self) -> None: ...

        def parse_command(self) -> None: ...

        def scan_word(self, split: bool = True) -> list[Word]: ...

        def scan_redirect(self) -> Redirect | None: ...

        def _substitutions_in(self, start: int, end: int) -> None: ...

        def evaluates(self, code: str, offset: int) -> None: ...

        def _wordless(self, redirects: list[Redirect], start: int) -> None: ...

    def _keyword(self, word: str) -> None:
        self.i += len(word)
        if word in ("fi", "done", "esac", "}"):
            if self.blocks and lexer.BLOCK_CLOSER[self.blocks[-1]] == word:
                self.blocks.pop()
            else:
                self.errors.append(f"`{word}` does not close an open block")
            self._trailing_redirects()
            return
        if word == "function":
            self.skip_blanks()
            name = self.scan_word(split=False)
            self.skip_blanks()
            if self.src.startswith("()", self.i):
                self.i += 2
            self._function_body(name[0].value if name else "", self.i)
            return
        if word == "[[":
            self._conditional()
            return
        if word in lexer.BLOCK_CLOSER:
            self.blocks.append(word)
            if word in ("for", "select"):
                loop = self._for_header()
                if loop is not None:  # `select` runs its body with one of the words too
                    self._each_pass(*loop)
                    return
            elif word == "case":
                self._case()
                return
            elif self.read_loop(word, self.i - len(word)):  # `while read d; ...; done <<< x`
                return
            first = len(self.cmds)
            self._until_closed(len(self.blocks) - 1)
            if word == "{" and len(self.cmds) > first + 1:
                self._group_input(first)
            return
        if word == "time":
            # `time time ... cmd` is the keyword again each time: skipped in a
            # loop, not by recursion (a long chain would overflow the stack).
            while True:
                self.skip_blanks()
                if self._at_word("-p"):
                    self.i += 2
                    self.skip_blanks()
                if not self._at_word("time"):
                    break
                self.i += 4
        elif word == "coproc":
            self._coproc_name()
        self.parse_pipeline()

    def _coproc_name(self) -> None:
        """`coproc NAME { ...; }`: a name comes only before a compound command."""
        self.skip_blanks()
        match = _COPROC_NAME.match(self.src, self.i)
        if match is not None:
            self.i = match.end()

    def _until_closed(self, open_blocks: int) -> None:
        """Parse a compound command's body until its block is closed."""
        src = self.src
        while len(self.blocks) > open_blocks:
            self.skip_blanks()
            if self.i >= self.n or src[self.i] == ")":
                return
            before = self.i
            closer = lexer.BLOCK_CLOSER[self.blocks[-1]]
            if src[self.i] == "\n":
                self._newline()
            elif src[self.i] in ";&" and not src.startswith(";;", self.i):
                self.i += 1
            elif self._peek_keyword() == closer:
                # Closed here, not inside a nested pipeline, so `} | cmd` pipes the group.
                self.i += len(closer)
                self.blocks.pop()
                self._trailing_redirects()
                return
            else:
                self.parse_and_or()
            if self.i == before:
                self.errors.append(f"unexpected `{src[self.i]}` at offset {self.i}")
                self.i += 1

    def _for_header(self) -> tuple[str, list[str | None]] | None:
        self.skip_blanks()
        if self.src.startswith("((", self.i):
            self._arithmetic_command()
            return None
        name = self.scan_word()  # the loop variable
        self.skip_blanks()
        items = None
        if not self._at_word("in"):
            self._scan_words_until(stop_at_paren=False)
            items = self._positional_words()  # `for d; do` is `for d in "$@"; do`
        else:
            self.i += 2
            # The list is data; scanning it registers the substitutions that run.
            items = self._scan_words_until(stop_at_paren=False)
        return loop_values(name, items)

    def _positional_words(self) -> list[Word] | None:
        """`$1`... as `set --` or a carrier's arguments gave them, if known."""
        count = self.vars.get("#")
        if count is None or not count.isdigit():
            return None
        values = [self.vars.get(str(k)) for k in range(1, int(count) + 1)]
        return [Word(v, Span(self.i, self.i), v) for v in values if v is not None]

    def _each_pass(self, name: str, values: list[str | None]) -> None:
        """Read the body once per value of the loop's variable, as bash runs it;
        past the budget, or with a heredoc inside, once with the value unknown."""
        depth, start, errors = len(self.blocks) - 1, self.i, len(self.errors)
        self.loop_repeats: int = getattr(self, "loop_repeats", 0) + len(values) - 1
        if self.loop_repeats > MAX_REPEATS or "<<" in self.src[start:]:
            values = [None]
        end = start
        for k, value in enumerate(values):
            bind(self.vars, name, value)
            if k:
                self.i = start
                self.blocks.append("for")
            self._until_closed(depth)
            if len(self.errors) > errors or len(self.blocks) > depth:
                return
            end = max(end, self.i)
        self.i = end

    def _scan_words_until(self, stop_at_paren: bool) -> list[Word]:
        words: list[Word] = []
        while True:
            self.skip_blanks()
            if (
                self.i >= self.n
                or self.src[self.i] in ";\n&|<>)"
                or (stop_at_paren and self.src[self.i] == "(")
            ):
                return words
            if self.src[self.i] == "(":
                self.errors.append(f"unexpected `(` at offset {self.i}")
                self.i += 1
                continue
            words.extend(self.scan_word())

    def _case(self) -> None:
        self.skip_blanks()
        self.scan_word()
        self.skip_blanks()
        while self.i < self.n and self.src[self.i] == "\n":
            self._newline()
            self.skip_blanks()
        if self._at_word("in"):
            self.i += 2
        else:
            self.errors.append("`case` without `in`")
        while True:
            while True:
                self.skip_blanks()
                if self.i < self.n and self.src[self.i] in "\n;":
                    if self.src[self.i] == "\n":
                        self._newline()
                    else:
                        self.i += 1
                else:
                    break
            if self.i >= self.n:
                return
            if self._at_word("esac"):
                self._keyword("esac")
                return
            if self.src[self.i] == "(":
                self.i += 1
            while self.i < self.n and self.src[self.i] != ")":  # the patterns are data
                if self.src[self.i] in " \t|\n":
                    self.i += 1
                    continue
                before = self.i
                self.scan_word()
                if self.i == before:
                    self.i += 1
            self.i += 1
            self.parse_list(closer=";;")
            for token in (";;&", ";;", ";&"):
                if self.src.startswith(token, self.i):
                    self.i += len(token)
                    break

    def _conditional(self) -> None:
        """`[[ ... ]]` tests data, but its substitutions run, and the operands
        of `-eq`... are evaluated as arithmetic (`x='a[$(cmd)]'` runs `cmd`)."""
        raws: list[str] = []
        while self.i < self.n:
            self.skip_blanks()
            if self._at_word("]]"):
                self.i += 2
                for k, raw in enumerate(raws):
                    if raw in _ARITHMETIC_TESTS:
                        for code in variables.arithmetic_operands(self.vars, raws[k - 1 : k + 2]):
                            self.evaluates(code, self.i)
                return
            if self.i < self.n and self.src[self.i] in "\n":
                self._newline()
                continue
            if self.i < self.n and self.src[self.i] in "()<>&|;":
                self.i += 1
                continue
            start = self.i
            self.scan_word()
            raws.append(self.src[start : self.i])
        self.errors.append("`[[` is never closed")

    def _arithmetic_command(self) -> None:
        end = lexer.matching_close(self.src, self.i, "((", "))")
        if end == -1:
            self.errors.append("`((` is never closed")
            end = self.n
        self._substitutions_in(self.i + 2, end)
        for code in variables.arithmetic(self.vars, self.src[self.i + 2 : end]):
            self.evaluates(code, self.i)
        self.i = min(end + 2, self.n)

    def _function_body(self, name: str, start: int) -> None:
        first = len(self.cmds)
        # A function's `$1`, `$@` are its caller's arguments: unknown here.
        outer = {k: v for k, v in self.vars.items() if (k.isdigit() and k != "0") or k == "#"}
        for key in outer:
            del self.vars[key]
        self.parse_command()
        self.vars.update(outer)
        body_cmds = self.cmds[first:]
        body_text = self.src[start : self.i]
        forks = "|" in body_text or "&" in body_text
        self.functions.append(
            FunctionDef(
                name=name,
                span=Span(start, self.i),
                body=tuple(
                    SimpleCommand(tuple(c.words), tuple(c.redirects), Span(c.start, c.end))
                    for c in body_cmds
                ),
                forks=forks,
                text=body_text,
            )
        )

    def _group_input(self, first: int) -> None:
        """`{ read -r t; } < <(echo ~)`: a `read` in the group reads what the
        group's redirect feeds (its variables stay after the group). With more
        readers, which line each gets is not followed: they stay unknown."""
        closing = self.cmds[-1]
        readers = [
            c for c in self.cmds[first:-1]
            if c.words and c.words[0].value in ("read", "mapfile", "readarray")
        ]  # fmt: skip
        if closing.words or len(readers) != 1 or readers[0].redirects:
            return
        for redirect in closing.redirects:
            if redirect.op == "<" and redirect.target is not None and redirect.target.feeds:
                cmd = readers[0]
                variables.after(self.vars, cmd.words, cmd.assignments, (redirect,), self.arrays)

    def _trailing_redirects(self) -> None:
        """Redirects after `)`, `}`, `done`, `fi`: kept as a command with no words."""
        start = self.i
        redirects: list[Redirect] = []
        while True:
            self.skip_blanks()
            redirect = self.scan_redirect()
            if redirect is None:
                break
            redirects.append(redirect)
        if redirects:
            self._wordless(redirects, start)
