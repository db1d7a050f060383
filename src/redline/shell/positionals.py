"""Positional parameters (F-SHELL-4): `set -- a b` gives `$1`, `$@`...; at
the top they are the caller's, unknown. Also the builtins whose arguments
are assignments (`declare -a v=(...)`)."""

from __future__ import annotations

from redline.shell.model import DYNAMIC, Word

# Builtins whose arguments are assignments, arrays included.
DECLARATIONS = frozenset({"declare", "typeset", "local", "readonly", "export"})
_CALLER_ARGS = frozenset({"$@", "$*", "${@}", "${*}"})


def caller_args(word: Word) -> bool:
    """The word is only `$@` or `$*` of unknown positional parameters."""
    return word.value == DYNAMIC and word.raw.strip('"') in _CALLER_ARGS


def readings(words: list[Word]) -> tuple[list[Word], list[Word]]:
    """The words with the caller's unknown arguments gone (they are most
    often none), and, when they stood first, the reading where they are the
    program (empty otherwise). The last word stays: `rm -rf "$@"`."""
    kept = [w for w in words[:-1] if not caller_args(w)] + words[-1:]
    return kept, ([words[0], *kept] if caller_args(words[0]) else [])


def set_from(variables: dict[str, str], words: list[Word]) -> None:
    """`set -- a b c` (or `set a b`) gives `$1`... the values that follow;
    `set -e` alone leaves them as they were."""
    k = 0
    while k < len(words) and words[k].value[:1] in ("-", "+") and words[k].value != "-":
        if words[k].value == "--":
            k += 1
            break
        # `set -o NAME`: the name is the option's value, not a parameter.
        k += 2 if words[k].value in ("-o", "+o") else 1
    else:
        if k >= len(words):
            return
    for old in [key for key in variables if key.isdigit() and key != "0"]:
        del variables[old]
    values = words[k:]
    for number, word in enumerate(values[:9], 1):
        variables[str(number)] = word.value
    variables["#"] = str(len(values)) if len(values) <= 9 else DYNAMIC
