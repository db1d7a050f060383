"""Patches on disk that `patch`, `git apply` and `git am` apply (attack
round 5): a patch names the files it changes in its own text, so the
catalogue, which reads no disk, cannot tell whether `git apply fix.patch`
touches a Makefile or a CI workflow. The gate reads the patch (a small
regular file, as it reads a script) and judges the text it leaves in each
file that runs later, the file on disk with the hunks applied when it can
(`patch_apply`): ordinary code stays allowed, a hard line is denied.

A patch the gate cannot read (missing when judged, a folder of mails, too
large, not text) may touch any file: asked (`later.unseen`), as a demanding
owner would want for content no one has seen going into the project.
"""

from __future__ import annotations

from redline.decision import RuleHit
from redline.gate import script_files
from redline.runs_later import git_placed, places
from redline.runs_later.placed_moves import stdin_sources
from redline.shell import paths
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation

TYPE_CHECKING = False  # not `typing`'s: kept off the hook's start (ADR 0004)
if TYPE_CHECKING:
    from redline.gate.never_run import Guard

_APPLIERS = frozenset({"patch", "git"})


def hits(analysis: Analysis, guard: Guard) -> tuple[RuleHit, ...]:
    """What the patches on disk this command line applies would put in files
    that run later; a patch that cannot be read is asked."""
    found: list[RuleHit] = []
    for inv in analysis.invocations:
        if inv.name not in _APPLIERS or inv.remote:
            continue
        applied = git_placed.patch_input(inv.name, inv.values)
        if applied is None:
            continue
        files = applied.files or (stdin_sources(inv, analysis) if applied.stdin else None) or ()
        for name in files:
            found.extend(_judged(inv, name, guard))
    return tuple(found)


def _judged(inv: Invocation, name: str, guard: Guard) -> list[RuleHit]:
    from redline.gate.later_writes import finding_hit
    from redline.gate.patch_apply import new_texts
    from redline.runs_later.judge import judge

    text = _read(name, inv.cwd, guard)
    if text is None:
        return [_unseen(inv, name)]
    found: list[RuleHit] = []
    for new in new_texts(text, lambda path: _read(path, inv.cwd, guard)):
        target = paths.normalize(new.path, inv.cwd)
        if target is None or not places.runs_unseen(target):
            continue
        for finding in judge(target, new.text, inv.cwd, new.whole):
            hit = finding_hit(finding, target)
            found.append(hit._replace(description=f"{hit.description} (read from `{name}`)",
                                      span=inv.span))  # fmt: skip
    return found


def _read(name: str, cwd: str | None, guard: Guard) -> str | None:
    path = paths.normalize(name, cwd)
    if path is None:
        return None
    if path.startswith("~"):
        home = guard.places.home.rstrip("/")
        if not home:
            return None
        path = home + path[1:]
    if not path.startswith("/"):
        return None
    text = guard.world.read_script(path)
    return None if text is None or len(text) >= script_files.MAX_SCRIPT else text


def _unseen(inv: Invocation, name: str) -> RuleHit:
    from redline.rules.catalog import resolve

    rule = resolve("later.unseen")
    description = (
        f"applies the patch `{name}`, which the gate cannot read: the files it changes "
        "(a git hook, a Makefile, a CI workflow...) are unseen"
    )
    if rule is None:  # the catalogue always has it; fail closed all the same
        from redline.decision import Severity

        return RuleHit("later.unseen", description, Severity.DANGEROUS, "later", inv.span)
    return RuleHit(rule.id, description, rule.severity, rule.category, inv.span, rule.repair)
