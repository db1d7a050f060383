"""A makefile read as GNU make reads it, for the commands it hands to a shell.

Make reads the whole file first, then runs recipes with the variables' last
values: a later definition replaces an earlier one (`=`, `:=`, `::=`,
`override`), `+=` appends, `?=` sets an undefined variable, `!=` runs its
command while the file is read, a `define` block is a value of many lines.
A definition inside a conditional or for one target may or may not apply:
the variable then has each value. `.RECIPEPREFIX` changes the character that
starts a recipe line; `.ONESHELL` hands a recipe's lines to one shell; a
`SHELL` or `.SHELLFLAGS` that is not a plain POSIX shell's runs each recipe
through it (`SHELL .SHELLFLAGS 'line'`, as make executes it). `$(eval)`
text is read as makefile text where it is expanded.
"""

from __future__ import annotations

import shlex

from redline.runs_later.make_automatic import MARKS, NAMES, NO_RULE, Rule, marked, scopes, unmarked
from redline.runs_later.make_expand import (
    UNKNOWN,
    Expander,
    Value,
    default,
    matching,
    product,
    undefined,
)
from redline.runs_later.make_lines import split_line, top_level_partition, without_comment
from redline.shell.lazy_regex import lazy_regex

_CONDITIONAL = lazy_regex(r"\s*(?:ifeq|ifneq|ifdef|ifndef)\b")
_DEFINE = lazy_regex(
    r"\s*((?:(?:override|export|private|unexport)\s+)*)define\s+(\S+)"
    r"\s*(=|:=|::=|:::=|\+=|\?=|!=)?\s*(?:#.*)?\Z"
)
_ENDEF = lazy_regex(r"\s*endef\b")
_MODIFIERS = frozenset({"override", "export", "private", "unexport"})
# `.SHELLFLAGS` words of a plain shell: options only (`-eu -o pipefail -c`).
_SHELL_OPTION = lazy_regex(r"-[a-zA-Z]+|--[a-z-]+|[a-z]+")
_WHICH_SHELL = lazy_regex(r"\$\((?:which|command -v|type -p)\s+(\S+)\)")
_MAX_EVALS = 8
# `$(eval)` inside `$(eval)`...: past this nesting, text no reading follows.
_MAX_EVAL_DEPTH = 8
_QUOTED_PAIR = lazy_regex(r"""(["'])(.*?)\1\s+(["'])(.*?)\3""")


# A rule a recipe belongs to: its targets, its prerequisites' texts (read
# once), and whether they are expanded a second time.
Context = tuple[str, tuple[str, ...], bool]


