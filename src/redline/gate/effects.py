"""What an action does, as facts the policy, approvals and rejection memory
share: the rule hits, the paths read and written, the hosts, the programs,
and the subjects an approval is granted for.

A file tool is judged by the catalogue as its shell equivalent (`cat PATH`
for a read, `: > PATH` for a write), so every rule about a path applies to
both; those hits carry no span.
"""

from __future__ import annotations

import functools
import re

from redline.decision import RuleHit, Span
from redline.gate.actions import Action, ActionKind
from redline.gate.owner_home import Respelled, home_form, respell, unknown_home
from redline.rules.catalog import evaluate
from redline.rules.targets import deleted_trees, written_files
from redline.shell import paths
from redline.shell.analysis import Analysis, analyze
from redline.shell.carriers import inline_code
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex

# What an approval is granted for: `("run", "git", "--force", "--", "push",
# "origin", "main")`, `("write", "/etc/hosts")`, `("host", "example.com")`.
Subject = tuple[str, ...]

# A search's file-name pattern, judged as a glob in the folder (plain characters only).
_NAME_GLOB = lazy_regex(r"\A[\w.*?\[\]{},+@%-]+\Z")
_SHELL_TEXT_KINDS = frozenset({ActionKind.RUN, ActionKind.PROCESS, ActionKind.SCHEDULE})
_FOREIGN_KINDS = frozenset({ActionKind.MCP, ActionKind.UNKNOWN})
_URL_START = lazy_regex(r"\A[a-z][a-z0-9+.-]*://", re.IGNORECASE)


class Facts:
    """What an action does. Only the hits are found up front; the rest is
    worked out when the policy, an approval or the memory asks for it."""

    __slots__ = (
        "_groups", "_paths", "_subjects", "action", "analysis", "hits", "home", "resolved",
        "respelled",
    )  # fmt: skip

    def __init__(
        self,
        action: Action,
        analysis: Analysis | None,
        hits: tuple[RuleHit, ...],
        resolved: tuple[str, ...] = (),
        home: str = "",
        respelled: Respelled | None = None,
    ) -> None:
        self.action = action
        # The owner's home: paths under it are compared as `~/...`.
        self.home = home
        # The command as analysed, with the owner's home spelled `~`.
        self.respelled = respelled
        self.analysis = analysis
        self.hits = hits
        # The file tool's paths, normalised.
        self.resolved = resolved
        self._paths: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]] | None = None
        self._subjects: tuple[Subject, ...] | None = None
        self._groups: tuple[tuple[Invocation, ...], ...] | None = None

    def _shell_paths(self) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
        if self._paths is None:
            written, read, urls = _paths_of(self.action, self.analysis, self.resolved)
            home = self.home
            if home:
                written = tuple(dict.fromkeys(home_form(p, home) for p in written))
                read = tuple(dict.fromkeys(home_form(p, home) for p in read))
            self._paths = (written, read, urls)
        return self._paths

    @property
    def written(self) -> tuple[str, ...]:
        return self._shell_paths()[0]

    @property
    def read(self) -> tuple[str, ...]:
        return self._shell_paths()[1]

    @property
    def paths(self) -> tuple[str, ...]:
        written, read, _ = self._shell_paths()
        return tuple(dict.fromkeys([*written, *read]))

    @property
    def hosts(self) -> tuple[str, ...]:
        return hosts_of(self._shell_paths()[2] if self.analysis else self.action.urls)

    @property
    def programs(self) -> frozenset[str]:
        if self.analysis is None:
            return frozenset()
        return frozenset(i.name for i in self.analysis.invocations if i.name)

    @property
    def subjects(self) -> tuple[Subject, ...]:
        """What an approval of the whole call is granted for."""
        if self._subjects is None:
            self._subjects = _subjects_of(self)
        return self._subjects

    @property
    def targets(self) -> tuple[str, ...]:
        if self.analysis is None:
            return tuple(s[-1] for s in self.subjects)
        found = (t for i in self.analysis.invocations for t in invocation_targets(i))
        return tuple(dict.fromkeys(found))

    def _hit_groups(self) -> tuple[tuple[Invocation, ...], ...]:
        if self._groups is None:
            analysis = self.analysis
            self._groups = tuple(
                _covering(hit.span, analysis) if analysis else () for hit in self.hits
            )
        return self._groups

    @property
    def hit_subjects(self) -> tuple[tuple[Subject, ...], ...]:
        """For each hit, the subjects of the invocations it was found in."""
        if self.analysis is None:
            return tuple(self.subjects for _ in self.hits)
        return tuple(
            tuple(dict.fromkeys(invocation_subject(i) for i in group))
            for group in self._hit_groups()
        )

    @property
    def hit_targets(self) -> tuple[tuple[str, ...], ...]:
        """For each hit, the normalised targets of its invocations."""
        if self.analysis is None:
            return tuple(self.targets for _ in self.hits)
        return tuple(
            tuple(dict.fromkeys(t for i in group for t in invocation_targets(i)))
            for group in self._hit_groups()
        )

    @property
    def texts(self) -> tuple[str, ...]:
        """Texts that can carry the same effect in other words: inline code,
        heredocs, written content, a sub-agent's goal."""
        found = list(self.action.texts)
        for inv in self.analysis.invocations if self.analysis else ():
            code = inline_code(inv)
            if code:
                found.append(code)
            elif inv.stdin_text:
                found.append(inv.stdin_text)
        return tuple(found)


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


