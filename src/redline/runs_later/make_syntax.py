"""The shell lines of a makefile or a justfile, as `make` and `just` hand
them to the shell.

Make (`make_reader`, `make_expand`): logical lines join at a trailing
backslash (a CR before the newline is dropped, as make does); recipes are
expanded with make's semantics (the last definition of a variable, `+=`,
`define`, `$(call)`, `$(eval)`, `.RECIPEPREFIX`, `.ONESHELL`, `SHELL`...);
a value the file does not give is the environment's, never a harmless word.
Just (`just_syntax`): a recipe's body lines with `{{expr}}` evaluated.
"""

from __future__ import annotations


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
    from redline.runs_later.unreadable import commands_or_unknown

    found = commands_or_unknown(_just_commands if just else _make_commands, text) or []
    _Last.entry = (text, just, tuple(found))
    return found


def _make_commands(text: str) -> list[str]:
    from redline.runs_later.make_reader import Makefile

    makefile = Makefile()
    makefile.read(logical_lines(text.replace("\r\n", "\n")))
    return makefile.commands()


def definition_values(text: str) -> list[str]:
    """The values a piece of a makefile gives its variables, expanded: a
    recipe elsewhere in the file may run any of them."""
    from redline.runs_later.make_reader import Makefile

    makefile = Makefile()
    makefile.read(logical_lines(text.replace("\r\n", "\n")))
    names = list(makefile.variables)  # an `$(eval)` in a value may define more
    return [v for name in names for v in makefile.expander.variable(name, 0)]


def just_commands(text: str) -> list[str]:
    """The command lines of a justfile's recipes (their indented body lines)."""
    return _remembered(text, True)


def _just_commands(text: str) -> list[str]:
    from redline.runs_later.just_syntax import Justfile

    justfile = Justfile()
    justfile.read(logical_lines(text.replace("\r\n", "\n")))
    return justfile.commands()
