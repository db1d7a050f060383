"""Make's expansion of a text, as GNU make does it: `$$` is a `$`, `$(VAR)`
and `${VAR}` the variable's value (a recursive one expanded when used), and
make's functions (`call`, `eval`, `foreach`, `if`, `shell`, `file`...).

A value the file does not give is not guessed harmless: a variable the file
never defines comes from the environment or the command line and becomes
the shell's `${NAME}` (make imports the environment, so `$(HOME)` is the
home); the output of `$(shell CMD)` is the shell's `$(CMD)`; what cannot be
known at all (an `$(eval)` of a computed text, `$(guile)`) is `UNKNOWN`, a
computed word. A variable with several possible values (set in a
conditional, or for one target) expands to each of them: `expand` returns
every variant of the text, a few at most.
"""

from __future__ import annotations

from collections.abc import Callable

from redline.fasttuple import NamedTuple
from redline.runs_later import make_text
from redline.runs_later.make_text import (
    dir_of,
    each_word,
    filter_words,
    nth,
    patsubst,
    wordlist,
)
from redline.shell.lazy_regex import lazy_regex

# A computed value no reading can know: a word the analysis asks about.
UNKNOWN = make_text.UNKNOWN
# Bounds on work: variants of one text, nesting, references in one reading.
MAX_VARIANTS = 8
_MAX_DEPTH = 32
_BUDGET = 50_000
_MAX_WORDS = 256
# An expanded text longer than this is a computed value (`X := $(X) $(X)` doubling).
_MAX_TEXT = 256 * 1024
# Always in the environment make imports: known, not computed.
ENV_ALWAYS = frozenset({"HOME", "USER", "LOGNAME", "PWD", "OLDPWD", "PATH", "TMPDIR",
                        "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME",
                        "XDG_RUNTIME_DIR"})  # fmt: skip
# Make's own variables with their default values; the folder is the makefile's.
BUILTINS = {
    "CC": "cc", "CXX": "g++", "CPP": "cc -E", "AR": "ar", "AS": "as", "LD": "ld", "FC": "f77",
    "LEX": "lex", "YACC": "yacc", "RM": "rm -f", "MAKE": "make", "CURDIR": ".",
    "MAKEFILE_LIST": "Makefile", "SHELL": "/bin/sh", ".SHELLFLAGS": "-c", "MAKEFLAGS": "",
    "MAKECMDGOALS": "", "MAKE_VERSION": "4.3", "ARFLAGS": "rv", "MAKELEVEL": "0",
    ".RECIPEPREFIX": "", "MAKEFILES": "", "VPATH": "", ".DEFAULT_GOAL": "all",
    "OS": "",  # `Windows_NT` on Windows only: the gate guards Unix machines
}  # fmt: skip
_AUTOMATIC = frozenset("@<^+*?%|")
_SHELL_NAME = lazy_regex(r"[A-Za-z_]\w*")
_PLAIN_PATH = lazy_regex(r"(?:[\w@%+=:,./~-]|\$\{[A-Za-z_]\w*\})+")
# A function's name, then blanks and its arguments, or none (`$(eval)`).
_FUNCTION = lazy_regex(r"([a-z-]+)(?:[ \t]+(.*))?\Z", flags=16)  # re.DOTALL


class Value(NamedTuple):
    """One possible value of a variable: raw make text when `recursive`
    (expanded at each use), else the text it was expanded to."""

    text: str
    recursive: bool


def undefined(name: str) -> str:
    """What a variable the file does not define expands to."""
    if name in BUILTINS:
        return BUILTINS[name]
    return "${" + name + "}" if _SHELL_NAME.fullmatch(name) else ""


def default(name: str) -> str:
    """A variable's value before the file sets it, where a conditional or
    target-specific definition may not apply: make's own, the home's, or
    none (what the environment may hold is the run's to know)."""
    if name in BUILTINS:
        return BUILTINS[name]
    return "${" + name + "}" if name in ENV_ALWAYS else ""