class Makefile:
    """The reading of one makefile: its variables, recipes and what it runs
    while it is read."""

    def __init__(self) -> None:
        self.variables: dict[str, list[Value]] = {}
        self.expander = Expander(self.variables, self._eval)
        self.recipes: list[list[str]] = []
        # The rule each recipe belongs to (its automatic variables), if any.
        self.rules: list[Context | None] = []
        self.second_expansion = False
        self.current: list[str] | None = None
        self.prefix = "\t"
        self.oneshell = False
        # Open conditionals: `[state, taken]` each, `yes`, `no` or `maybe`:
        # whether this branch applies, whether an earlier one of the chain did.
        self.branches: list[list[str]] = []
        self.overridden: set[str] = set()
        self.evals = 0
        self.eval_depth = 0

    # -- reading ------------------------------------------------------------

    def read(self, lines: list[str]) -> None:
        define: tuple[str, str, bool, list[str]] | None = None
        nested = 0
        for line in lines:
            if define is not None:
                if _ENDEF.match(line) and not nested:
                    name, op, override, body = define
                    if not self.skipping:
                        self.assign(name, op or "=", "\n".join(body), override)
                    define = None
                    continue
                nested += 1 if _DEFINE.match(line) else -1 if _ENDEF.match(line) else 0
                define[3].append(line)
                continue
            if line[:1] == "\t" or (self.prefix != "\t" and line[:1] == self.prefix):
                if self.skipping:
                    continue
                if self.current is not None or line[1:].strip():
                    if self.current is None:
                        self.current = []
                        self.recipes.append(self.current)
                        self.rules.append(None)
                    self.current.append(line[1:])
                continue
            code = without_comment(line).strip()
            if code.startswith(".RECIPEPREFIX"):  # make keeps a value's trailing spaces
                code = without_comment(line).lstrip()
            if not code or self._conditional(code) or (self.skipping and not _DEFINE.match(code)):
                continue
            match = _DEFINE.match(code)
            if match is not None:
                self.current = None
                define = (match.group(2), match.group(3) or "=", "override" in match.group(1), [])
                continue
            self._directive(code)

    @property
    def skipping(self) -> bool:
        """Inside a branch make does not take: its lines are not read."""
        return bool(self.branches) and any(state == "no" for state, _ in self.branches)

    def _conditional(self, code: str) -> bool:
        """`ifeq`, `ifneq`, `ifdef`, `ifndef`, `else`, `endif`: the branch
        states updated; false for any other line."""
        word, _, rest = code.partition(" ")
        if word == "endif":
            if self.branches:
                self.branches.pop()
            return True
        if word == "else" and self.branches:
            state, taken = self.branches[-1]
            test = self._test(rest.strip()) if rest.strip() else "yes"
            if taken == "yes":
                state = "no"
            elif taken == "no":
                state = test
            else:
                state = "no" if test == "no" else "maybe"
            self.branches[-1] = [state, _either(taken, state)]
            return True
        if _CONDITIONAL.match(code):
            state = "maybe" if self.skipping else self._test(code)
            self.branches.append([state, state])
            return True
        return False

    def _test(self, code: str) -> str:
        """Whether a conditional's test holds, as far as the file tells."""
        word, _, rest = code.strip().partition(" ")
        ex = self.expander
        before = ex.unknown
        if word in ("ifdef", "ifndef"):
            name = ex.expand(rest.strip())[0].strip()
            values = self.variables.get(name)
            known = [v.text for v in values] if values is not None else [undefined(name)]
            if ex.unknown > before or any(v.startswith("${") for v in known):
                return "maybe"
            defined = {bool(v.strip()) for v in known}
            if len(defined) > 1:
                return "maybe"
            return "yes" if defined.pop() is (word == "ifdef") else "no"
        pair = _comparison(rest.strip())
        if pair is None:
            return "maybe"
        left, right = ex.expand(pair[0]), ex.expand(pair[1])
        if ex.unknown > before:
            return "maybe"
        same = {a.strip() == b.strip() for a in left for b in right}
        if len(same) > 1:
            return "maybe"
        return "yes" if same.pop() is (word == "ifeq") else "no"

    def _directive(self, code: str) -> None:
        words = code.split()
        word = words[0]
        if "undefine" in words[:2] and (word == "undefine" or word in _MODIFIERS):
            self.current = None
            names = code.split("undefine", 1)[1]
            for name in " ".join(self.expander.expand(names)).split():
                self._undefine(name, word == "override")
            return
        if word in ("include", "-include", "sinclude", "vpath") or (
            word in ("export", "unexport") and "=" not in code
        ):
            self.current = None
            self.expander.expand(code)
            return
        kind, left, op, right = split_line(code)
        if kind == "assign":
            self.current = None
            self._assignment(left, op, right, False)
        elif kind == "rule":
            self._rule(left, right)
        elif "$" in code:
            ex = self.expander
            before = ex.opaque
            texts = ex.expand(code)
            if ex.opaque > before or UNKNOWN in "".join(texts):
                ex.computed = True  # a line made of text no one can see now
            for text in texts:
                # A line that expands to a rule or a definition; one that
                # expands to itself (`${FOO}`, the environment's) says no more.
                if text.strip() and text.strip() != code.strip():
                    self._eval(text)

    def _rule(self, targets: str, rest: str) -> None:
        names = " ".join(self.expander.expand(targets))
        if ".ONESHELL" in names or ".SECONDEXPANSION" in names:
            special = names.split()
            self.oneshell = self.oneshell or ".ONESHELL" in special
            self.second_expansion = self.second_expansion or ".SECONDEXPANSION" in special
        kind, left, op, right = split_line(rest)
        if kind == "assign":  # `target: VAR = value`: for that target only
            self._assignment(left, op, right, True)
        head, semicolon, inline = top_level_partition(rest, ";")
        # `objs: %.o: %.c`, a static pattern rule: its prerequisites follow the pattern
        _, pattern, static = top_level_partition(head, ":") if ":" in head else ("", "", "")
        words = self.expander.expand(static if pattern else head)  # run their `$(shell ...)`
        self.current = []
        self.recipes.append(self.current)
        context = (names, tuple(words), self.second_expansion)
        self.rules.append(None if kind == "assign" else context)
        if semicolon and inline.strip():
            self.current.append(inline)

    def _assignment(self, left: str, op: str, right: str, maybe: bool) -> None:
        words = left.split()
        override = "override" in words
        name_text = " ".join(w for w in words if w not in _MODIFIERS) or left.strip()
        value = right.lstrip() if name_text == ".RECIPEPREFIX" else right.strip()
        for name in self.expander.expand(name_text):
            self.assign(name.strip(), op, value, override, maybe)

    def assign(self, name: str, op: str, raw: str, override: bool, maybe: bool = False) -> None:
        """One definition, as make applies it."""
        ex = self.expander
        old = self.variables.get(name)
        if name in self.overridden and not override:
            maybe = True  # make keeps an `override` value: count both
        if override:
            self.overridden.add(name)
        origins = self.expander.origins
        maybe = maybe or any(state == "maybe" for state, _ in self.branches)
        if op == "?=" and old is not None:
            if origins.get(name) != "maybe":
                return
            maybe = True  # it may be unset here: `?=` may apply
        if op in (":=", "::=", ":::="):
            new = [Value(t, False) for t in ex.expand(raw)]
        elif op == "!=":
            commands = ex.expand(raw)
            ex.runs.extend(commands)
            new = [Value(f"$({c})", False) for c in commands]
        elif op == "+=" and old is not None:
            new = []
            for value in old:
                if value.recursive:
                    new.append(Value(f"{value.text} {raw}", True))
                else:
                    new.extend(Value(f"{value.text} {t}", False) for t in ex.expand(raw))
        else:
            new = [Value(raw, True)]
        if maybe:
            before = old if old is not None else [Value(default(name), False)]
            new = list(dict.fromkeys([*before, *new]))
            origins[name] = "maybe"
        else:
            origins[name] = "override" if override else "file"
        if len(new) > 8:
            new = [*new[:7], Value(UNKNOWN, False)]
        self.variables[name] = new
        if name == ".RECIPEPREFIX":
            first = "".join(ex.expand(raw))[:1]
            self.prefix = first or "\t"

    def _undefine(self, name: str, override: bool) -> None:
        """`undefine X`: X is unset (an `override` value stays unless the
        `undefine` is one too); where it may not apply, X may be either."""
        if name in self.overridden and not override:
            return
        if self.skipping:
            return
        origins = self.expander.origins
        if any(state == "maybe" for state, _ in self.branches):
            values = self.variables.get(name)
            if values is not None:
                origins[name] = "maybe"
                self.variables[name] = list(dict.fromkeys([*values, Value(default(name), False)]))
            return
        self.variables.pop(name, None)
        origins.pop(name, None)

    def _eval(self, text: str) -> None:
        """`$(eval TEXT)`: TEXT read as makefile lines, here."""
        from redline.runs_later.make_syntax import logical_lines

        if self.evals >= _MAX_EVALS * 64 or self.eval_depth >= _MAX_EVAL_DEPTH:
            self.expander.computed = True
            return
        self.evals += 1
        self.eval_depth += 1
        current, self.current = self.current, None
        try:
            self.read(logical_lines(text))
        finally:
            self.current = current
            self.eval_depth -= 1

    # -- what runs -----------------------------------------------------------

    def commands(self) -> list[str]:
        """The shell commands of every recipe, in order, after the commands
        run while the file is read."""
        ex = self.expander
        found = list(ex.runs)
        shells = self._shell_wrappers()
        done: dict[str, tuple[list[str], list[str], frozenset[str] | None]] = {}
        bound: dict[tuple[str, object], tuple[list[str], list[str]]] = {}
        k = 0
        while k < len(self.recipes):  # an `$(eval)` in a recipe may add recipes
            recipe, context = self.recipes[k], self.rules[k]
            k += 1
            rule: Rule | None = None
            for raw in ["\n".join(recipe)] if self.oneshell else recipe:
                known = done.get(raw)
                if known is None:
                    if "$" in raw:
                        known = self._marked_lines(raw)
                    else:
                        known = ([], self._lines(raw), frozenset())
                    done[raw] = known
                runs, lines, names = known
                if names is None:  # an automatic variable went through a function
                    key = (raw, context)
                    if key not in bound:
                        bound[key] = self._bound_lines(raw, context)
                    runs, lines = bound[key]
                elif names:
                    rule = rule or self._rule_of(context)
                    runs = unmarked(runs, rule, names) if runs else runs
                    lines = unmarked(lines, rule, names)
                found.extend(runs)
                if shells == [None]:
                    found.extend(lines)
                    continue
                for line in lines:
                    found.extend(line if w is None else f"{w} {shlex.quote(line)}" for w in shells)
        if ex.computed:
            found.append(UNKNOWN)  # make reads text no one can see now
        return found

    def _marked_lines(self, raw: str) -> tuple[list[str], list[str], frozenset[str] | None]:
        """A recipe line expanded once, its automatic variables marked: what
        it runs as it expands, its lines, and the automatic variables they
        hold (`None` when one went through a function: expand for each run)."""
        ex = self.expander
        start = len(ex.runs)
        ex.automatic, ex.transformed = MARKS, False
        try:
            lines = self._lines(raw)
        finally:
            ex.automatic = None
        runs = ex.runs[start:]
        del ex.runs[start:]
        return runs, lines, None if ex.transformed else marked([*runs, *lines])

    def _rule_of(self, context: Context | None) -> Rule:
        """The rule whose runs a recipe line makes (its targets' and
        prerequisites' words), the prerequisites expanded a second time
        under `.SECONDEXPANSION:`."""
        if context is None:
            return NO_RULE
        names, texts, second = context
        if second:
            texts = tuple(t for text in texts for t in self.expander.expand(text))
        if not any("|" in text for text in texts):
            normal = " ".join(texts).split()
            return Rule(tuple(names.split()), tuple(dict.fromkeys(normal)), ())
        parts = [top_level_partition(text, "|") for text in texts]
        normal = [w for part in parts for w in part[0].split()]
        order = [w for part in parts for w in part[2].split()]
        return Rule(tuple(names.split()), tuple(dict.fromkeys(normal)), tuple(order))

    def _bound_lines(self, raw: str, context: Context | None) -> tuple[list[str], list[str]]:
        """A recipe line expanded for each run of its rule (each target),
        with the automatic variables of that run bound."""
        ex = self.expander
        start = len(ex.runs)
        found: list[str] = []
        for scope in scopes(self._rule_of(context), frozenset(NAMES)):
            ex.scopes.append(scope)
            try:
                found.extend(self._lines(raw))
            finally:
                ex.scopes.pop()
        runs = ex.runs[start:]
        del ex.runs[start:]
        return runs, list(dict.fromkeys(found))

    def _lines(self, raw: str) -> list[str]:
        """A recipe line's commands: each variant, each line of it (a
        variable of many lines is many recipe lines), less make's prefixes."""
        if "$" not in raw and "\n" not in raw:  # nothing to expand: the line itself
            line = raw.strip().lstrip("@-+ \t")
            return [line] if line and not line.startswith("#") else []
        found: list[str] = []
        for text in self.expander.expand(raw):
            lines = [line.strip().lstrip("@-+ \t") for line in text.split("\n")]
            lines = [line for line in lines if line and not line.startswith("#")]
            if self.oneshell and lines:
                found.append("\n".join(lines))
            else:
                found.extend(lines)
        return list(dict.fromkeys(found))

    def _shell_wrappers(self) -> list[str | None]:
        """`[None]` when recipes run in a plain POSIX shell, else each
        `SHELL .SHELLFLAGS` a line is handed to."""
        shells = self.expander.variable("SHELL", 0)
        flags = self.expander.variable(".SHELLFLAGS", 0)
        if all(_plain_shell(s) for s in shells) and all(plain_flags(f) for f in flags):
            return [None]
        return list(product([shells, flags], " "))


