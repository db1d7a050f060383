"""Files that run later put in place from files the gate can read
(issues 13/18): `cp Makefile.template Makefile`, `install -m755
scripts/pre-push .git/hooks/pre-push`, `cat /tmp/x > .git/hooks/pre-commit`.
The catalogue asks them (`later.unseen`: it reads no disk); the gate reads
each source when it is a small regular file the command line did not write
first, and judges the text as if it were written into the file directly.
A source it cannot read, a folder, a link, a download or an archive stays
asked. A source read now and changed before the command runs is the same
race as a script read before it runs (`script_rules`).
"""

from __future__ import annotations

from redline.decision import RuleHit, Span
from redline.gate import script_files
from redline.runs_later.placed import Placement, may_place, placements, unseen
from redline.shell.analysis import Analysis

TYPE_CHECKING = False  # not `typing`'s: kept off the hook's start (ADR 0004)
if TYPE_CHECKING:
    from redline.gate.never_run import Guard

UNSEEN = "later.unseen"


def settled(hits: tuple[RuleHit, ...], analysis: Analysis, guard: Guard) -> tuple[RuleHit, ...]:
    """`hits` with each `later.unseen` whose sources could all be read
    replaced by the findings of their text (none when it is ordinary)."""
    if not any(h.rule_id == UNSEEN for h in hits):
        return hits
    from redline.gate.later_writes import finding_hit
    from redline.runs_later.judge import judge

    still: set[Span] = set()
    read_all: set[Span] = set()
    found: dict[tuple[str, Span], RuleHit] = {}
    for inv in analysis.invocations:
        if not may_place(inv):
            continue
        for placed in placements(inv, analysis):
            if not unseen(placed):
                continue
            texts = _texts(placed, guard)
            if texts is None:
                still.add(inv.span)
                continue
            read_all.add(inv.span)
            if placed.folder:
                continue  # every source a file: each judged by its name in the folder
            for finding in judge(placed.path, "".join(texts), inv.cwd, placed.whole):
                hit = finding_hit(finding, placed.path)
                where = f"{hit.description} (read from `{', '.join(placed.sources)}`)"
                found.setdefault(
                    (hit.rule_id, inv.span), hit._replace(description=where, span=inv.span)
                )
    settled_spans = read_all - still
    kept = [h for h in hits if h.rule_id != UNSEEN or h.span not in settled_spans]
    return tuple(sorted((*kept, *found.values()), key=lambda h: -h.severity))


def _texts(placed: Placement, guard: Guard) -> list[str] | None:
    """The text of each source, or `None` when one cannot be read."""
    if placed.how == "linked" or not placed.sources:
        return None
    home = guard.places.home.rstrip("/")
    texts: list[str] = []
    for source in placed.sources:
        path = home + source[1:] if source.startswith("~") else source
        if not path.startswith("/") or (source.startswith("~") and not home):
            return None
        text = guard.world.read_script(path)
        if text is None or len(text) >= script_files.MAX_SCRIPT:
            return None  # unreadable, not a regular file, binary or too large
        texts.append(text)
    return texts