def product(pieces: list[list[str]], joiner: str = "") -> list[str]:
    """Every text made of one variant of each piece, `UNKNOWN` for a piece
    past the bound (fail closed: never a variant dropped silently)."""
    found = [""]
    for k, piece in enumerate(pieces):
        if len(found) * len(piece) > MAX_VARIANTS:
            piece = [UNKNOWN]
        sep = joiner if k else ""
        found = [f + sep + p for f in found for p in piece]
    return found


def _unique(values: list[str]) -> list[str]:
    found = list(dict.fromkeys(values))
    return found if len(found) <= MAX_VARIANTS else [*found[: MAX_VARIANTS - 1], UNKNOWN]


def matching(text: str, start: int) -> int:
    """The index of the bracket closing the one at `start`, or -1."""
    opener = text[start]
    closer = ")" if opener == "(" else "}"
    level = 0
    for k in range(start, len(text)):
        char = text[k]
        if char == opener:
            level += 1
        elif char == closer:
            level -= 1
            if level == 0:
                return k
    return -1


def split_args(text: str, most: int = -1) -> list[str]:
    """A function's arguments: split at commas outside brackets."""
    found: list[str] = []
    level, start = 0, 0
    for k, char in enumerate(text):
        if char in "({":
            level += 1
        elif char in ")}":
            level -= 1
        elif char == "," and level == 0 and most != len(found):
            found.append(text[start:k])
            start = k + 1
    found.append(text[start:])
    return found


class Expander:
    """Expands make text against the variables read so far. `runs` collects
    the commands expansion runs (`$(shell)`, `$(file >X,...)` as a write);
    `unknown` counts the values it could not know."""

    def __init__(self, variables: dict[str, list[Value]], on_eval: Callable[[str], None]) -> None:
        self.variables = variables
        self.on_eval = on_eval
        self.runs: list[str] = []
        self.unknown = 0
        # Values no reading can know (`$(shell)` output, `$(file <)`, a bound
        # reached): an `$(eval)` of one reads text no one can see now.
        self.opaque = 0
        self.computed = False  # an `$(eval)` of a text that cannot be known
        self.budget = _BUDGET
        self.scopes: list[dict[str, str]] = []  # `call`, `foreach`, `let` bindings
        # A recipe line is expanded once with marks for its automatic variables
        # (`$@`...), then the marks replaced for each run: unless one went
        # through a function (`$(dir $<)`), which must see the real value.
        self.automatic: dict[str, str] | None = None
        self.in_function = 0
        self.transformed = False
        # How each variable the file sets was set: `file`, `override`, or
        # `maybe` (in a conditional or for one target: it may not apply).
        self.origins: dict[str, str] = {}

    def expand(self, text: str, depth: int = 0) -> list[str]:
        if "$" not in text:
            return [text]
        pieces: list[list[str]] = []
        buf: list[str] = []
        i, n = 0, len(text)
        while i < n:
            j = text.find("$", i)
            if j < 0 or j + 1 >= n:
                buf.append(text[i:])
                break
            buf.append(text[i:j])
            char = text[j + 1]
            if char == "$":
                buf.append("$")
                i = j + 2
                continue
            if char in "({":
                close = matching(text, j + 1)
                inner = text[j + 2 : close] if close > 0 else text[j + 2 :]
                i = close + 1 if close > 0 else n
                result = self.reference(inner, depth)
            else:
                result = self.variable(char, depth)
                i = j + 2
            if len(result) == 1:
                buf.append(result[0])
            else:
                pieces.append(["".join(buf)])
                pieces.append(result)
                buf = []
        pieces.append(["".join(buf)])
        found = product(pieces)
        if any(len(t) > _MAX_TEXT for t in found):
            return self.opaque_value()
        return found

    def opaque_value(self) -> list[str]:
        """A value past the bounds of the reading: a computed word."""
        self.unknown += 1
        self.opaque += 1
        return [UNKNOWN]

    def reference(self, inner: str, depth: int) -> list[str]:
        if depth >= _MAX_DEPTH or self.budget <= 0:
            return self.opaque_value()
        self.budget -= 1
        match = _FUNCTION.match(inner)
        if match is not None:
            function = _FUNCTIONS.get(match.group(1))
            if function is not None:
                self.in_function += 1
                try:
                    return function(self, match.group(2) or "", depth + 1)
                finally:
                    self.in_function -= 1
        found: list[str] = []
        for name in self.expand(inner, depth + 1) if "$" in inner else [inner]:
            var, colon, pattern = name.partition(":")
            if colon and "=" in pattern:  # `$(@:.o=.c)` changes the value
                self.in_function += 1
            try:
                values = self.variable(var.strip() if colon else name, depth)
            finally:
                self.in_function -= 1 if colon and "=" in pattern else 0
            if colon and "=" in pattern:
                old, _, new = pattern.partition("=")
                if "%" not in old:
                    old, new = "%" + old, "%" + new
                values = [patsubst(old, new, v) for v in values]
            found.extend(values)
        return _unique(found)

    def variable(self, name: str, depth: int) -> list[str]:
        for scope in reversed(self.scopes):
            if name in scope:
                return [scope[name]]
        if name[:1] in _AUTOMATIC and len(name) <= 2:  # `$@`, `$<`, `$(@D)`...
            if self.automatic is None:
                return ["target"]  # no rule's
            self.transformed = self.transformed or self.in_function > 0
            return [self.automatic.get(name, "")]
        values = self.variables.get(name)
        if values is None:
            found = undefined(name)
            if found.startswith("${") and name not in ENV_ALWAYS:
                self.unknown += 1
            return [found]
        out: list[str] = []
        for value in values:
            if value.recursive and "$" in value.text:
                out.extend(self.expand(value.text, depth + 1))
            else:
                out.append(value.text)
        return _unique(out)

    def each(self, args: list[str], depth: int) -> list[list[str]]:
        """Every combination of the arguments' variants (a few at most)."""
        variants = [self.expand(a, depth) for a in args]
        combos: list[list[str]] = [[]]
        for options in variants:
            if len(combos) * len(options) > MAX_VARIANTS:
                options = [UNKNOWN]
            combos = [[*c, o] for c in combos for o in options]
        return combos

    def bound(self, scope: dict[str, str], text: str, depth: int) -> list[str]:
        self.scopes.append(scope)
        try:
            return self.expand(text, depth)
        finally:
            self.scopes.pop()


