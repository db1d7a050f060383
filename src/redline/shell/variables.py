"""What a command leaves in the shell's variables, for the commands after it
(F-SHELL-4): assignments (arrays too), `declare`/`typeset`/`local`/`export`/
`readonly` (with `-n`, `-i`, `-l`, `-u`), `read` and `mapfile` from a
here-string or heredoc, `printf -v`, `let`, `(( ))`, `unset`, `set --`.

A value that cannot be known is removed, so its later uses are computed at
run time (`DYNAMIC`), never a stale value. Each function returns the code
the command itself runs as it sets them (`let x` with `x='a[$(cmd)]'`,
`mapfile -C CMD`), for the parser to read as commands.
"""

from __future__ import annotations

from redline.shell import arith, parameters, positionals, pure
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC, Redirect, Word
from redline.shell.parameters import ALL, NAMEREF, SEP

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from collections.abc import Sequence

_ASSIGNED = lazy_regex(r"([A-Za-z_]\w*)\s*(?:[-+*/%]?=(?!=)|\+\+|--)|(?:\+\+|--)\s*([A-Za-z_]\w*)")
_SETTERS = frozenset({"read", "mapfile", "readarray", "printf", "let", "unset", "set", "eval"})


def after(
    table: dict[str, str], words: Sequence[Word], assignments: Sequence[Word],
    redirects: Sequence[Redirect], arrays: dict[int, tuple[str, ...]],
) -> list[str]:  # fmt: skip
    if not words:
        for word in assignments:
            assign(table, word.value, arrays.get(word.span.start))
        return []
    name = words[0].value
    if name not in _SETTERS and name not in positionals.DECLARATIONS:
        return []
    args = [w.value for w in words[1:]]
    if name == "eval":
        # `eval "\$$n"`: its text is expanded again with the variables set so
        # far (the carried script, read on its own, cannot know them).
        text = " ".join(args)
        return [text] if "$" in text and DYNAMIC not in text else []
    if name == "set":
        if args:
            positionals.set_from(table, list(words[1:]))
    elif name in positionals.DECLARATIONS:
        return _declare(table, name, words[1:], arrays)
    elif name == "read":
        _read(table, args, stdin_text(redirects), assignments)
    elif name in ("mapfile", "readarray"):
        return _mapfile(table, args, stdin_text(redirects))
    elif name == "printf":
        _printf(table, args)
    elif name == "let":
        return [code for arg in args for code in arithmetic(table, arg)]
    else:
        for arg in args:
            _forget(table, arg)
    return []


def home_seen(table: dict[str, str], assignments: Sequence[Word]) -> str | None:
    """`$HOME` in the environment of a command's programs when it is not the
    owner's: set earlier (`export HOME=/`) or for this command (`HOME=/ sh -c`);
    `DYNAMIC` when unknown."""
    home = table.get("HOME", DYNAMIC)
    for word in assignments:
        if word.value.startswith("HOME="):
            home = word.value[5:]
            home = home if DYNAMIC not in home or pure.only_marks(home) else DYNAMIC
    return None if home == "~" else home


def _forget(table: dict[str, str], name: str) -> None:
    name = name.split("[")[0]
    table.pop(name, None)
    table.pop(name + ALL, None)


def assign(table: dict[str, str], text: str, array: tuple[str, ...] | None = None) -> None:
    """`NAME=VALUE`, `NAME+=VALUE`, `NAME[i]=VALUE`, `NAME=(...)` (`array`
    holds its elements)."""
    name, eq, value = text.partition("=")
    if not eq:
        return
    append = name.endswith("+")
    name = name.rstrip("+")
    base, bracket, index_text = name.partition("[")
    base = table.get(NAMEREF + base, base)
    if array is not None and any(v.startswith("[") and "]=" in v for v in array):
        array = _keyed(array)
    if array is not None:
        old = parameters.elements(table, base) if append else ()
        if old is None or any(DYNAMIC in v for v in array):
            _forget(table, base)
            return
        _store(table, base, (*old, *array))
        return
    if bracket:
        old = parameters.elements(table, base) or ()
        index_text = index_text.rstrip("]")
        index = int(index_text) if index_text.isdigit() else -1
        if index < 0 or index > len(old) or DYNAMIC in value:
            _forget(table, base)
            return
        items = list(old)
        if index == len(items):
            items.append(value)
        else:
            items[index] = items[index] + value if append else value
        _store(table, base, tuple(items))
        return
    if append:
        old_value = table.get(base)
        value = DYNAMIC if old_value is None else old_value + value
    if DYNAMIC in value and not pure.only_marks(value):  # `ROOT=$(pwd)` is kept (`pure`)
        _forget(table, base)
        return
    table[base] = value
    if base + ALL in table:  # `a=x` sets element 0 of an array
        items = table[base + ALL].split(SEP)
        table[base + ALL] = SEP.join([value, *items[1:]])


