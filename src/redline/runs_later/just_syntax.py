"""A justfile read as `just` evaluates it, for the commands it hands to a shell.

Just evaluates its assignments when it loads the file: a backtick (and
`shell(...)`) runs then, wherever it stands. A recipe line's `{{expr}}` is
the expression's value: a string, a variable, a parameter's default, the
home (`home_directory()`, `env_var('HOME')`), the output of a backtick (the
shell's `$(CMD)`), or an unknown word the analysis asks about. A recipe
whose body starts with `#!`, or marked `[script]`, is one script for its
interpreter; `set shell := [...]` that is not a plain POSIX shell runs each
line through it; `set positional-arguments` hands the parameters to the
lines as `$1`...
"""

from __future__ import annotations

import shlex

from redline.fasttuple import NamedTuple
from redline.runs_later.make_expand import MAX_VARIANTS, product
from redline.shell.lazy_regex import lazy_regex

UNKNOWN = "${JUST_COMPUTED_VALUE}"
_TOKEN = lazy_regex(
    r"\s*(?:(?P<string>x?(?:'''.*?'''|\"\"\"(?:[^\\]|\\.)*?\"\"\"|'[^']*'|\"(?:[^\"\\]|\\.)*\"))"
    r"|(?P<backtick>```.*?```|`[^`]*`)|(?P<name>[A-Za-z_][\w-]*)"
    r"|(?P<op>==|!=|=~|&&|\|\||[-+/(),{}\[\]:=]))",
    flags=16,  # re.DOTALL
)
_ASSIGNMENT = lazy_regex(r"(?:export\s+)?([A-Za-z_][\w-]*)\s*:=\s*(.*)\Z", flags=16)
_SETTING = lazy_regex(r"set\s+([\w-]+)\s*(?::=\s*(.*))?\Z", flags=16)
_RECIPE = lazy_regex(r"@?([A-Za-z_][\w-]*)(.*?)(?<![:=]):(?![=])(.*)\Z")
_INTERPOLATION = lazy_regex(r"\{\{(?!\{)(.*?)\}\}")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}
_HOME = "${HOME}"
# Functions whose value is a folder of the owner's, or the project's.
_FOLDERS = {
    "home_directory": _HOME, "home_dir": _HOME, "cache_directory": _HOME + "/.cache",
    "config_directory": _HOME + "/.config", "config_local_directory": _HOME + "/.config",
    "data_directory": _HOME + "/.local/share", "data_local_directory": _HOME + "/.local/share",
    "executable_directory": _HOME + "/.local/bin", "justfile_directory": ".",
    "justfile_dir": ".", "invocation_directory": ".", "invocation_dir": ".",
    "source_directory": ".", "source_dir": ".", "invocation_directory_native": ".",
}  # fmt: skip
# Functions whose value is their first argument, or a form of it.
_SAME = frozenset({"quote", "trim", "trim_start", "trim_end", "lowercase", "uppercase",
                   "absolute_path", "canonicalize", "clean", "kebabcase", "snakecase",
                   "titlecase", "capitalize", "lowercamelcase", "uppercamelcase",
                   "shoutykebabcase", "shoutysnakecase", "encode_uri_component", "require",
                   "which"})  # fmt: skip
_MAX_DEPTH = 16
_PYTHON = lazy_regex(r"python(?:3(?:\.\d+)?)?")


class Recipe(NamedTuple):
    params: tuple[tuple[str, str | None], ...]
    body: tuple[str, ...]
    attributes: tuple[str, ...]


