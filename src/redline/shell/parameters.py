"""Parameter expansion operators computed statically (F-SHELL-4): indirection
(`${!ref}`), arrays (`${a[@]}`, `${a[1]}`), case (`${c,,}`, `${c^^}`, `${c~~}`),
patterns (`${x/a/b}`, `${x//a/b}`, `${x%/*}`, `${x##*/}`) and transforms
(`${v@U}`, `${v@Q}`, `${v@P}`). `c=REBOOT; ${c,,}` runs `reboot`.

Expansions that run code are reported as that code: `${v@P}` runs the
command substitutions in `v`'s value, and a subscript evaluated as
arithmetic (`$((x))` with `x='a[$(cmd)]'`) runs `cmd`.

Arrays live in the same table as scalars: `name` holds element 0 (what `$a`
is) and `name[@]` all the elements joined by `SEP`. A nameref (`declare -n r=c`)
is `NAMEREF + r` -> `c`.
"""

from __future__ import annotations

from redline.fasttuple import NamedTuple
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC

SEP = "\x1f"
ALL = "[@]"
NAMEREF = "\x02"
_NAME = lazy_regex(r"[A-Za-z_]\w*")
_GLOB_CHARS = lazy_regex(r"[*?[]")
_CASE_OPS = (",,", "^^", "~~", ",", "^", "~")
_PATTERN_OPS = ("//", "/#", "/%", "/", "##", "#", "%%", "%")
MAX_MATCHED = 256


class Expanded(NamedTuple):
    value: str
    # For `${a[@]}`: each element, words of their own when quoted.
    elements: tuple[str, ...] | None = None
    # Code the expansion itself runs (`DYNAMIC` when it cannot be known).
    code: str | None = None


def lookup(table: dict[str, str], name: str) -> str | None:
    return table.get(table.get(NAMEREF + name, name))


def elements(table: dict[str, str], name: str) -> tuple[str, ...] | None:
    name = table.get(NAMEREF + name, name)
    joined = table.get(name + ALL)
    if joined is not None:
        return tuple(joined.split(SEP)) if joined else ()
    value = table.get(name)
    return None if value is None else (value,)


def runs_code(value: str) -> bool:
    return "$(" in value or "`" in value


def arithmetic_code(expression: str, table: dict[str, str]) -> list[str]:
    """Values of the variables an arithmetic expression reads that hold a
    command substitution: bash evaluates them, and so runs it."""
    if not table or not any(c.isalpha() or c == "_" for c in expression):
        return []
    found = []
    for name in _NAME.findall(expression):
        value = lookup(table, name)
        if value is not None and runs_code(value):
            found.append(": " + value)  # its substitutions run, not the value
    return found


def expand(inner: str, table: dict[str, str]) -> Expanded | None:
    """The value of `${inner}` for the operators handled here; `None` for
    the others (plain names, defaults, substrings: the word scanner's)."""
    if inner.startswith("!"):
        return _indirect(inner[1:], table)
    match = _NAME.match(inner)
    if match is None:
        return None
    name, rest = match.group(0), inner[match.end() :]
    if rest.startswith("["):
        close = rest.find("]")
        if close == -1:
            return Expanded(DYNAMIC)
        return _array(name, rest[1:close], rest[close + 1 :], table)
    if not rest or rest[0] not in ",^~/#%@":
        return None
    value = lookup(table, name)
    return _apply(() if value is None else (value,), value is None, rest, False)


def _indirect(text: str, table: dict[str, str]) -> Expanded:
    match = _NAME.match(text)
    if match is None or text[match.end() :][:1] in ("*", "@"):
        return Expanded(DYNAMIC)  # `${!prefix*}`, `${!a[@]}`: names and keys
    target = lookup(table, match.group(0))
    if target is None or DYNAMIC in target or not _NAME.fullmatch(target.split("[")[0]):
        return Expanded(DYNAMIC)
    found = expand(target + text[match.end() :], table)
    if found is not None:
        return found
    rest = text[match.end() :]
    value = lookup(table, target)
    if rest or value is None:
        return Expanded(DYNAMIC)
    return Expanded(value)


def _array(name: str, subscript: str, rest: str, table: dict[str, str]) -> Expanded:
    values = elements(table, name)
    code = next(iter(arithmetic_code(subscript, table)), None)
    if subscript in ("@", "*"):
        if values is None:
            return Expanded(DYNAMIC, None, code)
        if not rest:
            joiner = " " if subscript == "@" else table.get("IFS", " ")[:1]  # `"${a[*]}"`
            return Expanded(joiner.join(values), values if subscript == "@" else None, code)
        return _apply(values, False, rest, subscript == "@")._replace(code=code)
    index = _index(subscript, table)
    if values is None or index is None or not -len(values) <= index < len(values):
        unknown = values is None or index is None
        return Expanded(DYNAMIC if unknown else "", None, code)
    value = values[index]
    if not rest:
        return Expanded(value, None, code)
    return _apply((value,), False, rest, False)._replace(code=code)