def _shell(ex: Expander, arg: str, depth: int) -> list[str]:
    commands = ex.expand(arg, depth)
    ex.runs.extend(commands)
    ex.unknown += 1
    ex.opaque += 1
    return [f"$({c})" for c in commands]


def _eval(ex: Expander, arg: str, depth: int) -> list[str]:
    # A variable the file does not define is the owner's environment (not
    # the agent's to set): text made of those is no unseen code.
    before = ex.opaque
    texts = ex.expand(arg, depth)
    if ex.opaque > before or UNKNOWN in "".join(texts):
        ex.computed = True  # make reads a text no one can see now
    for text in texts:
        ex.on_eval(text)
    return [""]


def _call(ex: Expander, arg: str, depth: int) -> list[str]:
    args = split_args(arg)
    found: list[str] = []
    for combo in ex.each(args, depth):
        name = combo[0].strip()
        scope = {str(k): v for k, v in enumerate(combo)}
        scope["0"] = name
        for value in ex.variables.get(name) or [Value(undefined(name), False)]:
            found.extend(ex.bound(scope, value.text, depth) if value.recursive else [value.text])
    return _unique(found)


def _foreach(ex: Expander, arg: str, depth: int) -> list[str]:
    args = split_args(arg, 2)
    if len(args) < 3:
        return [""]
    name = ex.expand(args[0], depth)[0].strip()
    found: list[str] = []
    for words in ex.expand(args[1], depth):
        pieces = [ex.bound({name: w}, args[2], depth) for w in words.split()[:_MAX_WORDS]]
        found.extend(product(pieces, " "))
    return _unique(found)


