"""What code a shell or an interpreter runs: inline (`-c`, `-e`), on stdin,
from a process substitution or from a file, and the libraries it loads."""

from __future__ import annotations

from redline.rules import argv
from redline.shell.carriers import CODE_FLAGS as _CODE_FLAGS
from redline.shell.carriers import (
    SHELLS,
    SOURCE,
    fed_program,
    first_operand,
    inline_code_value,
    interpreter_family,
    shell_options,
)
from redline.shell.carriers import VALUE_FLAGS as _VALUE_FLAGS
from redline.shell.invocation import Invocation

# Where a program takes the code it runs.
INLINE, STDIN, FD, FILE = "inline", "stdin", "fd", "file"

_SELF_INPUT = ("-", "/dev/stdin", "/proc/self/fd/0", "/dev/fd/0")


def code_input(inv: Invocation) -> str | None:
    """`inline`, `stdin`, `fd` (process substitution), `file`, or `None`
    when the invocation runs no code of its own (or a module: `python -m`)."""
    source = code_source(inv)
    return None if source is None else source[0]


def code_source(inv: Invocation) -> tuple[str, str] | None:
    """Where the code comes from, and the script: the operand when it is a
    file, the text when it is inline in a shell's or `eval`'s arguments."""
    name = inv.name
    if name == "eval":
        return INLINE, " ".join(inv.values)
    if name in SHELLS:
        return _shell_source(inv)
    if name in SOURCE:
        operands = inv.options.operands
        return _operand_source(operands[0].value) if operands else None
    family = interpreter_family(name)
    if family is None or (family not in _CODE_FLAGS and family not in ("tclsh", "jshell", "irb")):
        return None
    if inline_code(inv) is not None:
        return INLINE, ""
    args = argv.parse(inv.values, _VALUE_FLAGS.get(family, ""), ())
    if family in ("python", "pypy") and args.has("-m"):
        return None
    if family == "php" and args.has("-f"):
        given = args.value("-f")
        return (FILE, given[0]) if given else (STDIN, "")  # `php -f` alone: php refuses it
    return _operand_source(args.operands[0]) if args.operands else (STDIN, "")


def inline_code(inv: Invocation) -> str | None:
    """The code given on the command line: `-c CODE`, `-ne CODE`, `--eval=CODE`."""
    family = interpreter_family(inv.name) or ""
    code = inline_code_value(family, inv.values)
    if code is None and family:  # `python3 <(echo CODE)`
        code = fed_program(inv, first_operand(inv.values, _VALUE_FLAGS.get(family, "")))
    return code


def code_text(inv: Invocation) -> str | None:
    """The code a shell or interpreter runs when it is on the command line or stdin."""
    source = code_source(inv)
    if source is None:
        return None
    if source[0] == INLINE:
        return inline_code(inv) if interpreter_family(inv.name) else source[1] or None
    return inv.stdin_text if source[0] == STDIN else None


def _shell_source(inv: Invocation) -> tuple[str, str]:
    values = inv.values
    mode, k = shell_options(values)
    if mode == "c":
        return INLINE, values[k] if k < len(values) else ""
    if mode == "s":
        return STDIN, ""
    return _operand_source(values[k]) if k < len(values) else (STDIN, "")


def _operand_source(value: str) -> tuple[str, str]:
    if value in _SELF_INPUT:
        return STDIN, ""
    if value.startswith(("/dev/fd/", "/proc/self/fd/")):
        return FD, value
    return FILE, value


_SAFE_LIBRARIES = {
    "perl": frozenset({"List::Util", "Scalar::Util", "POSIX", "JSON::PP", "Data::Dumper",
                       "Time::Piece", "Time::HiRes", "Digest::MD5", "Digest::SHA", "MIME::Base64",
                       "utf8", "strict", "warnings", "open", "Encode", "Text::Wrap", "feature"}),
    "ruby": frozenset({"json", "date", "time", "set", "digest", "base64", "securerandom", "csv",
                       "pp", "bigdecimal", "English"}),
}  # fmt: skip
_LIBRARY_FLAGS = {"perl": "Mm", "ruby": "r"}
_NODE_PRELOAD = ("-r", "--require", "--import", "--loader", "--experimental-loader")
_PRELOADERS = {"node": _NODE_PRELOAD, "nodejs": _NODE_PRELOAD, "bun": _NODE_PRELOAD,
               "php": ("-d", "-c", "-z")}  # fmt: skip


def safe_options(family: str, values: tuple[str, ...]) -> bool:
    """The interpreter's options load no library outside a small safe set
    (`perl -MList::Util`, `ruby -rjson`), no preload (`node -r`) and no
    settings that run files (`php -d auto_prepend_file=...`)."""
    loaders = _PRELOADERS.get(family)
    if loaders is not None:
        code = inline_code_value(family, values)
        return not any(v.startswith(loaders) for v in values if v != code)
    letters = _LIBRARY_FLAGS.get(family)
    if letters is None:
        return True
    args = argv.parse(values, _VALUE_FLAGS.get(family, "") + letters, ())
    for key, value in args.values:
        if key[1:] in letters:
            name = value.split("=", 1)[0].lstrip("-")
            if name not in _SAFE_LIBRARIES[family]:
                return False
    return True
