"""What an action does, as facts the policy, approvals and rejection memory
share: the rule hits, the paths read and written, the hosts, the programs,
and the subjects an approval is granted for.

A file tool is judged by the catalogue as its shell equivalent (`cat PATH`
for a read, `: > PATH` for a write), so every rule about a path applies to
both; those hits carry no span.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from redline.decision import RuleHit, Span
from redline.gate.actions import Action, ActionKind
from redline.rules.catalog import evaluate
from redline.rules.targets import deleted_trees, written_files
from redline.shell import paths
from redline.shell.analysis import Analysis, analyze
from redline.shell.carriers import inline_code
from redline.shell.invocation import Invocation

# What an approval is granted for: `("run", "git", "--force", "--", "push",
# "origin", "main")`, `("write", "/etc/hosts")`, `("host", "example.com")`.
Subject = tuple[str, ...]

_SHELL_TEXT_KINDS = frozenset({ActionKind.RUN, ActionKind.PROCESS, ActionKind.SCHEDULE})
_URL_START = re.compile(r"\A[a-z][a-z0-9+.-]*://", re.IGNORECASE)
_HOST = re.compile(r"\A(?:[a-z][a-z0-9+.-]*:)?//(?:[^@/?#]*@)?(\[[^\]/]*\]|[^:/?#\[\]]+)", re.I)


@dataclass(frozen=True, slots=True)
class Facts:
    action: Action
    analysis: Analysis | None
    hits: tuple[RuleHit, ...]
    # For each hit, the subjects of the invocations it was found in, and
    # their targets (normalised operands).
    hit_subjects: tuple[tuple[Subject, ...], ...]
    hit_targets: tuple[tuple[str, ...], ...]
    paths: tuple[str, ...]
    written: tuple[str, ...]
    read: tuple[str, ...]
    hosts: tuple[str, ...]
    programs: frozenset[str]
    subjects: tuple[Subject, ...]
    targets: tuple[str, ...]
    # Texts that can carry the same effect in other words: inline code,
    # heredocs, written content, a sub-agent's goal.
    texts: tuple[str, ...]


def _pathlike(value: str) -> bool:
    return "/" in value or value.startswith(("~", "."))


def _target(value: str, cwd: str | None) -> str:
    if _pathlike(value) and not _URL_START.match(value):
        normal = paths.normalize(value, cwd)
        if normal is not None:
            return normal
    return value


def invocation_subject(inv: Invocation) -> Subject:
    options = inv.options
    flags = sorted({f"-{c}" for c in options.short} | {f"--{n}" for n in options.long})
    operands = [_target(w.value, inv.cwd) for w in options.operands]
    return ("run", inv.name or "?", *flags, "--", *operands)


def invocation_targets(inv: Invocation) -> tuple[str, ...]:
    found = [_target(w.value, inv.cwd) for w in inv.options.operands]
    found += [_target(v, inv.cwd) for v in written_files(inv)]
    return tuple(dict.fromkeys(found)) or ("program:" + (inv.name or "?"),)


def _covering(span: Span | None, analysis: Analysis) -> tuple[Invocation, ...]:
    invocations = analysis.invocations
    if span is None or not invocations:
        return invocations
    exact = tuple(inv for inv in invocations if inv.span == span)
    if exact:
        return exact
    around = [i for i in invocations if i.span.start <= span.start and span.end <= i.span.end]
    if around:
        best = min(around, key=lambda i: i.span.end - i.span.start)
        return tuple(i for i in around if i.span == best.span)
    return invocations


def hosts_of(urls: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    found: dict[str, None] = {}
    for url in urls:
        match = _HOST.match(url if "://" in url else "//" + url)
        if match:
            found[match.group(1).strip("[]").rstrip(".").lower()] = None
    return tuple(found)


def collect(action: Action, resolved: tuple[str, ...]) -> Facts:
    """`resolved`: the action's file paths, normalised (empty for commands)."""
    if action.kind in _SHELL_TEXT_KINDS and action.command is not None:
        workdir = action.workdir
        cwd = workdir if action.kind is ActionKind.RUN and workdir and workdir[0] == "/" else None
        return _shell_facts(action, analyze(action.command, cwd))
    kind = action.kind
    hits: list[RuleHit] = []
    subjects: list[Subject] = [(kind.value, p) for p in resolved]
    if kind in (ActionKind.READ, ActionKind.SEARCH, ActionKind.WRITE, ActionKind.PATCH):
        for path in resolved:
            quoted = shlex.quote(path)
            equivalent = (
                f"cat -- {quoted}"
                if kind is ActionKind.READ
                else (f"grep -r -e x -- {quoted}" if kind is ActionKind.SEARCH else f": > {quoted}")
            )
            for hit in evaluate(analyze(equivalent, "/")):
                hits.append(hit._replace(span=None))
    hits = list({(h.rule_id, h.span): h for h in hits}.values())
    hosts = hosts_of(action.urls)
    if not subjects:
        if hosts:
            subjects = [("host", h) for h in hosts]
        elif kind is ActionKind.SEND:
            subjects = [("send", action.target or "")]
        else:
            subjects = [(kind.value, action.tool)]
    written = resolved if kind in (ActionKind.WRITE, ActionKind.PATCH) else ()
    read = resolved if kind in (ActionKind.READ, ActionKind.SEARCH) else ()
    targets = tuple(s[-1] for s in subjects)
    return Facts(
        action=action,
        analysis=None,
        hits=tuple(hits),
        hit_subjects=tuple(tuple(subjects) for _ in hits),
        hit_targets=tuple(targets for _ in hits),
        paths=resolved,
        written=written,
        read=read,
        hosts=hosts,
        programs=frozenset(),
        subjects=tuple(subjects),
        targets=targets,
        texts=action.texts,
    )


