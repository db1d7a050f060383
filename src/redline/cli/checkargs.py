"""Reading `redline check`'s command line.

`redline check rm -rf /` (the command unquoted, several words) judges the
words joined as the shell would quote them: options of `check` are read
before the command's first word, and after it only check's own long options
spelled in full (`--json`, `--cwd DIR`...); every other word, `-rf` too, is
part of the command. After `--` every word is. `normalize` puts the command
last, as one word after `--`, for argparse and for `fast_args`, which reads
the common command lines without argparse (it is started once per question).
"""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace

TYPE_CHECKING = False  # not `typing`'s: `redline check ls` starts without it (ADR 0004)
if TYPE_CHECKING:
    from typing import Any

FLAGS = ("--json", "--batch", "--record", "--rules-only")
VALUED = ("--cwd", "--tool", "--args", "--context", "--session", "--policy")
_LONG = (*FLAGS, *VALUED, "--help")


def normalize(argv: Sequence[str]) -> list[str]:
    """`argv` with the options first and the command, if any, as one word
    after `--`."""
    options: list[str] = []
    words: list[str] = []
    rest = list(argv)
    while rest:
        word = rest.pop(0)
        if word == "--":
            words += rest
            break
        name, equals, _ = word.partition("=")
        if words:
            if word in FLAGS:
                options.append(word)
            elif name in VALUED:
                options += [word] if equals or not rest else [word, rest.pop(0)]
            else:
                words.append(word)
        elif word.startswith("-") and word != "-":
            options.append(word)
            if not equals and _takes_value(name) and rest:
                options.append(rest.pop(0))
        else:
            words.append(word)
    if not words:
        return options
    if len(words) == 1:
        return [*options, "--", words[0]]
    import shlex

    return [*options, "--", shlex.join(words)]


def _takes_value(name: str) -> bool:
    """Whether argparse reads `name` (in full or a unique abbreviation) as an
    option that takes a value."""
    matches = [option for option in _LONG if option.startswith(name)] if name[:2] == "--" else []
    return name in VALUED or (len(matches) == 1 and matches[0] in VALUED)


def fast_args(argv: Sequence[str]) -> SimpleNamespace | None:
    """The arguments of a plain, normalized `redline check` command line, read
    without argparse; `None` when argparse must decide (help, abbreviations,
    a value that starts with `-`, anything malformed)."""
    values: dict[str, Any] = {"command": None, "args": "{}"}
    values.update(dict.fromkeys(name[2:] for name in VALUED if name != "--args"))
    values.update(dict.fromkeys((name[2:].replace("-", "_") for name in FLAGS), False))
    rest = list(argv)
    while rest:
        word = rest.pop(0)
        name, equals, value = word.partition("=")
        if word in FLAGS:
            values[word[2:].replace("-", "_")] = True
        elif name in VALUED and equals:
            values[name[2:]] = value
        elif word in VALUED and rest and not rest[0].startswith("-"):
            values[word[2:]] = rest.pop(0)
        elif word == "--" and len(rest) == 1:
            values["command"] = rest.pop(0)
        else:
            return None
    return SimpleNamespace(**values)
