"""Everyday command lines that need no analysis, and a memo of verdicts.

A long makefile or CI file carries thousands of command lines; most are
`@echo "Building..."` and lines repeated word for word. Two mechanisms keep
its judgement near linear in its *distinct, meaningful* lines:

- `is_plain`: a line that only prints plain text (`echo`, `printf`,
  `true`, `false`, `:` with literal words: no expansion, no redirection,
  no pipe, no operator, no glob, no name of the gate, a port or a URL)
  cannot match a rule and changes nothing another line sees; it is left
  out of the text analysed. Any doubt keeps the line.
- `Verdicts`: a bounded memo of the judge's findings per list of commands
  (what a file carries, not its comments) and folder: judging commands is a
  pure function of them (the catalogue reads no disk), so the same commands
  written again (an edit of a long file) are judged once per process.
"""

from __future__ import annotations

from _thread import allocate_lock  # `threading.Lock`, without loading `threading`
from collections import OrderedDict

from redline.shell.lazy_regex import lazy_regex

TYPE_CHECKING = False  # not `typing`'s: kept off the hook's start (ADR 0004)
if TYPE_CHECKING:
    from typing import Any

# Programs that only print their words (or nothing), read no file, run
# nothing and set nothing (`printf -v` is refused: no option words for it).
_PRINTERS = frozenset({"echo", "printf", "true", "false", ":"})
# A plain line: the program, then words of letters, digits and `_.,+%@/-`,
# or quoted text of those and spaces and `:;!?()` (no `$`, backquote,
# backslash or other quote inside). Linear: no nested repetition.
_PLAIN = lazy_regex(
    r"[a-z:]+(?:[ \t]+(?:[\w.,+%@/-]+|\"[\w .,:;!?()+%@/-]*\"|'[\w .,:;!?()+%@/-]*'))*[ \t]*"
)
# Words a never-run check reads in any line's text: ports and addresses,
# the gate's names, proxies, hook folders.
_TELLING = lazy_regex(r"\d\d|://|redline|hermes|proxy|hookspath|claude|codex", flags=2)
_ECHO_OPTIONS = frozenset({"-n", "-e", "-E", "-ne", "-en"})
# A line whose last character is one of these continues on the next line
# (a pipe, `&&`, an open group): the line after it is kept.
_ENDS_PLAIN = lazy_regex(r"[\w.,+%@/\"'-]\s*\Z")


def is_plain(line: str) -> bool:
    """A command line that only prints literal text (see the module's notes)."""
    words = line.split()
    if not words or words[0] not in _PRINTERS:
        return False
    if not _PLAIN.fullmatch(line) or _TELLING.search(line):
        return False
    options = [w for w in words[1:] if w.startswith("-")]
    return not options or (words[0] == "echo" and all(w in _ECHO_OPTIONS for w in options))


def without_plain(lines: list[str]) -> list[str]:
    """`lines` less the plain ones, when the lines are analysed as one text:
    none is left out after a line that continues (`a |`) or once a heredoc
    may make later lines its body."""
    entry = _Last.entry
    if entry is not None and entry[0] == lines:
        return list(entry[1])
    kept = _without_plain(lines)
    _Last.entry = (list(lines), tuple(kept))
    return kept


class _Last:
    """The last lines read (a makefile's, by its judge and the never-run
    checks); one attribute: thread-safe."""

    entry: tuple[list[str], tuple[str, ...]] | None = None


def _without_plain(lines: list[str]) -> list[str]:
    if any("<<" in line for line in lines):
        return list(lines)
    kept: list[str] = []
    previous = ""
    for line in lines:
        if is_plain(line) and (not previous or _ENDS_PLAIN.search(previous)):
            continue
        kept.append(line)
        previous = line
    return kept


class Verdicts:
    """A bounded memo (least recently used out first), safe across threads."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[Any, Any] = OrderedDict()
        self._lock = allocate_lock()

    def get(self, key: Any) -> Any | None:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def put(self, key: Any, value: Any) -> None:
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