def _index(subscript: str, table: dict[str, str]) -> int | None:
    text = subscript.strip().lstrip("$")
    if text.lstrip("-").isdigit():
        return int(text)
    value = lookup(table, text)
    return int(value) if value is not None and value.lstrip("-").isdigit() else None


def _apply(values: tuple[str, ...], unknown: bool, op: str, each: bool) -> Expanded:
    """`op` (`,,`, `/a/b`, `%pat`, `@U`...) applied to every value."""
    if op.startswith("@"):
        return _transform(values, unknown, op[1:], each)
    if unknown:
        return Expanded(DYNAMIC)
    changed = []
    for value in values:
        result = _operator(value, op)
        if result is None:
            return Expanded(DYNAMIC)
        changed.append(result)
    return Expanded(" ".join(changed), tuple(changed) if each else None)


def _operator(value: str, op: str) -> str | None:
    for case in _CASE_OPS:
        if op.startswith(case):
            pattern = op[len(case) :]
            if pattern not in ("", "?", "*"):
                return None
            return _case(value, case)
    for pattern_op in _PATTERN_OPS:
        if op.startswith(pattern_op):
            return _pattern(value, pattern_op, op[len(pattern_op) :])
    return None


def _case(value: str, op: str) -> str:
    if op == ",,":
        return value.lower()
    if op == "^^":
        return value.upper()
    if op == "~~":
        return value.swapcase()
    if not value:
        return value
    first = (
        value[0].lower() if op == "," else value[0].upper() if op == "^" else value[0].swapcase()
    )
    return first + value[1:]


def _pattern(value: str, op: str, argument: str) -> str | None:
    if len(value) > MAX_MATCHED:
        return None  # a bound on work: matching tries every cut of the value
    if _GLOB_CHARS.search(value):
        # A glob's value (`for p in /proc/[0-9]*`) stands for the names the
        # run finds: a cut of the pattern is not a cut of those names.
        return None
    from redline.shell import glob_match

    if op[0] == "/":
        written, _, new_written = _split_replacement(argument)
        found, new = _unquote(written), _unquote(new_written)
        if found is None or new is None:
            return None
        anchor = {"/#": "^", "/%": "$"}.get(op, "")
        return glob_match.replace(value, found, new, op == "//", anchor)
    pattern = _unquote(argument)
    if pattern is None:
        return None
    if op[0] == "#":
        return glob_match.remove_prefix(value, pattern, op == "##")
    return glob_match.remove_suffix(value, pattern, op == "%%")


def _split_replacement(text: str) -> tuple[str, str, str]:
    i = 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == "/":
            return text[:i], "/", text[i + 1 :]
        i += 1
    return text, "", ""


def _unquote(text: str) -> str | None:
    """A pattern or replacement as written: quotes removed; `None` when it
    holds an expansion (its value is not known here)."""
    if "$" in text or "`" in text:
        return None
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c in "'\"":
            close = text.find(c, i + 1)
            if close == -1:
                return None
            inner = text[i + 1 : close]
            out.append("".join("\\" + ch if ch in "*?[]\\" else ch for ch in inner))
            i = close + 1
        else:
            out.append(text[i : i + 2] if c == "\\" else c)
            i += 2 if c == "\\" else 1
    return "".join(out)


def _transform(values: tuple[str, ...], unknown: bool, letter: str, each: bool) -> Expanded:
    if letter == "P":
        # Prompt expansion runs the command substitutions in the value.
        if unknown or any(runs_code(v) or DYNAMIC in v for v in values):
            code = DYNAMIC if unknown else "\n".join(": " + v for v in values if runs_code(v))
            return Expanded(DYNAMIC, None, code or DYNAMIC)
        if any("\\" in v or "$" in v for v in values):
            return Expanded(DYNAMIC)
        return Expanded(" ".join(values), values if each else None)
    if unknown:
        return Expanded(DYNAMIC)
    if letter in ("U", "L", "u"):
        changed = tuple(
            v.upper() if letter == "U" else v.lower() if letter == "L" else v[:1].upper() + v[1:]
            for v in values
        )
    elif letter == "E":
        from redline.shell.lexer import decode_ansi_c

        changed = tuple(decode_ansi_c(v) for v in values)
    elif letter == "Q":  # always quoted: `${v@Q}` as a command is `'v'`, no program
        changed = tuple("'" + v.replace("'", "'\\''") + "'" for v in values)
    else:
        return Expanded(DYNAMIC)
    return Expanded(" ".join(changed), changed if each else None)