def _keyed(array: tuple[str, ...]) -> tuple[str, ...] | None:
    """`([0]=rm [1]=-rf)` in index order; `([k]=v)` of one key; else unknown
    (an associative array's order is the shell's hash order)."""
    pairs = [v[1:].partition("]=") for v in array]
    if any(not eq for _, eq, _ in pairs):
        return None
    if all(key.isdigit() for key, _, _ in pairs):
        ordered = sorted(pairs, key=lambda p: int(p[0]))
        if [int(k) for k, _, _ in ordered] == list(range(len(ordered))):
            return tuple(value for _, _, value in ordered)
        return None
    return (pairs[0][2],) if len(pairs) == 1 else None


def _store(table: dict[str, str], name: str, items: tuple[str, ...]) -> None:
    table[name + ALL] = SEP.join(items)
    if items:
        table[name] = items[0]
    else:
        table.pop(name, None)


def _declare(
    table: dict[str, str], builtin: str, words: Sequence[Word], arrays: dict[int, tuple[str, ...]]
) -> list[str]:
    flags = ""
    codes: list[str] = []
    for word in words:
        text = word.value
        if text[:1] in ("-", "+") and "=" not in text:
            flags += text[1:] if text[0] == "-" else ""
            continue
        name, eq, value = text.partition("=")
        if not eq:
            if builtin == "local" or "n" in flags:
                _forget(table, name)
            continue
        if "f" in flags:
            continue
        if "n" in flags:
            if DYNAMIC in value:
                table.pop(NAMEREF + name, None)
            else:
                table[NAMEREF + name] = value
            continue
        if "i" in flags:
            codes.extend(parameters.arithmetic_code(value, table))
            number = arith.evaluate(value, _integers(table)) if DYNAMIC not in value else None
            text = f"{name}={DYNAMIC if number is None else number}"
        elif "l" in flags or "u" in flags:
            text = f"{name}={value.lower() if 'l' in flags else value.upper()}"
        assign(table, text, arrays.get(word.span.start))
    return codes


def stdin_text(redirects: Sequence[Redirect]) -> str | None:
    """What a builtin reads from a here-string, a literal heredoc or a process
    substitution of known output."""
    text: str | None = None
    for redirect in redirects:
        if redirect.op == "<<<" and redirect.body is not None:
            text = redirect.body + "\n"
        elif redirect.op in ("<<", "<<-") and redirect.body is not None:
            literal = redirect.body_literal or not any(c in redirect.body for c in "$`\\")
            text = redirect.body if literal else None
        elif redirect.op == "<" and redirect.target is not None and redirect.target.feeds:
            text = redirect.target.feeds  # `< <(echo x)`: what the substitution prints
        elif redirect.op[:1] == "<":
            text = None
    return None if text is None or DYNAMIC in text else text


def _options(args: list[str], valued: str) -> tuple[str, dict[str, str], list[str]]:
    """Flags, valued options and operands of `read`/`mapfile`."""
    flags, values, k = "", {}, 0
    while k < len(args) and args[k].startswith("-") and len(args[k]) > 1:
        if args[k] == "--":
            k += 1
            break
        for i, letter in enumerate(args[k][1:], 1):
            if letter in valued:
                rest = args[k][i + 1 :]
                if not rest and k + 1 < len(args):
                    k += 1
                    rest = args[k]
                values[letter] = rest
                break
            flags += letter
        k += 1
    return flags, values, args[k:]


