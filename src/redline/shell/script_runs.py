"""The file an invocation runs as its script (`bash x.sh`, `./x`, `python3
x.py`, `sh < x`), and the language a script's text is in. Shared by the
analysis (a file written and run in the same command) and the gate (a file
read from disk)."""

from __future__ import annotations

from redline.fasttuple import NamedTuple
from redline.shell.carriers import (
    SHELLS,
    SOURCE,
    VALUE_FLAGS,
    descriptor_input,
    descriptor_number,
    inline_code,
    interpreter_family,
    shell_options,
)
from redline.shell.invocation import Invocation
from redline.shell.model import DYNAMIC

SHELL_SUFFIXES = (".sh", ".bash", ".zsh", ".ksh", ".command")
_SHELL_SUFFIXES = SHELL_SUFFIXES


class RunScript(NamedTuple):
    """A file an invocation runs: its path as written and whether a shell
    reads it (else an interpreter or the kernel's `#!`)."""

    path: str
    shell: bool


def script_run(inv: Invocation) -> RunScript | None:
    """The file `inv` runs as a program or script, if it names one."""
    if not inv.argv:
        return None
    first = inv.argv[0].value
    if "/" in first and DYNAMIC not in first:
        return RunScript(first, first.endswith(_SHELL_SUFFIXES))
    name, values = inv.name, inv.values
    if name in SHELLS:
        mode, k = shell_options(values)
        if mode == "c":
            return None
        return _named(values[k], True, inv) if k < len(values) else _stdin_file(inv, True)
    if name in SOURCE:
        operands = inv.options.operands
        return _named(operands[0].value, True, inv) if operands else None
    family = interpreter_family(name)
    if family is None or inline_code(inv) is not None:
        return None
    k = 0
    takes = VALUE_FLAGS.get(family, "")
    while k < len(values):
        value = values[k]
        if value == "--":
            return _named(values[k + 1], False, inv) if k + 1 < len(values) else None
        if value == "-":  # the program is read from stdin
            return _stdin_file(inv, False)
        if not value.startswith("-"):
            return _named(value, False, inv)
        if family in ("python", "pypy") and "m" in value[1:]:
            return None  # a module, not a file
        if value[1:2] in takes and len(value) == 2:
            k += 1
        k += 1
    return _stdin_file(inv, False)


def _stdin_file(inv: Invocation, by_shell: bool) -> RunScript | None:
    """`sh < FILE`, `python3 < FILE`: the script is the file on stdin."""
    for redirect in inv.redirects:
        if redirect.op == "<" and redirect.fd in (None, 0) and redirect.target is not None:
            return _named(redirect.target.value, by_shell)
    return None


def _named(value: str, by_shell: bool, inv: Invocation | None = None) -> RunScript | None:
    if not value or DYNAMIC in value or value == "-":
        return None
    number = descriptor_number(value) if value.startswith(("/dev/", "/proc/")) else None
    if number is not None:  # `bash /dev/stdin < x.sh`, `python3 /dev/fd/3 3< x.py`
        return _descriptor_file(inv, number, by_shell) if inv is not None else None
    return RunScript(value, by_shell)


def _descriptor_file(inv: Invocation, number: int, by_shell: bool) -> RunScript | None:
    """The file redirected into descriptor `number` (`3< FILE`, `< FILE`)."""
    redirect = descriptor_input(inv, number)
    target = None if redirect is None or redirect.op != "<" else redirect.target
    if target is None or DYNAMIC in target.value:
        return None
    return RunScript(target.value, by_shell)


def is_shell_text(text: str, path: str = "") -> bool:
    """Shell text: a `#!` naming a shell, or a shell script's suffix."""
    if text.startswith("#!"):
        first = text.split("\n", 1)[0]
        program = first.rsplit("/", 1)[-1].split()
        if program and program[0] == "env" and len(program) > 1:
            return program[1] in SHELLS
        return bool(program) and program[0] in SHELLS
    return path.lower().endswith(_SHELL_SUFFIXES)


def language_of(text: str, path: str) -> str:
    """The language of a script file: its `#!` program's, else its suffix's."""
    if text.startswith("#!"):
        words = text.split("\n", 1)[0].rsplit("/", 1)[-1].split()
        if words and words[0] == "env" and len(words) > 1:
            words = [w for w in words[1:] if not w.startswith("-")] or words[1:]
        if words:
            return interpreter_family(words[0]) or words[0]
    suffix = path.rsplit(".", 1)[-1].lower() if "." in path.rsplit("/", 1)[-1] else ""
    return _SUFFIX_LANGUAGE.get(suffix, "python")


_SUFFIX_LANGUAGE = {"py": "python", "js": "node", "mjs": "node", "cjs": "node", "ts": "node",
                    "rb": "ruby", "pl": "perl", "pm": "perl", "php": "php", "lua": "lua",
                    "awk": "awk"}  # fmt: skip
