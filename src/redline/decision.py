"""Decisions are values with reasons: what the gate answers, and why.

Values on the classifier's path are named tuples, not dataclasses: they are
as immutable, and importing `dataclasses` alone would cost a hook more than
the whole decision (F-HOOKS-2). Use `value._replace(field=...)` to derive one.
"""

from __future__ import annotations

import enum

from redline.fasttuple import NamedTuple

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from typing import Any


class Verdict(enum.IntEnum):
    """Ordered so that verdicts combine by `max`: the strictest wins."""

    ALLOW = 0
    ASK = 1
    DENY = 2

    def __str__(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Verdict:
        try:
            return cls[text.upper()]
        except KeyError:
            raise ValueError(f"unknown verdict `{text}`; expected allow, ask or deny") from None


class Severity(enum.IntEnum):
    """How bad the damage is if the call runs; ordered by recoverability."""

    SENSITIVE = 1
    DANGEROUS = 2
    HARDLINE = 3

    def __str__(self) -> str:
        return self.name.lower()


class Span(NamedTuple):
    """Character offsets `[start, end)` into the command text that was checked.

    A named tuple rather than a dataclass: the classifier makes one for every
    word, and a tuple is several times cheaper to build.
    """

    start: int
    end: int

    def excerpt(self, text: str) -> str:
        return text[self.start : self.end]


class RuleHit(NamedTuple):
    """One rule that matched, where it matched, and what would repair the call."""

    rule_id: str
    description: str
    severity: Severity
    category: str
    span: Span | None = None
    repair: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.rule_id,
            "description": self.description,
            "severity": str(self.severity),
            "category": self.category,
            "span": None if self.span is None else [self.span.start, self.span.end],
            "repair": self.repair,
        }


class Decision(NamedTuple):
    """The gate's answer.

    `code` names a refusal that is not a rule hit (a shape refusal, a parse
    failure, a never-run kind); `context` is the context the call was judged in.
    """

    verdict: Verdict
    hits: tuple[RuleHit, ...] = ()
    reason: str = ""
    repair: str = ""
    hardline: bool = False
    code: str | None = None
    context: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def rule_ids(self) -> tuple[str, ...]:
        return tuple(hit.rule_id for hit in self.hits)

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": str(self.verdict),
            "hardline": self.hardline,
            "rules": list(self.rule_ids),
            "reason": self.reason,
            "repair": self.repair,
            "code": self.code,
            "context": self.context,
            "hits": [hit.to_json() for hit in self.hits],
            "notes": list(self.notes),
        }


ALLOW = Decision(Verdict.ALLOW, reason="no rule matched")
