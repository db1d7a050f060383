"""Code that builtins and functions run later, found where it is set
(F-SHELL-4): `trap CMD SIGNAL` runs CMD when the signal comes (`EXIT` always
does), and a function defined in the same command runs its body, with the
caller's arguments as `$1`, `$@` (`f() { $1 -rf /; }; f rm`)."""

from __future__ import annotations

from redline.shell.carriers import Carried
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC

_TRAP_QUIET = frozenset({"-l", "-p", "-P"})
# Builtins that keep or run code besides calls of functions.
KEEPS_CODE = frozenset({"trap", "history", "fc"})
# Builtins that take a variable name, subscript included: bash evaluates the
# subscript as arithmetic, running its substitutions (`read 'a[$(cmd)]'`).
NAMERS = frozenset({"read", "printf", "test", "[", "[[", "declare", "typeset", "local",
                    "export", "readonly", "unset", "mapfile", "readarray", "let"})  # fmt: skip
_SUBSCRIPT = lazy_regex(r"\A[A-Za-z_]\w*\[(.*)\](?:\+?=.*)?\Z", 16)  # re.DOTALL


def subscripts(inv: Invocation) -> list[Carried]:
    """The substitutions in the subscripts of the names `inv` is given."""
    found: list[Carried] = []
    words = inv.argv[1:]
    if inv.name in ("printf", "test", "[", "[["):  # only the name after `-v`
        words = tuple(w for k, w in enumerate(words) if k and words[k - 1].value == "-v")
    for word in words:
        value = word.value
        if "[" not in value or ("$(" not in value and "`" not in value):
            continue
        match = _SUBSCRIPT.match(value.split("=", 1)[-1] if value.startswith("-") else value)
        if match is None and "=" in value:  # `declare -n r='a[$(cmd)]'`
            match = _SUBSCRIPT.match(value.split("=", 1)[1])
        if match is not None:
            found.append(Carried(": " + match.group(1), f"{inv.name} subscript"))
    return found


# Where `history -s TEXT` keeps TEXT among the function bodies, for `fc -s`
# to run it (no function can have this name).
_HISTORY = "\0history"


def carried(inv: Invocation, functions: dict[str, str], via: tuple[str, ...]) -> list[Carried]:
    if inv.name == "trap":
        return _trap(inv)
    if inv.name in ("history", "fc"):
        return _history(inv, functions)
    if not functions:
        return []
    body = functions.get(inv.name) if inv.argv[0].raw == inv.name else None
    label = "function " + inv.name
    if body is None or label in via:
        return []
    given = inv.argv[1:10]
    env = (*((str(k), w.value) for k, w in enumerate(given, 1)), ("#", str(len(given))))
    return [Carried(body, label, env=env)]


def _trap(inv: Invocation) -> list[Carried]:
    """`trap [--] ACTION SIGNAL...`; `-` or `''` resets, one word alone too."""
    words = inv.argv[1:]
    if words and words[0].value == "--":
        words = words[1:]
    if len(words) < 2 or words[0].value in _TRAP_QUIET or words[0].value in ("-", ""):
        return []
    return [Carried(words[0].value, "trap", words[0])]


def _history(inv: Invocation, functions: dict[str, str]) -> list[Carried]:
    """`history -s TEXT` puts TEXT in the history; `fc -s` (and `fc -e -`)
    runs the last entry (bash's `r` alias is not followed: a name is lower
    case here, and R is the statistics interpreter). An entry read from a file (`history -r F`) is
    not known here: running it is running unknown text."""
    values = inv.values
    if inv.name == "history":
        if values[:1] == ("-s",) and len(values) > 1:
            functions[_HISTORY] = " ".join(values[1:])
        elif values[:1] in (("-r",), ("-n",)):
            functions[_HISTORY] = DYNAMIC
        return []
    runs = "-s" in values or ("-e" in values and "-" in values)
    if not runs:
        return []
    return [Carried(functions.get(_HISTORY, DYNAMIC), f"{inv.name} (history)")]