@functools.cache
def _host() -> re.Pattern[str]:
    """Compiled on first use: most calls name no URL."""
    return re.compile(r"\A(?:[a-z][a-z0-9+.-]*:)?//(?:[^@/?#]*@)?(\[[^\]/]*\]|[^:/?#\[\]]+)", re.I)


def hosts_of(urls: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    found: dict[str, None] = {}
    for url in urls:
        match = _host().match(url if "://" in url else "//" + url)
        if match:
            found[match.group(1).strip("[]").rstrip(".").lower()] = None
    return tuple(found)


def collect(action: Action, resolved: tuple[str, ...], home: str = "") -> Facts:
    """`resolved`: the action's file paths, normalised (empty for commands);
    `home`: the owner's home directory."""
    if action.command is not None and (
        action.kind in _SHELL_TEXT_KINDS or action.kind in _FOREIGN_KINDS
    ):
        # An unknown or MCP tool's command is judged as the same command
        # typed into a terminal (`gate.foreign_commands` found it).
        workdir = action.workdir
        runs_there = action.kind is ActionKind.RUN or action.kind in _FOREIGN_KINDS
        cwd = workdir if runs_there and workdir and workdir[0] == "/" else None
        respelled = respell(action.command, home)
        if cwd and unknown_home(home):
            cwd = home_form(cwd, home)
        analysis = analyze(respelled.text, cwd)
        return Facts(action, analysis, evaluate(analysis), home=home, respelled=respelled)
    kind = action.kind
    hits: dict[str, RuleHit] = {}
    if kind in (ActionKind.READ, ActionKind.SEARCH, ActionKind.WRITE, ActionKind.PATCH):
        import shlex  # here, not at the top: a terminal call's hook never needs it

        for path in resolved:
            quoted = shlex.quote(home_form(path, home) if home else path)
            if kind is ActionKind.READ:
                equivalent = f"cat -- {quoted}"
            elif kind is ActionKind.SEARCH:
                equivalent = f"grep -r -e x -- {quoted}"
                names = (action.name_glob or "").rsplit("/", 1)[-1]
                if names != "**" and _NAME_GLOB.match(names):  # `glob: ".env*"`: those files
                    equivalent += " " + quoted.rstrip("'").rstrip("/") + "/" + names
                    equivalent += "'" if quoted.endswith("'") else ""
            else:
                equivalent = f": > {quoted}"
            for hit in _equivalent_hits(equivalent):
                hits.setdefault(hit.rule_id, hit)
    return Facts(action, None, tuple(hits.values()), resolved, home)


@functools.lru_cache(maxsize=4096)
def _equivalent_hits(command: str) -> tuple[RuleHit, ...]:
    """The catalogue's hits for a file tool's shell equivalent, without spans
    (they would point into text the agent never wrote). The catalogue is
    frozen, so a long-lived gate remembers them."""
    return tuple(hit._replace(span=None) for hit in evaluate(analyze(command, "/")))


def _subjects_of(facts: Facts) -> tuple[Subject, ...]:
    if facts.analysis is not None:
        return tuple(dict.fromkeys(invocation_subject(i) for i in facts.analysis.invocations))
    action = facts.action
    if facts.resolved:
        return tuple((action.kind.value, p) for p in facts.resolved)
    hosts = hosts_of(action.urls)
    if hosts:
        return tuple(("host", h) for h in hosts)
    if action.kind is ActionKind.SEND:
        return (("send", action.target or ""),)
    return ((action.kind.value, action.tool),)


def _paths_of(
    action: Action, analysis: Analysis | None, resolved: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The paths a call writes and reads, and the URLs a command names."""
    if analysis is None:
        writes = action.kind in (ActionKind.WRITE, ActionKind.PATCH)
        reads = action.kind in (ActionKind.READ, ActionKind.SEARCH)
        return (resolved if writes else (), resolved if reads else (), ())
    written: dict[str, None] = {}
    read: dict[str, None] = {}
    urls: list[str] = []
    for inv in analysis.invocations:
        if inv.remote:
            continue
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
    return tuple(written), tuple(read), tuple(urls)
