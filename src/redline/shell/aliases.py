"""Aliases defined in the same command text (F-SHELL-4).

`alias x='rm -rf'; x /` runs `rm -rf /`. Bash expands aliases in a script
only with `shopt -s expand_aliases`, but the shells agents run vary, so an
alias defined earlier is always expanded: the strict reading.
"""

from __future__ import annotations

from redline.shell.carriers import quote
from redline.shell.invocation import Invocation
from redline.shell.model import DYNAMIC, Script, Word


def definitions(inv: Invocation) -> list[tuple[str, str]]:
    """The `NAME=VALUE` pairs an `alias` command defines; a value computed at
    run time is kept as `DYNAMIC`, so using the alias is a dynamic command."""
    found: list[tuple[str, str]] = []
    for word in inv.argv[1:]:
        name, eq, value = word.value.partition("=")
        if eq and name and not name.startswith("-"):
            found.append((name, value))
    return found


def hashed(inv: Invocation) -> list[tuple[str, str]]:
    """`hash -p FILE NAME`: every later `NAME` runs FILE (a renamed program,
    told as an alias of its path; a computed FILE is `DYNAMIC`)."""
    values = [w.value for w in inv.argv[1:]]
    for k, value in enumerate(values):
        if not value.startswith("-") or "p" not in value[1:]:
            continue
        attached = value[value.index("p") + 1 :]
        given = attached or (values[k + 1] if k + 1 < len(values) else "")
        names = values[k + 1 :] if attached else values[k + 2 :]
        program = DYNAMIC if DYNAMIC in given or not given else quote(given)
        return [(name, program) for name in names if name and not name.startswith("-")]
    return []


def expand(
    argv: tuple[Word, ...], table: dict[str, str], via: tuple[str, ...]
) -> tuple[tuple[Word, ...], str | None] | None:
    """What `argv` runs when its first word is an alias, else `None`: the
    argv itself when the alias is one simple command (`alias x='rm -rf'`),
    else the script (`alias x='cd /; rm -rf'`) with the other words quoted
    back, so they stay the words they were.

    Only a plain, unquoted command word is an alias (`\\x` and `'x'` are
    not), and not inside its own expansion (`alias ls='ls -l'`).
    """
    if not argv or not table:
        return None
    first = argv[0]
    if first.raw != first.value or first.value not in table or label(first.value) in via:
        return None
    value = table[first.value]
    from redline.shell.parser import Parser  # only when an alias is used: see `analysis`

    script = Parser(value).parse_full()
    if _plain(script):
        words = tuple(w._replace(span=first.span) for w in script.commands[0].words)
        return (*words, *argv[1:]), None
    rest = " ".join(quote(w.value) for w in argv[1:])
    return (), f"{value} {rest}".strip() if rest else value


def _plain(script: Script) -> bool:
    if script.errors or script.pipelines or len(script.commands) != 1:
        return False
    command = script.commands[0]
    return bool(command.words) and not command.redirects and not command.assignments


def label(name: str) -> str:
    return "alias " + name