def _let(ex: Expander, arg: str, depth: int) -> list[str]:
    args = split_args(arg, 2)
    if len(args) < 3:
        return [""]
    names = ex.expand(args[0], depth)[0].split()
    found: list[str] = []
    for words in ex.expand(args[1], depth):
        values = words.split()
        scope = {n: (values[k] if k < len(values) else "") for k, n in enumerate(names)}
        if names and len(values) > len(names):
            scope[names[-1]] = " ".join(values[len(names) - 1 :])
        found.extend(ex.bound(scope, args[2], depth))
    return _unique(found)


def _if(ex: Expander, arg: str, depth: int) -> list[str]:
    args = split_args(arg, 2)
    before = ex.unknown
    conditions = [c.strip() for c in ex.expand(args[0].strip(), depth)]
    taken: list[str] = []
    if ex.unknown > before or any(conditions):
        taken.append(args[1] if len(args) > 1 else "")
    if ex.unknown > before or not all(conditions):
        taken.append(args[2] if len(args) > 2 else "")
    return _unique([v for text in taken for v in ex.expand(text, depth)])


def _any_of(ex: Expander, arg: str, depth: int) -> list[str]:
    """`or` and `and`: any argument may be the value (fail closed)."""
    return _unique([v for a in split_args(arg) for v in ex.expand(a, depth)])


def _value(ex: Expander, arg: str, depth: int) -> list[str]:
    name = ex.expand(arg, depth)[0].strip()
    values = ex.variables.get(name)
    return [v.text for v in values] if values else [undefined(name)]


def _origin(ex: Expander, arg: str, depth: int) -> list[str]:
    """`$(origin X)`: from how the file sets X; each possibility when the
    file does not tell (the environment or the command line may set it)."""
    found: list[str] = []
    for name in (n.strip() for n in ex.expand(arg, depth)):
        how = ex.origins.get(name, "file")
        if any(name in scope for scope in ex.scopes):
            found.append("automatic")
        elif name in ex.variables and how != "maybe":
            found.append(how)
        elif name in ENV_ALWAYS and name not in ex.variables:
            found.append("environment")
        else:
            maybe = ["file", "override"] if name in ex.variables else []
            known = ["default"] if name in BUILTINS else ["undefined"]
            found.extend([*maybe, *known, "environment", "command line"])
    return _unique(found)


def _flavor(ex: Expander, arg: str, depth: int) -> list[str]:
    """`$(flavor X)`: `recursive`, `simple` or `undefined`, as the file
    defines X; both where it may or may not."""
    found: list[str] = []
    for name in (n.strip() for n in ex.expand(arg, depth)):
        values = ex.variables.get(name)
        if any(name in scope for scope in ex.scopes):
            found.append("simple")
            continue
        if values is not None:
            found.extend("recursive" if v.recursive else "simple" for v in values)
        if values is None or ex.origins.get(name) == "maybe":
            # the environment's and make's own variables are recursive
            found.append("recursive")
            if name not in ENV_ALWAYS and name not in BUILTINS:
                found.append("undefined")
    return _unique(found)


def _intcmp(ex: Expander, arg: str, depth: int) -> list[str]:
    """`$(intcmp A,B,LT,EQ,GT)`: the part the comparison picks; every part
    when the numbers are not known."""
    args = split_args(arg, 4)
    found: list[str] = []
    for combo in ex.each(args[:2], depth):
        parts = args[2:]
        if not parts:  # two arguments: the number when they are equal, else nothing
            less, equal, greater = "", combo[0].strip(), ""
        else:
            less = parts[0]
            equal = parts[1] if len(parts) > 1 else ""
            greater = parts[2] if len(parts) > 2 else equal
        try:
            a, b = int(combo[0]), int(combo[1] if len(combo) > 1 else "")
        except ValueError:
            taken = [less, equal, greater]
        else:
            taken = [less if a < b else equal if a == b else greater]
        found.extend(v for text in taken for v in ex.expand(text, depth))
    return _unique(found)


