"""Never-run verdicts on a long script, remembered with what they asked the machine.

A makefile written again with the same recipes (an edit elsewhere in it, a
comment changed) would be walked again invocation by invocation. The
verdict is a function of the text, its folder, the protected places and the
machine's answers to the questions the walk asked (a folder's links, a
`conftest.py` on disk, the service's ports). So the verdict is kept with
those questions and answers, and reused only when the machine gives every
answer again unchanged: a link made or a file changed since misses.
"""

from __future__ import annotations

from collections.abc import Callable

from redline.decision import RuleHit
from redline.gate.world import World
from redline.runs_later.everyday import Verdicts

TYPE_CHECKING = False  # not `typing`'s: kept off the hook's start (ADR 0004)
if TYPE_CHECKING:
    from typing import Any

# Only texts this long are worth remembering (a short one is judged at once).
MIN_TEXT = 4096
_VERDICTS = Verdicts(16)
_QUESTIONS = ("service_ports", "loopback_names", "gate_processes")
_PATHS = ("resolve", "read_script", "expand", "archive_members")


class _Recording(World):
    """`world`, with each question asked and its answer written down."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.asked: dict[tuple[str, str], Any] = {}

    def _ask(self, method: str, argument: str) -> Any:
        key = (method, argument)
        if key not in self.asked:
            call = getattr(self.world, method)
            self.asked[key] = call(argument) if method not in _QUESTIONS else call()
        return self.asked[key]

    def service_ports(self) -> frozenset[int]:
        return self._ask("service_ports", "")  # type: ignore[no-any-return]

    def loopback_names(self) -> frozenset[str]:
        return self._ask("loopback_names", "")  # type: ignore[no-any-return]

    def gate_processes(self) -> Any:
        return self._ask("gate_processes", "")

    def resolve(self, path: str) -> str | None:
        return self._ask("resolve", path)  # type: ignore[no-any-return]

    def read_script(self, path: str) -> str | None:
        return self._ask("read_script", path)  # type: ignore[no-any-return]

    def expand(self, pattern: str) -> tuple[str, ...]:
        return self._ask("expand", pattern)  # type: ignore[no-any-return]

    def archive_members(self, path: str) -> tuple[str, ...] | None:
        return self._ask("archive_members", path)  # type: ignore[no-any-return]


def _same_answers(world: World, asked: dict[tuple[str, str], Any]) -> bool:
    # A path under a folder that does not exist does not exist either: when
    # the folder the paths share is still missing, their `None`s stand.
    gone = _missing_root(world, asked)
    for (method, argument), answer in asked.items():
        if answer is None and gone and argument.startswith(gone):
            continue
        call = getattr(world, method)
        if (call(argument) if method not in _QUESTIONS else call()) != answer:
            return False
    return True


def _missing_root(world: World, asked: dict[tuple[str, str], Any]) -> str:
    """`/a/b/` when the paths asked about with no answer all lie under the
    folder `/a/b` and it does not exist now; else ``."""
    missing = [a for (m, a), answer in asked.items() if answer is None and m in _PATHS]
    if not missing or not all(a.startswith("/") for a in missing):
        return ""
    import os.path

    root = os.path.commonpath(missing)
    if root == "/" or world.resolve(root) is not None:
        return ""
    return root.rstrip("/") + "/"


def remembered(key: Any, world: World, judge: Callable[[World], list[RuleHit]]) -> list[RuleHit]:
    """`judge(world)`'s hits, or the ones it gave for `key` when the machine
    answers every question that judgement asked as it did then."""
    entry = _VERDICTS.get(key)
    if entry is not None and _same_answers(world, entry[1]):
        return list(entry[0])
    recording = _Recording(world)
    hits = judge(recording)
    _VERDICTS.put(key, (tuple(hits), recording.asked))
    return hits
