"""The values a `for` loop's variable takes: each word of a list the
analysis can read (`for d in /dev/sd{a..c}`, `for d in build dist`). The
parser reads the loop's body once per value, as bash runs it, so every value
is judged where it is used; a list too long, or a budget spent by nested
loops, leaves the variable unknown (judged as computed at run time).
"""

from __future__ import annotations

from redline.shell import paths
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC, Word

MAX_VALUES = 8
# Extra readings of loop bodies one command may cost (nested loops multiply).
MAX_REPEATS = 24
_NAME = lazy_regex(r"\A[A-Za-z_][A-Za-z0-9_]*\Z")
# A glob whose one pattern is the name of a home directory: what follows it.
_EVERY_HOME = lazy_regex(r"\A/+(?:home|Users)/+[^/]*[*?[][^/]*(/.*)?\Z")


def loop_values(name: list[Word], items: list[Word] | None) -> tuple[str, list[str | None]] | None:
    """The variable and the value of each pass (`None`: unknown), or None when
    the loop cannot be followed (no `in`, a bad name, too many values)."""
    if len(name) != 1 or items is None or not _NAME.match(name[0].value):
        return None
    if not items or len(items) > MAX_VALUES:
        return None
    return name[0].value, [_value(w) for w in items]


def _value(word: Word) -> str | None:
    """A glob stands for files only the run will find (`/proc/[0-9]*` then
    `${p#/proc/}` is a PID, not a pattern): unknown. But a glob over the homes
    (`/home/*`, `/Users/*/`, `/home/*/.ssh`) has the owner's home among its
    matches: that pass is judged with it (`~`, `~/.ssh`)."""
    value = word.value
    if DYNAMIC in value:
        return None
    if word.glob and paths.is_glob(value):
        homes = _EVERY_HOME.match(value)
        return value if homes is None else "~" + (homes.group(1) or "")
    return value


def bind(table: dict[str, str], name: str, value: str | None) -> None:
    if value is None:
        table.pop(name, None)
    else:
        table[name] = value