def _wildcard(ex: Expander, arg: str, depth: int) -> list[str]:
    """`$(wildcard P)`: the files P names when the file runs (P itself for
    the commands); whether any exists is not known (a conditional on it
    may go either way)."""
    ex.unknown += 1
    return _unique([" ".join(t.split()) for t in ex.expand(arg, depth)])


def _quiet(ex: Expander, arg: str, depth: int) -> list[str]:
    ex.expand(arg, depth)  # what it runs still runs
    return [""]


def _file(ex: Expander, arg: str, depth: int) -> list[str]:
    """`$(file >PATH,TEXT)` writes TEXT: told as the shell write it is."""
    import shlex

    args = split_args(arg, 1)
    for combo in ex.each(args, depth):
        target = combo[0].strip()
        if target.startswith("<"):
            return ex.opaque_value()
        op = ">>" if target.startswith(">>") else ">"
        path = target.lstrip(">").strip()
        text = combo[1] if len(combo) > 1 else ""
        # `${HOME}` (the environment's) stays a reference the shell expands
        word = path if _PLAIN_PATH.fullmatch(path) else shlex.quote(path)
        ex.runs.append(f"cat {op} {word} <<'MAKE_FILE_TEXT'\n{text}\nMAKE_FILE_TEXT")
    return [""]


def _unknown(ex: Expander, arg: str, depth: int) -> list[str]:
    ex.expand(arg, depth)
    return ex.opaque_value()


def _text(function: Callable[..., str], most: int = 0) -> Callable[[Expander, str, int], list[str]]:
    """A function of its arguments' text (`subst`, `dir`, `sort`...): `most`
    commas split them (one argument takes its commas as text)."""

    def apply(ex: Expander, arg: str, depth: int) -> list[str]:
        return _unique([function(*combo) for combo in ex.each(split_args(arg, most), depth)])

    return apply


_FUNCTIONS: dict[str, Callable[[Expander, str, int], list[str]]] = {
    "shell": _shell, "eval": _eval, "call": _call, "foreach": _foreach, "let": _let,
    "if": _if, "or": _any_of, "and": _any_of, "value": _value, "info": _quiet,
    "warning": _quiet, "error": _quiet, "file": _file, "guile": _unknown,
    "origin": _origin, "flavor": _flavor, "intcmp": _intcmp, "wildcard": _wildcard,
    "words": _text(lambda t="": str(len(t.split()))),
    "strip": _text(lambda t="": " ".join(t.split())),
    "abspath": _text(lambda t="": t.strip()), "realpath": _text(lambda t="": t.strip()),
    "subst": _text(lambda a, b="", t="": t.replace(a, b) if a else t, 2),
    "patsubst": _text(lambda a, b="", t="": patsubst(a.strip(), b.strip(), t), 2),
    "findstring": _text(lambda a, t="": a if a in t else "", 1),
    "filter": _text(filter_words(True), 1), "filter-out": _text(filter_words(False), 1),
    "sort": _text(lambda t="": " ".join(sorted(set(t.split())))),
    "word": _text(nth, 1), "wordlist": _text(wordlist, 2),
    "firstword": _text(lambda t="": (t.split() or [""])[0]),
    "lastword": _text(lambda t="": (t.split() or [""])[-1]),
    "dir": _text(dir_of), "notdir": _text(each_word(lambda w: w.rsplit("/", 1)[-1])),
    "suffix": _text(each_word(lambda w: "." + w.rsplit(".", 1)[1] if "." in w else "")),
    "basename": _text(each_word(lambda w: w.rsplit(".", 1)[0])),
    "addsuffix": _text(lambda s, t="": " ".join(w + s for w in t.split()), 1),
    "addprefix": _text(lambda p, t="": " ".join(p + w for w in t.split()), 1),
    "join": _text(lambda a, b="": " ".join(map(str.__add__, a.split(), b.split())), 1),
}  # fmt: skip