class Justfile:
    """The reading of one justfile."""

    def __init__(self) -> None:
        self.assignments: dict[str, str] = {}
        self.settings: dict[str, str] = {}
        self.recipes: list[Recipe] = []
        self.runs: list[str] = []
        self.scope: dict[str, list[str]] = {}
        self.depth = 0

    def read(self, lines: list[str]) -> None:
        attributes: list[str] = []
        current: tuple[tuple[tuple[str, str | None], ...], list[str], tuple[str, ...]] | None
        current = None
        for line in _joined(lines):
            if line[:1] in (" ", "\t"):
                if current is not None and line.strip():
                    current[1].append(line)
                continue
            code = line.strip()
            if not code or code.startswith("#"):
                continue
            if current is not None:
                self.recipes.append(Recipe(current[0], tuple(current[1]), current[2]))
                current = None
            if code.startswith("["):
                attributes.append(code)
                continue
            setting = _SETTING.match(code)
            assignment = _ASSIGNMENT.match(code)
            recipe = _RECIPE.match(code)
            if setting is not None:
                self.settings[setting.group(1)] = setting.group(2) or "true"
            elif assignment is not None:
                self.assignments[assignment.group(1)] = assignment.group(2)
            elif recipe is not None and not code.startswith(("alias ", "import ", "mod ")):
                current = (_params(recipe.group(2)), [], tuple(attributes))
                attributes = []
        if current is not None:
            self.recipes.append(Recipe(current[0], tuple(current[1]), current[2]))

    def commands(self) -> list[str]:
        for name in self.assignments:
            self.variable(name)  # each is evaluated on load: its backticks run
        shell = self._list(self.settings.get("shell", ""))
        wrapper = None if not shell or _plain_shell(shell) else shlex.join(shell)
        found: list[str] = []
        for recipe in self.recipes:
            self.scope = {}
            for name, default in recipe.params:
                value = self.evaluate(default) if default is not None else [_unknown_arg(name)]
                self.scope[name] = value
            found.extend(self._recipe(recipe, wrapper))
        return [*dict.fromkeys(self.runs), *found]

    def _recipe(self, recipe: Recipe, wrapper: str | None) -> list[str]:
        lines = _dedent(recipe.body)
        positional = "positional-arguments" in self.settings or any(
            "positional-arguments" in a for a in recipe.attributes
        )
        arguments = ""
        if positional and recipe.params:
            words = [_shell_word(self.scope[n][0]) for n, _ in recipe.params]
            arguments = "set -- " + " ".join(words)
        script = [a for a in recipe.attributes if a.startswith("[script")]
        texts = [self._interpolated(line) for line in lines]
        if script or (lines and lines[0].startswith("#!")):
            interpreter = self._interpreter(script[0] if script else lines[0])
            # Every variant of a line is a line of the script (fail closed).
            body = [v for text in texts[0 if script else 1 :] for v in text]
            return _script(interpreter, body, arguments)
        found: list[str] = []
        for variants in texts:
            for text in variants:
                command = text.strip().lstrip("@-").strip()
                if not command or command.startswith("#"):
                    continue
                if wrapper is not None:
                    command = f"{wrapper} {shlex.quote(command)}"
                found.append(f"{arguments}; {command}" if arguments else command)
        return found

    def _interpreter(self, head: str) -> list[str]:
        if head.startswith("#!"):
            words = head[2:].split()
            if words and words[0].rsplit("/", 1)[-1] == "env":
                words = [w for w in words[1:] if w != "-S"]
            return words
        inner = head[len("[script") :].strip("[]()")
        found = self._list("[" + inner + "]") if inner.strip() else []
        return found or self._list(self.settings.get("script-interpreter", "")) or ["sh", "-eu"]

    def _interpolated(self, line: str) -> list[str]:
        if "{{" not in line:
            return [line]
        pieces: list[list[str]] = []
        last = 0
        for match in _INTERPOLATION.finditer(line):
            pieces.append([line[last : match.start()].replace("{{{{", "{{")])
            pieces.append(self.evaluate(match.group(1)))
            last = match.end()
        pieces.append([line[last:]])
        return product(pieces)

    def _list(self, text: str) -> list[str]:
        """A setting's list of strings (`["bash", "-c"]`)."""
        tokens = _tokens(text) or []
        return [_string(v) for kind, v in tokens if kind == "string"]

    # -- expressions ---------------------------------------------------------

    def variable(self, name: str) -> list[str]:
        if name in self.scope:
            return self.scope[name]
        raw = self.assignments.get(name)
        if raw is None or self.depth > _MAX_DEPTH:
            return [UNKNOWN]
        self.depth += 1
        try:
            return self.evaluate(raw)
        finally:
            self.depth -= 1

    def evaluate(self, text: str) -> list[str]:
        """Every value an expression may have (`UNKNOWN` where it cannot be read)."""
        tokens = _tokens(text)
        if tokens is None:
            return [UNKNOWN]
        parser = _Parser(self, tokens)
        try:
            found = parser.expression()
        except (IndexError, ValueError):
            return [UNKNOWN]
        return found if parser.at == len(tokens) else [*found, UNKNOWN][:MAX_VARIANTS]


