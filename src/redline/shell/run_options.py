"""Reading a command line from a program's options: the pieces the finders
of `run_carriers` and `command_runners` share."""

from redline.fasttuple import NamedTuple
from redline.shell.invocation import Invocation
from redline.shell.model import Word


class Run(NamedTuple):
    label: str
    argv: tuple[Word, ...] = ()
    script: str | None = None


def script(label: str, text: str) -> list[Run]:
    return [Run(label, script=text)] if text.strip() else []


def long_option(value: str, names: tuple[str, ...], min_len: int = 3) -> str | None:
    """The option of `names` that `--value` spells, by any unambiguous prefix."""
    key = value[2:].partition("=")[0]
    if len(key) < min_len:
        return None
    found = [n for n in names if n == key] or [n for n in names if n.startswith(key)]
    return found[0] if len(found) == 1 else None


def option_scripts(
    inv: Invocation, label: str, longs: tuple[str, ...], shorts: str = "", whole: str = ""
) -> list[Run]:
    """`--opt=CMD`, `--opt CMD`, `-xCMD`, `-x CMD` and `-opt CMD` (whole words)."""
    values, found = inv.values, []
    for k, value in enumerate(values):
        following = values[k + 1] if k + 1 < len(values) else ""
        if value.startswith("--") and long_option(value, longs):
            key, eq, attached = value.partition("=")
            found += script(f"{label} {key}", attached if eq else following)
        elif whole and value in whole.split():
            found += script(f"{label} {value}", following)
        elif len(value) >= 2 and value[0] == "-" and value[1] in shorts:
            found += script(f"{label} {value[:2]}", value[2:] or following)
    return found


def skip_options(argv: tuple[Word, ...], start: int, with_values: frozenset[str]) -> int:
    """The index of the first operand from `start` (past `--`); options in
    `with_values` take the next word."""
    k = start
    while k < len(argv):
        value = argv[k].value
        if value == "--":
            return k + 1
        if not value.startswith("-") or value == "-":
            return k
        k += 2 if value in with_values else 1
    return k
