"""The files a patch touches: Codex `apply_patch` and Hermes V4A patches.

A patch names what it changes on header lines (`*** Add File: PATH`,
`*** Update File: PATH`, `*** Delete File: PATH`, `*** Move to: PATH`);
every one of those paths is written. Unified diffs (`--- a/x`, `+++ b/x`)
are read too, for hosts that pass them.
"""

from __future__ import annotations

import re

from redline.shell.lazy_regex import lazy_regex

_HEADER = lazy_regex(
    r"^\*\*\*[ \t]*(?:Add|Update|Delete)[ \t]+File:[ \t]*(.+?)[ \t]*$"
    r"|^\*\*\*[ \t]*Move[ \t]+to:[ \t]*(.+?)[ \t]*$",
    re.MULTILINE | re.IGNORECASE,
)
_UNIFIED = lazy_regex(r"^(?:\+\+\+|---)[ \t]+(?:[ab]/)?(.+?)(?:\t.*)?[ \t]*$", re.MULTILINE)


def patch_paths(text: str) -> tuple[str, ...]:
    """Every path the patch adds, updates, deletes or moves to, in order, once."""
    found: dict[str, None] = {}
    for match in _HEADER.finditer(text):
        found[match.group(1) or match.group(2)] = None
    if not found:
        for match in _UNIFIED.finditer(text):
            path = match.group(1)
            if path != "/dev/null":
                found[path] = None
    return tuple(found)