def _shell_facts(action: Action, analysis: Analysis) -> Facts:
    hits = evaluate(analysis)
    invocations = [i for i in analysis.invocations if not i.remote]
    written: dict[str, None] = {}
    read: dict[str, None] = {}
    urls: list[str] = []
    texts: list[str] = list(action.texts)
    for inv in invocations:
        outs = [*written_files(inv), *deleted_trees(inv, analysis)]
        for value in outs:
            normal = paths.normalize(value, inv.cwd)
            if normal is not None and normal.startswith(("/", "~")):
                written[normal] = None
        for word in inv.options.operands:
            value = word.value
            if _URL_START.match(value):
                urls.append(value)
            elif _pathlike(value) and value not in outs:
                normal = paths.normalize(value, inv.cwd)
                if normal is not None and normal.startswith(("/", "~")):
                    read[normal] = None
        code = inline_code(inv)
        if code:
            texts.append(code)
        elif inv.stdin_text:
            texts.append(inv.stdin_text)
    hit_invocations = [_covering(hit.span, analysis) for hit in hits]
    subjects = tuple(dict.fromkeys(invocation_subject(i) for i in analysis.invocations))
    targets = tuple(dict.fromkeys(t for i in analysis.invocations for t in invocation_targets(i)))
    return Facts(
        action=action,
        analysis=analysis,
        hits=hits,
        hit_subjects=tuple(
            tuple(dict.fromkeys(invocation_subject(i) for i in group)) for group in hit_invocations
        ),
        hit_targets=tuple(
            tuple(dict.fromkeys(t for i in group for t in invocation_targets(i)))
            for group in hit_invocations
        ),
        paths=tuple(dict.fromkeys([*written, *read])),
        written=tuple(written),
        read=tuple(read),
        hosts=hosts_of(urls),
        programs=frozenset(i.name for i in analysis.invocations if i.name),
        subjects=subjects,
        targets=targets,
        texts=tuple(texts),
    )
