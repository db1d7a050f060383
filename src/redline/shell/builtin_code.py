"""Code that builtins and functions run later, found where it is set
(F-SHELL-4): `trap CMD SIGNAL` runs CMD when the signal comes (`EXIT` always
does), and a function defined in the same command runs its body, with the
caller's arguments as `$1`, `$@` (`f() { $1 -rf /; }; f rm`)."""

from __future__ import annotations

from redline.shell.carriers import Carried
from redline.shell.invocation import Invocation

_TRAP_QUIET = frozenset({"-l", "-p", "-P"})


def carried(inv: Invocation, functions: dict[str, str], via: tuple[str, ...]) -> list[Carried]:
    if inv.name == "trap":
        return _trap(inv)
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
