"""Scanning one shell word into its static value (F-SHELL-4).

Quotes and backslashes are removed, `$'...'` is decoded, known variables are
substituted, `$@`/`$*` and other empty expansions vanish, an unquoted `$IFS`
splits the word, and brace expansion produces every word it would. Anything
computed at run time becomes `DYNAMIC`; `$( )` and backticks are parsed as
the commands they are.
"""

from __future__ import annotations

import itertools

from redline.decision import Span
from redline.shell import lexer, parameters, pure, substitution, variables
from redline.shell.model import DYNAMIC, Word

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from collections.abc import Sequence

    from redline.shell.substitution import Stage

_EXTGLOB_PREFIX = frozenset("@!+*?")
_DQ_ESCAPABLE = frozenset('$`"\\\n')
_SPECIAL_PARAMS = frozenset("#?$!-")
# What follows a name in `${name...}` for the operators `parameters` computes.
_OPERATORS = frozenset("[,^~/#%@")
# Code that cannot be known, as a command: its program is computed at run time.
_UNKNOWN_CODE = 'eval "$_redline_unknown_code"'


class _Builder:
    """The parts of one word while it is being scanned."""

    __slots__ = (
        "braces", "feeds", "fields", "glob", "literal", "parts", "positional", "quoted",
        "splits",
    )  # fmt: skip

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.quoted = self.glob = self.braces = self.literal = False
        # `$@` or `$*` of unknown positional parameters was read.
        self.positional = False
        # An unquoted variable's value has blanks: the word splits at them.
        self.fields = False
        # Value offsets where an unquoted `$IFS` splits the word in two.
        self.splits: list[int] = []
        self.feeds: str | None = None

    def add(self, text: str) -> None:
        self.parts.append(text)

    def split_here(self) -> None:
        self.splits.append(sum(len(p) for p in self.parts))


