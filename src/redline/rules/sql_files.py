"""Files of SQL a client is told to run (`psql -f F`, `mysql DB < F`, psql's
`\\i F`, sqlite's `.read F`), read from disk so the SQL rules judge what
they hold. Only a small regular file whose place is known is read; any
other is judged by its name alone, as before."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator

from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC

_INCLUDE = lazy_regex(r"^\s*(?:\\ir?|\\include(?:_relative)?|\.read)\s+(\S+)", re.MULTILINE)
# A file larger than this is not read.
MAX_SQL_FILE = 256 * 1024


def included(texts: Iterable[str]) -> Iterator[str]:
    """Files the SQL itself includes (`\\i F`, `\\ir F`, `.read F`)."""
    for text in texts:
        yield from (m.group(1).strip("'\"") for m in _INCLUDE.finditer(text))


def read(name: str, cwd: str | None) -> str | None:
    """The text of the file, or None when it cannot be known now (a computed
    name, an unknown directory, not a small regular file)."""
    if DYNAMIC in name or name == "-":
        return None
    path = os.path.expanduser(name)
    if not os.path.isabs(path):
        if cwd is None:
            return None
        path = os.path.join(os.path.expanduser(cwd), path)
    try:
        if not os.path.isfile(path) or os.path.getsize(path) > MAX_SQL_FILE:
            return None
        with open(path, encoding="utf-8", errors="replace") as file:
            return file.read(MAX_SQL_FILE)
    except OSError:
        return None
