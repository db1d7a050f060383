"""JSON from outside (a hook's stdin, a `--batch` line, a service request),
read with a bound on how deeply it nests.

`json.loads` recurses once per level and raises `RecursionError` near 1,000
levels; the gate walks arguments recursively too (redaction, paths, scripts).
A value nested deeper than `MAX_DEPTH` is refused here, as a `ValueError`
naming the limit, so that no caller meets a `RecursionError` half-way through
judging a call. Imports only `redline.jsoncodec` (`json`'s parser
without the `json` package's import).
"""

from __future__ import annotations

from redline import jsoncodec

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from typing import Any

MAX_DEPTH = 100
"""Arrays and objects inside each other: tool calls nest a few levels."""


class TooDeep(ValueError):
    """JSON nested deeper than the limit."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"it is nested deeper than {limit} levels")


def loads(data: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """`json.loads(data)`, refusing (`TooDeep`) a value nested past `max_depth`."""
    try:
        value = jsoncodec.loads(data)
    except RecursionError:
        raise TooDeep(max_depth) from None
    if isinstance(value, dict | list) and depth_over(value, max_depth):
        raise TooDeep(max_depth)
    return value


def depth_over(value: Any, limit: int) -> bool:
    """Whether `value` nests arrays and objects more than `limit` deep
    (walked with a list, not recursion)."""
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        for child in children:
            if isinstance(child, dict | list):
                pending.append((child, depth + 1))
    return False