class WordScanner:
    """Mixin for `Parser`: everything about a single word."""

    src: str
    n: int
    i: int
    errors: list[str]
    vars: dict[str, str]
    caller_args_read: int
    current_cmd: int
    cmds: Sequence[Stage]

    if TYPE_CHECKING:

        def parse_list(self, closer: str | None) -> None: ...

        def _sub_parse(self, text: str, offset: int, pinned: bool = False) -> None: ...

        def _substitutions_in(self, start: int, end: int) -> None: ...

        def command_count(self) -> int: ...

        def mark_readers(self, first: int) -> None: ...

    def scan_word(self, split: bool = True) -> list[Word]:
        if self.src.startswith("~", self.i) and self.vars.get("HOME") != "~":
            return self._tilde_moved(split)
        return self._scan_word(split)

    def _tilde_moved(self, split: bool) -> list[Word]:
        """`HOME=/; rm -rf ~/etc`: a tilde expands to `$HOME` as it is now,
        which an earlier command set (or made unknown)."""
        after = self.src[self.i + 1 : self.i + 2]
        words = self._scan_word(split)
        if after and after not in "/" and after not in lexer.WORD_BREAK:
            return words  # `~user`: another user's home, not `$HOME`
        home = self.vars.get("HOME", DYNAMIC)
        return [
            w._replace(value=home + w.value[1:]) if w.value.startswith("~") else w for w in words
        ]

    def _scan_word(self, split: bool) -> list[Word]:
        src, n = self.src, self.n
        start = self.i
        plain = lexer.PLAIN_RUN.match(src, start)
        if plain is not None:
            end = plain.end()
            if end >= n or (src[end] in lexer.WORD_BREAK and src[end] not in "<>("):
                # Most words need no quote removal or expansion at all.
                self.i = end
                text = plain.group(0)
                return [Word(text, Span(start, end), text)]
        b = _Builder()
        while self.i < n:
            c = src[self.i]
            if c in lexer.WORD_BREAK:
                if c in "<>" and src.startswith("(", self.i + 1):
                    self._process_substitution(b)
                    continue
                if c == "(" and b.parts and b.parts[-1][-1:] in _EXTGLOB_PREFIX:
                    close = lexer.matching_close(src, self.i, "(", ")")
                    if close == -1:
                        self.errors.append(f"extended glob at offset {self.i} is never closed")
                    end = n if close == -1 else close + 1
                    b.add(src[self.i : end])
                    b.glob = True
                    self.i = end
                    continue
                break
            if c == "\\":
                if src.startswith("\\\n", self.i):
                    self.i += 2
                    continue
                b.add(src[self.i + 1 : self.i + 2])
                b.quoted = b.literal = True
                self.i += 2
            elif c == "'":
                close = src.find("'", self.i + 1)
                text = src[self.i + 1 : close]
                if close == -1:
                    self.errors.append(f"unterminated single quote at offset {self.i}")
                    # What trails an unclosed quote must not change the verdict.
                    close, text = n, src[self.i + 1 :].rstrip()
                b.add(text)
                b.quoted = b.literal = True
                self.i = close + 1
            elif c == '"':
                self._double_quoted(b)
            elif c == "$":
                self._dollar(b, in_dq=False)
            elif c == "`":
                self._backtick(b)
            else:
                if c in "*?[":
                    b.glob = True
                elif c == "{":
                    b.braces = True
                match = lexer.PLAIN_RUN.match(src, self.i)
                end = match.end() if match else self.i + 1
                b.add(src[self.i : end])
                b.literal = True
                self.i = end
        self.i = min(self.i, n)
        return self._finish(b, start, split)

    def _finish(self, b: _Builder, start: int, split: bool) -> list[Word]:
        raw = self.src[start : self.i]
        span = Span(start, self.i)
        value = "".join(b.parts)
        if not value and b.positional:
            value = DYNAMIC  # `"$@"` alone: the caller's arguments, unknown
        if not value and not b.quoted and not b.literal:
            return []  # only expansions that were empty: bash drops the word
        values = [value]
        if split and b.splits:
            cuts = [0, *b.splits, len(value)]
            values = [value[a:z] for a, z in itertools.pairwise(cuts) if value[a:z]]
        if split and b.fields:
            values = [field for v in values for field in v.split()]
        if split and b.braces:
            values = [expanded for v in values for expanded in lexer.brace_expand(v)]
        return [Word(raw, span, v, b.quoted, b.glob, b.feeds) for v in values]

    def _double_quoted(self, b: _Builder) -> None:
        src, n = self.src, self.n
        b.quoted = b.literal = True
        self.i += 1
        while self.i < n:
            c = src[self.i]
            if c == '"':
                self.i += 1
                return
            if c == "\\":
                nxt = src[self.i + 1 : self.i + 2]
                if nxt == "\n":
                    pass
                elif nxt in _DQ_ESCAPABLE:
                    b.add(nxt)
                else:
                    b.add("\\" + nxt)
                self.i += 2
            elif c == "$":
                self._dollar(b, in_dq=True)
            elif c == "`":
                self._backtick(b, in_dq=True)
            else:
                match = lexer.DQ_RUN.match(src, self.i)
                end = match.end() if match else self.i + 1
                b.add(src[self.i : end])
                self.i = end
        self.errors.append("unterminated double quote")
        if b.parts:
            b.parts[-1] = b.parts[-1].rstrip()

    def _backtick(self, b: _Builder, in_dq: bool = False) -> None:
        src, n = self.src, self.n
        first = self.command_count()
        j = self.i + 1
        while j < n and src[j] != "`":
            j += 2 if src[j] == "\\" else 1
        if j >= n:
            self.errors.append(f"unterminated backtick at offset {self.i}")
            j = n
        self._sub_parse(src[self.i + 1 : j], self.i + 1)
        inner = src[self.i + 1 : j]
        self._substituted(b, first, in_dq, None if "\\" in inner else inner)
        self.i = j + 1

    def _process_substitution(self, b: _Builder) -> None:
        output = self.src[self.i] == ">"
        first = self.command_count()
        self.i += 2
        self.parse_list(closer=")")
        if output:  # `tee >(sh)`: what runs inside reads what the holder writes
            self.mark_readers(first)
        self._close_paren("process substitution")
        b.feeds = substitution.output(self._stages(first))
        b.add("/dev/fd/" + DYNAMIC)
        b.literal = True

    def _close_paren(self, what: str) -> None:
        if self.i < self.n and self.src[self.i] == ")":
            self.i += 1
        else:
            self.errors.append(f"{what} is never closed")

    def _dollar(self, b: _Builder, in_dq: bool) -> None:
        src = self.src
        nxt = src[self.i + 1 : self.i + 2]
        if nxt == "'" and not in_dq:
            j = self.i + 2
            while j < self.n and src[j] != "'":
                j += 2 if src[j] == "\\" else 1
            if j >= self.n:
                self.errors.append(f"unterminated $'...' at offset {self.i}")
            b.add(lexer.decode_ansi_c(src[self.i + 2 : j]))
            b.quoted = b.literal = True
            self.i = j + 1
        elif nxt == '"' and not in_dq:
            self.i += 1
            self._double_quoted(b)
        elif src.startswith("$((", self.i):
            close = lexer.matching_close(src, self.i + 1, "((", "))")
            end = self.n if close == -1 else close
            if close == -1:
                self.errors.append("arithmetic expansion is never closed")
            self._substitutions_in(self.i + 3, end)
            expression = src[self.i + 3 : end]
            for code in parameters.arithmetic_code(expression, self.vars):
                self.evaluates(code, self.i)
            b.add(variables.arithmetic_value(self.vars, expression))
            self.i = min(end + 2, self.n)
        elif nxt == "(":
            first = self.command_count()
            self.i += 2
            start = self.i
            self.parse_list(closer=")")
            inner = src[start : self.i]
            self._close_paren("command substitution")
            self._substituted(b, first, in_dq, inner)
        elif nxt == "{":
            close = lexer.matching_close(src, self.i + 1, "{", "}")
            end = self.n if close == -1 else close
            if close == -1:
                self.errors.append("parameter expansion is never closed")
            inner = src[self.i + 2 : end]
            if "$(" in inner or "`" in inner:
                self._substitutions_in(self.i + 2, end)
            self.i = min(end + 1, self.n)
            self._parameter(b, inner, in_dq)
        else:
            match = lexer.NAME.match(src, self.i + 1)
            if match:
                self.i = match.end()
                self._parameter(b, match.group(0), in_dq)
            elif nxt and (nxt.isdigit() or nxt in "@*" or nxt in _SPECIAL_PARAMS):
                self.i += 2
                self._parameter(b, nxt, in_dq)
            else:
                b.add("$")
                b.literal = True
                self.i += 1

    def _parameter(self, b: _Builder, inner: str, in_dq: bool) -> None:
        """The value of `$inner` / `${inner}`."""
        name_match = lexer.NAME.match(inner)
        name = name_match.group(0) if name_match else inner[:1]
        rest = inner[len(name) :]
        if name == "IFS":
            if in_dq:
                b.add(" ")
            else:
                b.split_here()
            return
        if name in ("@", "*") and not rest:
            self._positionals(b, split=name == "@" or not in_dq)
            return
        if inner[:1] == "!" or rest[:1] in _OPERATORS:
            found = parameters.expand(inner, self.vars)
            if found is not None:
                self._expanded(b, found, in_dq)
                return
        known = parameters.lookup(self.vars, name)
        if known is None and name == "PWD" and not rest:
            b.add(pure.here_marker())
            return
        if not rest:
            ifs = self.vars.get("IFS")
            if ifs and known and not in_dq:  # `IFS=,; x=rm,-rf,/; $x` splits at commas
                known = "".join(" " if c in ifs else c for c in known)
            b.add(DYNAMIC if known is None else known)
            # `X='rm -rf /'; $X`: an unquoted value is split into words.
            b.fields = b.fields or (not in_dq and known is not None and _has_blank(known))
        elif rest[:2] in (":-", ":=") or rest[:1] in ("-", "="):
            # Unknown variables are most likely unset: the default is the value.
            default = rest[2:] if rest[:1] == ":" else rest[1:]
            b.add(known if known else (default if "$" not in default else DYNAMIC))
        elif rest[:2] == ":?" or rest[:1] == "?":
            # `${HOME:?}`: the value, or the shell stops with an error.
            b.add(DYNAMIC if known is None else known)
        elif rest[:2] == ":+" or rest[:1] == "+":
            alternate = rest[2:] if rest[:1] == ":" else rest[1:]
            if known is None or "$" in alternate:
                b.add(DYNAMIC)
            elif known:
                b.add(alternate)
        elif rest.startswith(":") and (known is not None or rest.endswith(":0")):
            b.add(_substring(known or "", rest[1:]))  # `${x:N:0}` is empty whatever x is
        else:
            b.add(DYNAMIC)
        if name in _SPECIAL_PARAMS or inner.startswith(("#", "!")):
            b.parts[-1] = DYNAMIC

    def _stages(self, first: int) -> list[Stage]:
        """The commands of the substitution that began at command `first`."""
        return [c for c in self.cmds[first:] if c.parent == self.current_cmd]

    def _substituted(self, b: _Builder, first: int, in_dq: bool, inner: str | None = None) -> None:
        """The value of `$( )` or backticks: its output, when static; else a
        mark the analysis evaluates once it knows the working directory
        (`pure`: `$(pwd)`, `$(dirname "$PWD")`), else computed at run time."""
        text = substitution.output(self._stages(first))
        if text is None or DYNAMIC in text:
            b.add(DYNAMIC if inner is None else pure.marker(inner))
            return
        text = text.rstrip("\n")
        b.add(text)
        b.fields = b.fields or (not in_dq and _has_blank(text))

    def evaluates(self, code: str, offset: int) -> None:
        """Code an expansion runs (`${v@P}` of `$(cmd)`, `$((x))` with
        `x='a[$(cmd)]'`), read as commands; unknown code as a command
        computed at run time."""
        self._sub_parse(_UNKNOWN_CODE if DYNAMIC in code else code, offset, pinned=True)

    def _expanded(self, b: _Builder, found: parameters.Expanded, in_dq: bool) -> None:
        if found.code is not None:
            self.evaluates(found.code, self.i - 1)
        if found.elements is not None and in_dq:  # `"${a[@]}"`: a word each
            for k, element in enumerate(found.elements):
                if k:
                    b.split_here()
                b.add(element)
            b.positional = b.positional or not found.elements
            return
        b.add(found.value)
        b.fields = b.fields or (not in_dq and _has_blank(found.value))

    def _positionals(self, b: _Builder, split: bool) -> None:
        """`$@`, `$*`: the positional parameters, when a carrier's arguments or
        `set --` gave them; at the top they are the caller's, unknown."""
        count = self.vars.get("#")
        if count is None or not count.isdigit():
            # Most often empty (an agent's shell has none), so `r$@m` is `rm`;
            # a word made of nothing else is computed at run time.
            b.positional = True
            self.caller_args_read += 1
            return
        for k in range(1, int(count) + 1):
            if k > 1:
                if split:
                    b.split_here()
                else:  # `"$*"` joins with IFS's first character
                    b.add(self.vars.get("IFS", " ")[:1])
            b.add(self.vars.get(str(k), DYNAMIC))


def _has_blank(text: str) -> bool:
    return " " in text or "\t" in text or "\n" in text


def _substring(value: str, spec: str) -> str:
    offset_text, _, length_text = spec.partition(":")
    try:
        offset = int(offset_text.strip() or "0")
        length = int(length_text) if length_text.strip() else None
    except ValueError:
        return DYNAMIC
    tail = value[offset:]
    return tail if length is None else tail[:length]
