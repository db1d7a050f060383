"""The variables a `trap` action sees (F-SHELL-4): the action runs later (on
exit, on a signal), with the variables as they are then. It is analysed with
those it names as they are where the trap is set, so `tmp=$(mktemp -d);
trap 'rm -rf "$tmp"' EXIT` deletes the fresh directory and `tmp=~; trap
'rm -rf "$tmp"' EXIT` the home; a variable the rest of the line may set
again (an assignment, `read`, `for`...) stays unknown, as before.
"""

from __future__ import annotations

from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC, FunctionDef, Word

TYPE_CHECKING = False  # not `typing`'s: kept off the hook's start (ADR 0004)
if TYPE_CHECKING:
    from collections.abc import Sequence

_REFERENCE = lazy_regex(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
# Where a name is only read (`$tmp`, `${tmp}`, `${tmp:-x}`, `${#tmp}`).
_READ_BEFORE = ("$", "${", "${#", "${!")
_TRAP_OPTIONS = frozenset({"-l", "-p", "-P", "-"})

Seen = tuple[tuple[str, str], ...]


def seen(
    words: list[Word], table: dict[str, str], rest: str, functions: Sequence[FunctionDef]
) -> Seen:
    """The known values of the variables a `trap ACTION SIGNAL...` action
    names, less those `rest` (the text after it) may set again (`kept`)."""
    action = words[2] if len(words) > 3 and words[1].value == "--" else words[1]
    if "$" not in action.value or action.value in _TRAP_OPTIONS:
        return ()
    found: dict[str, str] = {}
    for match in _REFERENCE.finditer(action.value):
        name = match.group(1)
        value = table.get(name)
        if value is not None and name != "HOME" and (DYNAMIC not in value or _marks(value)):
            found[name] = value
    return kept(tuple(found.items()), rest, functions) if found else ()


def _marks(value: str) -> bool:
    from redline.shell.pure import only_marks

    return only_marks(value)


# Code run in the same shell that the line does not spell: any variable may change.
_IN_PROCESS = lazy_regex(r"(?:^|[;&|({\n`]|\$\()\s*(?:source|eval|\.)(?=\s)")


def kept(pairs: Seen, rest: str, functions: Sequence[FunctionDef]) -> Seen:
    """`pairs` less the names the text after the trap (and the line's
    functions) mentions other than by reading them: they may hold something
    else when the action runs. None after `source`, `.` or `eval`."""
    if functions:
        rest = "\n".join([rest, *(f.text for f in functions)])
    if _IN_PROCESS.search(rest):
        return ()
    return tuple((name, value) for name, value in pairs if not _set_later(name, rest))


def _set_later(name: str, rest: str) -> bool:
    start = rest.find(name)
    while start >= 0:
        end = start + len(name)
        before, after = rest[max(0, start - 3) : start], rest[end : end + 1]
        whole = not (rest[start - 1 : start].isalnum() or rest[start - 1 : start] == "_") and not (
            after.isalnum() or after == "_"
        )
        if whole and (not before.endswith(_READ_BEFORE) or _assigns(rest[end : end + 3])):
            return True
        start = rest.find(name, end)
    return False


def _assigns(after: str) -> bool:
    """`${x:=v}`, `${x=v}` assign when `x` is unset or empty."""
    return after.startswith(("=", ":="))
