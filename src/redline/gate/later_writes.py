"""File tools writing files that run later (issue 18 family 3): `Write`,
`Edit`, `MultiEdit`, `write_file`, `replace`, Hermes `patch` and Codex
`apply_patch`, judged by the commands the file's new content carries (see
`redline.runs_later`). An edit is judged as the file after it when the file
is on disk and the edit applies; else its new text is judged as a piece.
"""

from __future__ import annotations

from collections.abc import Mapping

from redline.decision import RuleHit
from redline.gate.actions import Action, ActionKind
from redline.gate.world import World
from redline.runs_later import places
from redline.runs_later.judge import Finding, judge
from redline.shell import paths

TYPE_CHECKING = False  # not `typing`'s: kept off the hook's start (ADR 0004)
if TYPE_CHECKING:
    from typing import Any

_PATCH_KEYS = ("patch", "input", "command")


def hits(
    args: Mapping[str, Any], action: Action, resolved: tuple[str, ...], world: World, home: str
) -> tuple[RuleHit, ...]:
    """The `later.*` hits of a file tool's write; `()` for any other call."""
    if action.kind not in (ActionKind.WRITE, ActionKind.PATCH) or not isinstance(args, Mapping):
        return ()
    base = action.base if action.base and action.base.startswith("/") else None

    def read(path: str) -> str | None:
        normal = paths.normalize(path, base)
        if normal is None:
            return None
        if normal.startswith("~"):
            normal = home.rstrip("/") + normal[1:]
        return world.read_script(normal) if normal.startswith("/") else None

    pieces: list[tuple[str, str, bool]] = []
    patch = _patch_text(args)
    if patch is not None:
        from redline.gate.patch_apply import new_texts

        pieces = [(p.path, p.text, p.whole) for p in new_texts(patch, read) if _later(p.path)]
    else:
        for path in resolved:  # a script anywhere (`#!`) runs later too
            pieces.extend(_edit_texts(args, path, read))
    found: dict[str, RuleHit] = {}
    for path, text, whole in pieces:
        for finding in judge(path, text, base, whole):
            found.setdefault(finding.rule_id, finding_hit(finding, path))
    return tuple(found.values())


def _later(path: str) -> bool:
    return places.format_of(path) is not None


def _patch_text(args: Mapping[str, Any]) -> str | None:
    if "old_string" in args or "edits" in args:
        return None
    for key in _PATCH_KEYS:
        value = args.get(key)
        if (
            isinstance(value, list | tuple)
            and len(value) > 1
            and value[0]
            in (
                "apply_patch",
                "applypatch",
            )
        ):
            value = value[1]
        if isinstance(value, str) and (
            "*** " in value or "\n+++ " in value or value.startswith("--- ")
        ):
            return value
    return None


def _edit_texts(args: Mapping[str, Any], path: str, read: Any) -> list[tuple[str, str, bool]]:
    """The file's text after a write or an edit, or the edit's new texts."""
    content = args.get("content")
    if isinstance(content, str):
        return [(path, content, True)]
    if not _later(path):
        return []
    edits = args.get("edits")
    if not isinstance(edits, list):
        edits = [args]
    pairs = [
        (str(e.get("old_string", "")), str(e.get("new_string", "")), bool(e.get("replace_all")))
        for e in edits
        if isinstance(e, Mapping)
    ]
    text = read(path)
    if text is not None:
        for old, new, every in pairs:
            if not old or old not in text:
                text = None
                break
            text = text.replace(old, new) if every else text.replace(old, new, 1)
    if text is not None:
        return [(path, text, True)]
    return [(path, new, False) for _, new, _ in pairs if new.strip()]


def finding_hit(finding: Finding, path: str) -> RuleHit:
    """A `later.*` finding as the hit the gate reports: the file, and what it would run."""
    from redline.rules.catalog import resolve

    rule = resolve(finding.rule_id)
    if rule is None:  # the catalogue always has them; fail closed all the same
        from redline.decision import Severity

        return RuleHit(finding.rule_id, finding.description, Severity.HARDLINE, "later")
    what = f" (`{finding.inner}`: {finding.description})" if finding.inner else ""
    description = f"{rule.description}: `{path}` would run `{_short(finding.command)}`{what}"
    return RuleHit(rule.id, description, rule.severity, rule.category, None, rule.repair)


def _short(command: str) -> str:
    line = command.strip().replace("\n", "; ")
    return line if len(line) <= 80 else line[:77] + "..."