class _Parser:
    """A just expression: `value (('+' | '/' | '&&' | '||') value)*`, or `if`."""

    def __init__(self, just: Justfile, tokens: list[tuple[str, str]]) -> None:
        self.just, self.tokens, self.at = just, tokens, 0

    def peek(self) -> tuple[str, str]:
        return self.tokens[self.at] if self.at < len(self.tokens) else ("", "")

    def take(self) -> tuple[str, str]:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def expression(self) -> list[str]:
        if self.peek() == ("name", "if"):
            return self._if()
        if self.peek() == ("op", "/"):
            self.take()
            return ["/" + v for v in self.expression()]
        found = self.value()
        while self.peek()[0] == "op" and self.peek()[1] in ("+", "/", "&&", "||"):
            op = self.take()[1]
            right = self.value()
            if op in ("&&", "||"):
                found = _unique([*found, *right])
            else:
                found = product([found, right], "/" if op == "/" else "")
        return found

    def _if(self) -> list[str]:
        self.take()
        self.expression()
        if self.peek()[1] in ("==", "!=", "=~"):
            self.take()
            self.expression()
        branches = self._block()
        if self.peek() == ("name", "else"):
            self.take()
            branches += self._if() if self.peek() == ("name", "if") else self._block()
        return _unique(branches)

    def _block(self) -> list[str]:
        if self.take() != ("op", "{"):
            raise ValueError("a block")
        found = self.expression()
        if self.take() != ("op", "}"):
            raise ValueError("a block's end")
        return found

    def value(self) -> list[str]:
        kind, text = self.take()
        if kind == "string":
            return [_string(text)]
        if kind == "backtick":
            command = text.strip("`")
            self.just.runs.append(command)
            return [f"$({command})"]
        if (kind, text) == ("op", "("):
            found = self.expression()
            self.take()
            return found
        if kind != "name":
            raise ValueError(text)
        if self.peek() != ("op", "("):
            return self.just.variable(text)
        self.take()
        args: list[list[str]] = []
        while self.peek() != ("op", ")"):
            args.append(self.expression())
            if self.peek() == ("op", ","):
                self.take()
        self.take()
        return _call(self.just, text, args)


def _call(just: Justfile, name: str, args: list[list[str]]) -> list[str]:
    first = args[0] if args else [""]
    if name in _FOLDERS:
        return [_FOLDERS[name]]
    if name in ("env_var", "env", "env_var_or_default"):
        return [_env(v) for v in first]
    if name == "shell":
        just.runs.extend(first)
        return [f"$({c})" for c in first]
    if name in _SAME:
        return first
    if name in ("join", "append", "prepend"):
        return product(args, "/") if name == "join" else first
    if name == "replace" and len(args) == 3:
        return _unique([v.replace(a, b) for v in args[0] for a in args[1] for b in args[2]])
    if name in ("parent_directory", "without_extension", "file_stem", "file_name", "extension"):
        return first
    return [UNKNOWN]


