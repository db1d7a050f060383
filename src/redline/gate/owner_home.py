"""The owner's home directory as the rule catalogue knows it.

The catalogue judges home paths in one spelling, `~/...` (and knows
`/root`, `/home/NAME`, `/Users/NAME` as homes). A gate made for another home
(`HOME=/srv/owner`) would otherwise see `/srv/owner/.ssh/id_rsa` as just a
file. So before a command is analysed, the owner's home, where it begins a
path, is spelled `~`; the spans of what matched are mapped back to the text
the agent wrote. Paths written and read are compared in the same spelling.
"""

import re

from redline.decision import Decision, RuleHit, Span
from redline.fasttuple import NamedTuple
from redline.shell import paths
from redline.shell.lazy_regex import lazy_regex

# Homes the catalogue already knows by their own spelling.
_KNOWN = lazy_regex(r"\A(?:/root|/var/root|/home/[^/]+|/Users/[^/]+)\Z")


def home_form(path: str, home: str) -> str:
    """`~/x` for `HOME/x`; anything else as it is."""
    home = home.rstrip("/")
    if home and (path == home or path.startswith(home + "/")):
        return "~" + path[len(home) :]
    return path


class Respelled(NamedTuple):
    """A command with the owner's home spelled `~`, and where it changed:
    `(start in the new text, length there, length in the original)`."""

    text: str
    changes: tuple[tuple[int, int, int], ...] = ()

    def original(self, position: int) -> int:
        shift = 0
        for start, new_len, old_len in self.changes:
            if position < start:
                break
            if position < start + new_len:
                return start + shift  # inside a respelled home: its start
            shift += old_len - new_len
        return position + shift

    def unmap(self, decision: Decision) -> Decision:
        if not self.changes:
            return decision
        return decision._replace(hits=tuple(self._hit(h) for h in decision.hits))

    def _hit(self, hit: RuleHit) -> RuleHit:
        if hit.span is None:
            return hit
        span = Span(self.original(hit.span.start), self.original(hit.span.end))
        return hit._replace(span=span)


def unknown_home(home: str) -> bool:
    """A home the catalogue does not know by its own spelling."""
    home = home.rstrip("/")
    return bool(home) and not (home.startswith(paths.HOME_PREFIXES) and _KNOWN.match(home))


def respell(text: str, home: str) -> Respelled:
    """`text` with the owner's home spelled `~` where a path begins with it.
    A home the catalogue knows (or none) leaves the text as it is."""
    home = home.rstrip("/")
    if not unknown_home(home) or home not in text:
        return Respelled(text)
    pattern = re.compile(r"(?<![\w.~/$-])" + re.escape(home) + r"(?![\w.-])")
    parts: list[str] = []
    changes: list[tuple[int, int, int]] = []
    last = 0
    length = 0
    for match in pattern.finditer(text):
        parts.append(text[last : match.start()])
        length += match.start() - last
        changes.append((length, 1, len(home)))
        parts.append("~")
        length += 1
        last = match.end()
    if not changes:
        return Respelled(text)
    parts.append(text[last:])
    return Respelled("".join(parts), tuple(changes))
