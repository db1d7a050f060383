"""A reader that fails is an unknown command, never an allow nor a crash.

A file's reader follows its format's semantics over text an agent chose:
a bug or a bound in it must not stop the gate (a traceback for `redline
check`, a blocked hook for an ordinary project) nor let the file pass
unread. What it would have told is a computed command: asked.
"""

from __future__ import annotations

from collections.abc import Callable

# A command no reading can know: the analysis asks about a computed program.
UNREADABLE = "${REDLINE_UNREADABLE_FILE}"


def commands_or_unknown(reader: Callable[[str], list[str] | None], text: str) -> list[str] | None:
    """`reader(text)`, or when the reader raises: one unknown command and
    each line of the text as a command of its own (the verdict is the
    strictest: a hard line on any line is not lowered to an ask by the
    failure, however the file made the reader fail)."""
    try:
        return reader(text)
    except Exception:  # noqa: BLE001 - any failure of a reader is an unknown, asked
        lines = (line.strip() for line in text.splitlines())
        return [UNREADABLE, *(line for line in lines if line and not line.startswith("#"))]


def unseen_or_unknown(
    reader: Callable[[str], list[tuple[str, str]]], text: str
) -> list[tuple[str, str]]:
    """`reader(text)` for settings that run unseen code, or one unknown."""
    try:
        return reader(text)
    except Exception:  # noqa: BLE001 - any failure of a reader is an unknown, asked
        return [("its settings could not be read", UNREADABLE)]
