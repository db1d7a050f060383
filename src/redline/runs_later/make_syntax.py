"""The shell lines of a makefile or a justfile, as `make` and `just` hand
them to the shell.

Make: logical lines join at a trailing backslash; a recipe line starts with
a tab under a rule (or follows `target: ;` on the rule's line); its `@`, `-`
and `+` prefixes are make's, not the shell's; `$$` is a `$`; `$(shell CMD)`
runs CMD wherever it stands, in a variable or a recipe; `$(VAR)` is the
variable's value when the file defines it simply, else a plain word. Just:
a recipe's body is its indented lines; `{{expr}}` is a plain word.
"""

from __future__ import annotations

from redline.shell.lazy_regex import lazy_regex

_DEFINITION = lazy_regex(
    r"^(?:export\s+|override\s+)?([A-Za-z_][\w.-]*)\s*(?:[:+?!]?=|::=)\s*(.*)$"
)
_RULE = lazy_regex(r"^[^\s#=:][^=]*?(?<!:):(?!=)")
_AUTOMATIC = lazy_regex(r"\$[@<^*?%|+]|\$\([@<^*?%][DF]?\)")
_JUST_EXPR = lazy_regex(r"\{\{[^}]*\}\}")
# Make functions whose value is (a form of) their last argument.
_PATH_FUNCTIONS = frozenset({"wildcard", "notdir", "dir", "basename", "strip", "firstword",
                             "abspath", "realpath", "addprefix", "addsuffix", "subst", "patsubst",
                             "sort"})  # fmt: skip
# A bound on work: the most nested `$(...)` followed in one line.
_MAX_EXPANSIONS = 64


def logical_lines(text: str) -> list[str]:
    """Lines with their backslash continuations joined (the backslash and
    newline kept, as make passes them to the shell in a recipe)."""
    if "\\\n" not in text:
        return text.split("\n")
    lines: list[str] = []
    pending: list[str] = []
    for line in text.split("\n"):
        if line.endswith("\\") and not line.endswith("\\\\"):
            pending.append(line[:-1])
            continue
        pending.append(line)
        lines.append(" ".join(p.strip() if k else p for k, p in enumerate(pending)))
        pending = []
    if pending:
        lines.append(" ".join(pending))
    return lines


class _Last:
    """The last text read and its commands: a makefile written is read by
    the judge of its commands and by the never-run checks (one attribute:
    thread-safe)."""

    entry: tuple[str, bool, tuple[str, ...]] | None = None


def make_commands(text: str) -> list[str]:
    """Every command line a makefile may hand to the shell, in order."""
    return _remembered(text, False)


def _remembered(text: str, just: bool) -> list[str]:
    entry = _Last.entry
    if entry is not None and entry[1] is just and entry[0] == text:
        return list(entry[2])
    found = _just_commands(text) if just else _make_commands(text)
    _Last.entry = (text, just, tuple(found))
    return found


def _make_commands(text: str) -> list[str]:
    lines = logical_lines(text)
    variables: dict[str, str] = {}
    for line in lines:
        if line[:1] != "\t":
            match = _DEFINITION.match(line)
            if match:
                variables.setdefault(match.group(1), match.group(2).split("#", 1)[0].strip())
    found: list[str] = []
    in_rule = False
    # A recipe line repeated word for word expands the same way (the
    # variables are read once, above): expanded once, with what its
    # `$(shell ...)` runs.
    expanded: dict[str, tuple[str, list[str]]] = {}
    for line in lines:
        if line[:1] == "\t":
            if in_rule or line.strip():
                command = line.strip().lstrip("@-+ \t")
                if command and not command.startswith("#"):
                    known = expanded.get(command)
                    if known is None:
                        runs: list[str] = []
                        known = expanded[command] = (_expand(command, variables, runs), runs)
                    found.extend(known[1])
                    found.append(known[0])
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        in_rule = False
        if _DEFINITION.match(line):
            _expand(line, variables, found)  # `X := $(shell CMD)` runs CMD
            continue
        if _RULE.match(line):
            in_rule = True
            head, _, inline = line.partition(";")
            _expand(head, variables, found)
            if inline.strip():
                found.append(_expand(inline.strip().lstrip("@-+ \t"), variables, found))
        elif "$(shell" in line:
            _expand(line, variables, found)
    return found


def _expand(text: str, variables: dict[str, str], found: list[str], depth: int = 0) -> str:
    """`text` with make's references replaced: `$$` by `$`, automatic
    variables by a word, `$(shell CMD)` recorded in `found` (and replaced by a
    word), `$(VAR)` by its value. Unknown references become a word."""
    if "$" not in text:
        return text
    text = text.replace("$$", "\0")
    if "$" in text:
        text = _AUTOMATIC.sub("target", text)
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        at = _next_reference(text, i)
        if at < 0:
            out.append(text[i:])
            break
        out.append(text[i:at])
        close = _matching(text, at + 1)
        inner = text[at + 2 : close] if close > 0 else text[at + 2 :]
        i = close + 1 if close > 0 else n
        out.append(_reference(inner, variables, found, depth))
    return "".join(out).replace("\0", "$")


def _next_reference(text: str, start: int) -> int:
    """Where the next `$(` or `${` starts, or -1."""
    paren, brace = text.find("$(", start), text.find("${", start)
    if paren < 0 or (0 <= brace < paren):
        return brace
    return paren


def _reference(inner: str, variables: dict[str, str], found: list[str], depth: int) -> str:
    if depth >= _MAX_EXPANSIONS:
        return "value"
    word, _, rest = inner.partition(" ")
    if word == "shell":
        found.append(_expand(rest.strip(), variables, found, depth + 1))
        return "output"
    if rest and word in _PATH_FUNCTIONS:
        return _expand(rest.strip().split(",")[-1], variables, found, depth + 1)
    if rest or "," in word or ":" in word:
        _expand(inner, variables, found, depth + 1)  # a function's `$(shell ...)` still runs
        return "value"
    value = variables.get(word)
    if value is None:
        return "value"
    return _expand(value, variables, found, depth + 1) if "$" in value else value


def _matching(text: str, start: int) -> int:
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


def just_commands(text: str) -> list[str]:
    """The command lines of a justfile's recipes (their indented body lines)."""
    return _remembered(text, True)


def _just_commands(text: str) -> list[str]:
    found: list[str] = []
    for line in logical_lines(text):
        if line[:1] in (" ", "\t") and line.strip() and not line.strip().startswith("#"):
            command = line.strip().lstrip("@-")
            found.append(_JUST_EXPR.sub("value", command) if "{{" in command else command)
    return found
