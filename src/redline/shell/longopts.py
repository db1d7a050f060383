"""Abbreviated long options (F-SHELL-4): GNU getopt and argp take any
unambiguous prefix of a long option, so `rm --recur --force` is
`rm --recursive --force`.

Each program's long options are data; a prefix resolves only when exactly
one of them starts with it. An exact name always wins (`--force` is never
read as `--force-with-lease`).
"""

from __future__ import annotations

_RM = (
    "recursive force interactive one-file-system no-preserve-root preserve-root dir verbose "
    "help version"
)
_CP_MV = (
    "recursive force interactive archive backup copy-contents dereference no-clobber "
    "link no-dereference preserve no-preserve parents reflink remove-destination "
    "sparse strip-trailing-slashes suffix symbolic-link target-directory "
    "no-target-directory update verbose one-file-system attributes-only context exchange "
    "debug help version"
)
_OWNERSHIP = (
    "recursive changes quiet silent verbose dereference no-dereference from "
    "no-preserve-root preserve-root reference help version"
)

# Programs whose option parser accepts abbreviations, with their long options.
LONG_OPTIONS: dict[str, frozenset[str]] = {
    name: frozenset(spec.split())
    for name, spec in {
        "rm": _RM,
        "cp": _CP_MV,
        "mv": _CP_MV,
        "chmod": _OWNERSHIP,
        "chown": _OWNERSHIP,
        "chgrp": _OWNERSHIP,
        "shred": "force iterations random-source size remove verbose exact zero help version",
        "rmdir": "ignore-fail-on-non-empty parents verbose help version",
        "sed": "quiet silent debug expression file follow-symlinks in-place line-length "
        "null-data zero-terminated posix regexp-extended separate sandbox unbuffered help version",
        "tar": "checkpoint checkpoint-action to-command use-compress-program to-stdout "
        "extract create list append update delete directory file exclude remove-files "
        "overwrite unlink-first recursive-unlink verbose gzip bzip2 xz zstd help version",
    }.items()
}


def resolve(program: str, key: str) -> str:
    """The long option `key` (without `--`) stands for in `program`."""
    known = LONG_OPTIONS.get(program)
    if known is None or key in known:
        return key
    matches = [name for name in known if name.startswith(key)]
    return matches[0] if len(matches) == 1 else key