def _joined(lines: list[str]) -> list[str]:
    """Top-level lines with a multi-line string or backtick (```, ''',
    \"\"\") joined to the lines it spans: just reads them as one value."""
    found: list[str] = []
    open_quote = ""
    for line in lines:
        if open_quote:
            found[-1] += "\n" + line
        elif line[:1] in (" ", "\t") or not any(q in line for q in _TRIPLES):
            found.append(line)
            continue
        else:
            found.append(line)
        for quote in _TRIPLES:  # still open after this line: an odd count
            if (found[-1].count(quote) % 2) == 1:
                open_quote = quote
                break
        else:
            open_quote = ""
    return found


_TRIPLES = ("```", "'''", '"""')


def _env(name: str) -> str:
    clean = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    return "${" + clean + "}" if clean else UNKNOWN


def _unknown_arg(name: str) -> str:
    return _env(name.replace("-", "_"))


def _tokens(text: str) -> list[tuple[str, str]] | None:
    found: list[tuple[str, str]] = []
    at = 0
    while at < len(text):
        rest = text[at:].lstrip()
        if not rest or rest.startswith("#"):
            break  # the end, or a comment
        match = _TOKEN.match(text, at)
        if match is None or match.end() == at:
            return None
        kind = match.lastgroup or ""
        found.append((kind, match.group(kind)))
        at = match.end()
    return found


def _string(token: str) -> str:
    raw = token[1:] if token.startswith("x") else token
    quote = raw[:3] if raw[:3] in ("'''", '"""') else raw[:1]
    body = raw[len(quote) : len(raw) - len(quote)]
    if quote.startswith('"'):
        out, k = [], 0
        while k < len(body):
            if body[k] == "\\" and k + 1 < len(body):
                out.append(_ESCAPES.get(body[k + 1], body[k + 1]))
                k += 2
            else:
                out.append(body[k])
                k += 1
        body = "".join(out)
    return body


def _params(text: str) -> tuple[tuple[str, str | None], ...]:
    """A recipe's parameters and their defaults' expressions."""
    found: list[tuple[str, str | None]] = []
    level, quote = 0, ""
    word: list[str] = []
    for char in text + " ":
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"`":
            quote = char
        elif char in "([":
            level += 1
        elif char in ")]":
            level -= 1
        if char.isspace() and level <= 0 and not quote and word:
            item = "".join(word).lstrip("+*$")
            name, eq, default = item.partition("=")
            found.append((name, default if eq else None))
            word = []
        elif not char.isspace() or level > 0 or quote:
            word.append(char)
    return tuple(found)


def _dedent(body: tuple[str, ...]) -> list[str]:
    """The body less the first line's indentation (a script's own stays)."""
    if not body:
        return []
    indent = body[0][: len(body[0]) - len(body[0].lstrip())]
    return [line[len(indent) :] if line.startswith(indent) else line.strip() for line in body]


def _shell_word(value: str) -> str:
    return f'"{value}"' if value.startswith(("${", "$(")) else shlex.quote(value)


def _script(interpreter: list[str], body: list[str], arguments: str) -> list[str]:
    from redline.shell.carriers import SHELLS

    text = "\n".join(body)
    program = interpreter[0].rsplit("/", 1)[-1] if interpreter else "sh"
    if program in SHELLS:
        return [f"{arguments}\n{text}" if arguments else text]
    if _PYTHON.fullmatch(program) and len(interpreter) == 1:
        # Python code, judged as a Python script file is: by what it runs
        from redline.runs_later.formats import python_commands

        return python_commands(text)
    return [f"{shlex.join(interpreter)} <<'JUST_SCRIPT'\n{text}\nJUST_SCRIPT"]


def _plain_shell(shell: list[str]) -> bool:
    from redline.runs_later.make_reader import plain_flags
    from redline.shell.carriers import SHELLS

    return shell[0].rsplit("/", 1)[-1] in SHELLS and plain_flags(" ".join(shell[1:]))


def _unique(values: list[str]) -> list[str]:
    found = list(dict.fromkeys(values))
    return found if len(found) <= MAX_VARIANTS else [*found[: MAX_VARIANTS - 1], UNKNOWN]
