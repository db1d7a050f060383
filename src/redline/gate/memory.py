"""Rejection memory: an effect the owner rejected is refused for the rest of
the session, however it is spelled again (F-GATE-7). A timeout is not a
rejection: nobody said no, so the agent's retry is held for the owner again
(seed 003: "do it only if they ask again and approve").

An effect's fingerprint is what it does, not how it is written: the rules it
hit and the policy rules that asked, each with the normalised targets they
concern (`rm -rf /tmp/x`, `/bin/rm -r -f /tmp/x/` and `bash -c 'rm -rf
/tmp/x'` agree), and the paths it writes (so `Write /etc/hosts`, `tee
/etc/hosts` and `sed -i ... /etc/hosts` agree). A new call is refused when it
includes every part of a remembered effect, when it writes everything the
remembered one wrote, or when its code or instructions name a path it wrote.
"""

import enum
import re

from redline.fasttuple import NamedTuple
from redline.gate.actions import ActionKind
from redline.gate.effects import Facts
from redline.rules.catalog import canonical_id

Atom = tuple[str, str]


class Outcome(enum.StrEnum):
    APPROVED = "approved"
    REJECTED = "rejected"
    TIMEOUT = "timeout"


class Fingerprint(NamedTuple):
    atoms: frozenset[Atom]
    writes: frozenset[str]
    reads: frozenset[str]
    summary: str
    # What the effect's code and instructions said (not part of the effect).
    texts: tuple[str, ...] = ()


def canonical_rule(rule_id: str) -> str:
    return canonical_id(rule_id)


def fingerprint(facts: Facts, contributors: tuple[str, ...]) -> Fingerprint:
    """`contributors`: the ids of call-level policy rules that matched."""
    atoms: set[Atom] = set()
    for hit, targets in zip(facts.hits, facts.hit_targets, strict=True):
        atoms.update((canonical_rule(hit.rule_id), t) for t in targets)
    for key in contributors:
        atoms.update((key, t) for t in facts.targets)
    atoms.update(("write", p) for p in facts.written)
    action = facts.action
    reads = facts.read if action.kind in (ActionKind.READ, ActionKind.SEARCH) else ()
    atoms.update(("read", p) for p in reads)
    return Fingerprint(
        frozenset(atoms), frozenset(facts.written), frozenset(reads), _summary(facts), facts.texts
    )


def _summary(facts: Facts) -> str:
    action = facts.action
    if action.command is not None:
        text = " ".join(action.command.split())
        return text if len(text) <= 120 else text[:117] + "..."
    if facts.paths:
        return f"{action.kind} {', '.join(facts.paths)}"
    return f"{action.tool} {', '.join(facts.targets)}"


class Remembered(NamedTuple):
    fingerprint: Fingerprint
    outcome: Outcome


def _named_in(path: str, texts: tuple[str, ...]) -> bool:
    if len(path) < 2:
        return False
    pattern = re.compile(r"(?<![\w.-])" + re.escape(path) + r"(?![\w.-])")
    return any(pattern.search(text) for text in texts)


def same_effect(old: Fingerprint, new: Fingerprint) -> bool:
    if old.atoms and old.atoms <= new.atoms:
        return True
    if old.writes and old.writes <= new.writes:
        return True
    if old.reads and old.reads <= (new.reads | new.writes):
        return True
    return bool(old.writes) and any(_named_in(p, new.texts) for p in old.writes)


class RejectionMemory:
    """One session's remembered rejections. Not locked: its owner locks."""

    def __init__(self) -> None:
        self._entries: list[Remembered] = []

    def __bool__(self) -> bool:
        return bool(self._entries)

    @property
    def entries(self) -> tuple[Remembered, ...]:
        """What is remembered, oldest first (for saving a session's state)."""
        return tuple(self._entries)

    def copy(self) -> "RejectionMemory":
        other = RejectionMemory()
        other._entries = list(self._entries)
        return other

    def remember(self, fp: Fingerprint, outcome: Outcome) -> None:
        """Remember a rejection; any other outcome (a timeout) is not one."""
        if outcome is not Outcome.REJECTED:
            return
        if not any(e.fingerprint[:3] == fp[:3] for e in self._entries):
            self._entries.append(Remembered(fp, outcome))

    def forget(self, fp: Fingerprint) -> None:
        """A late approval lifts the memory of that effect."""
        self._entries = [e for e in self._entries if not same_effect(e.fingerprint, fp)]

    def match(self, fp: Fingerprint) -> Remembered | None:
        for entry in self._entries:
            if same_effect(entry.fingerprint, fp):
                return entry
        return None