def _either(taken: str, state: str) -> str:
    if "yes" in (taken, state):
        return "yes"
    return "no" if taken == state == "no" else "maybe"


def _comparison(text: str) -> tuple[str, str] | None:
    """The two sides of `(A,B)`, `"A" "B"` or `'A' 'B'`."""
    from redline.runs_later.make_expand import split_args

    if text.startswith("("):
        close = matching(text, 0)
        sides = split_args(text[1:close], 1) if close > 0 else []
        return (sides[0], sides[1]) if len(sides) == 2 else None
    quoted = _QUOTED_PAIR.fullmatch(text)
    return (quoted.group(2), quoted.group(4)) if quoted is not None else None


def _plain_shell(value: str) -> bool:
    from redline.shell.carriers import SHELLS

    value = value.strip()
    which = _WHICH_SHELL.fullmatch(value)
    if which is not None:
        value = which.group(1)
    words = value.split()
    if words and words[0].rsplit("/", 1)[-1] == "env":
        words = words[1:]
    return len(words) == 1 and words[0].rsplit("/", 1)[-1] in SHELLS


def plain_flags(value: str) -> bool:
    words = value.split()
    return (
        bool(words)
        and words[-1].startswith("-")
        and words[-1].endswith("c")
        and all(_SHELL_OPTION.fullmatch(w) for w in words)
    )