def _read(
    table: dict[str, str], args: list[str], stdin: str | None, assignments: Sequence[Word]
) -> None:
    flags, values, names = _options(args, "adinNptu")
    targets = [values["a"]] if "a" in values else names or ["REPLY"]
    delimiter = values.get("d", "\n") or "\x00"
    if stdin is None or "u" in values or "n" in values or "N" in values:
        for name in targets:
            _forget(table, name)
        return
    line = stdin.split(delimiter, 1)[0] if delimiter in stdin else stdin.rstrip("\n")
    if "r" not in flags:
        line = line.replace("\\\n", "")
        line = "".join(c for i, c in enumerate(line) if c != "\\" or line[i - 1 : i] == "\\")
    ifs = table.get("IFS", " \t\n")
    for word in assignments:
        if word.value.startswith("IFS="):
            ifs = word.value[4:]
    if not names and "a" not in values:
        table["REPLY"] = line
        return
    fields = _split(line, ifs, 0 if "a" in values else len(names))
    if "a" in values:
        _forget(table, values["a"])
        _store(table, values["a"], tuple(fields))
        return
    for k, name in enumerate(names):
        assign(table, f"{name}={fields[k] if k < len(fields) else ''}")


def _split(line: str, ifs: str, most: int) -> list[str]:
    """Fields of `line` at IFS's characters; with `most`, the last one keeps
    the rest of the line."""
    import re

    if not ifs:
        return [line]
    blanks = "".join(c for c in ifs if c in " \t\n")
    others = "".join(c for c in ifs if c not in " \t\n")
    line = line.strip(blanks) if blanks else line
    around = f"[{re.escape(blanks)}]*" if blanks else ""
    parts = [f"{around}[{re.escape(others)}]{around}"] if others else []
    if blanks:
        parts.append(f"[{re.escape(blanks)}]+")
    if most == 1:  # one name takes the whole line (`re.split`'s 0 would mean no limit)
        return [line]
    fields = re.split("|".join(parts), line, maxsplit=max(most - 1, 0))
    if most and len(fields) == most and blanks:
        fields[-1] = fields[-1].rstrip(blanks)
    return fields


def _mapfile(table: dict[str, str], args: list[str], stdin: str | None) -> list[str]:
    flags, values, names = _options(args, "dnOsuCc")
    name = names[0] if names else "MAPFILE"
    codes = [values["C"]] if "C" in values else []
    if stdin is None or set(values) - {"d", "C", "c"}:
        _forget(table, name)
        return codes
    delimiter = values.get("d", "\n") or "\x00"
    pieces = stdin.split(delimiter)
    items = [p if "t" in flags else p + delimiter for p in pieces[:-1]]
    if pieces[-1]:
        items.append(pieces[-1])
    _forget(table, name)
    _store(table, name, tuple(items))
    return codes


def _printf(table: dict[str, str], args: list[str]) -> None:
    """`printf -v NAME FORMAT ARGS...` writes NAME."""
    if not args or not args[0].startswith("-v"):
        return
    name = args[0][2:] or (args[1] if len(args) > 1 else "")
    rest = args[1:] if args[0][2:] else args[2:]
    if rest[:1] == ["--"]:
        rest = rest[1:]
    from redline.shell.static_text import format_text

    text = format_text(rest[0], rest[1:]) if rest and not any(DYNAMIC in r for r in rest) else None
    assign(table, f"{name}={DYNAMIC if text is None else text}")


def _integers(table: dict[str, str]) -> dict[str, int]:
    return {k: int(v) for k, v in table.items() if v.lstrip("-").isdigit() and len(v) < 19}


def arithmetic(table: dict[str, str], expression: str) -> list[str]:
    """`(( expression ))` or `let expression`: its assignments are kept;
    returns the code it runs (subscripts holding a command substitution)."""
    arithmetic_value(table, expression)
    return parameters.arithmetic_code(expression, table)


def arithmetic_value(table: dict[str, str], expression: str) -> str:
    """The value of `$(( expression ))`, its assignments kept in `table`."""
    if "$(" in expression or "`" in expression or DYNAMIC in expression:
        value = None
    else:
        names = _integers(table)
        before = dict(names)
        value = arith.evaluate(expression, names)
        for name, number in names.items():
            if before.get(name) != number:
                table[name] = str(number)
    if value is None:
        for match in _ASSIGNED.finditer(expression):
            _forget(table, match.group(1) or match.group(2))
        return DYNAMIC
    return str(value)


def arithmetic_operands(table: dict[str, str], raws: list[str]) -> list[str]:
    """The code `[[ A -eq B ]]` runs: its operands are arithmetic."""
    return [code for raw in raws for code in parameters.arithmetic_code(raw, table)]
