"""The policy as data (F-GATE-4): rules that map tools, action kinds, rule
ids and categories, paths, hosts, programs and contexts to allow / ask / deny.

A policy rule matches a call when every key it gives matches (a key given a
list matches any item). Keys about rule hits (`rule`, `category`,
`severity`) are matched against each hit of the catalogue; the others against
the call. Among the rules that match, the strictest verdict wins.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Iterable, Mapping
from types import MappingProxyType

from redline.decision import RuleHit, Verdict
from redline.fasttuple import NamedTuple

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from typing import Any


FORMAT_VERSION = 1
CALL_KEYS = ("tool", "kind", "path", "host", "context", "program")
HIT_KEYS = ("rule", "category", "severity")
MATCH_KEYS = CALL_KEYS + HIT_KEYS


class CallView(NamedTuple):
    """What a policy rule can see of a call."""

    tool: str
    kind: str
    context: str
    paths: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()
    programs: frozenset[str] = frozenset()


@functools.lru_cache(maxsize=1024)
def path_regex(glob: str) -> re.Pattern[str]:
    """`**` spans directories, `*` and `?` stay inside one."""
    out: list[str] = []
    i, n = 0, len(glob)
    while i < n:
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def _glob(pattern: str, value: str) -> bool:
    return value == pattern or fnmatch.fnmatchcase(value, pattern)


def is_glob(text: str) -> bool:
    return any(c in text for c in "*?[")


class Match(NamedTuple):
    tool: tuple[str, ...] = ()
    kind: tuple[str, ...] = ()
    path: tuple[str, ...] = ()
    host: tuple[str, ...] = ()
    context: tuple[str, ...] = ()
    program: tuple[str, ...] = ()
    rule: tuple[str, ...] = ()
    category: tuple[str, ...] = ()
    severity: tuple[str, ...] = ()

    @property
    def about_hits(self) -> bool:
        return bool(self.rule or self.category or self.severity)

    def call_matches(self, call: CallView) -> bool:
        if self.tool and not any(_glob(p, call.tool) for p in self.tool):
            return False
        if self.kind and call.kind not in self.kind:
            return False
        if self.context and call.context not in self.context:
            return False
        if self.program and not any(_glob(p, n) for p in self.program for n in call.programs):
            return False
        if self.host and not any(_glob(p.lower(), h) for p in self.host for h in call.hosts):
            return False
        return not self.path or any(
            path_regex(p).match(value) for p in self.path for value in call.paths
        )

    def hit_matches(self, hit: RuleHit, canonical_id: str) -> bool:
        if self.rule and not any(_glob(p, canonical_id) for p in self.rule):
            return False
        if self.category and hit.category not in self.category:
            return False
        return not self.severity or str(hit.severity) in self.severity

    def to_json(self) -> dict[str, list[str]]:
        return {key: list(getattr(self, key)) for key in MATCH_KEYS if getattr(self, key)}

    @classmethod
    def from_json(cls, data: Mapping[str, Iterable[str]]) -> Match:
        return cls(**{key: tuple(value) for key, value in data.items()})


class Example(NamedTuple):
    """A call the rule is about, and the verdict the whole policy must give it."""

    tool: str
    args: Mapping[str, Any]
    expect: Verdict
    cwd: str | None = None
    context: str | None = None
    code: str | None = None
    line: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "args": dict(self.args),
            "expect": str(self.expect),
            "cwd": self.cwd,
            "context": self.context,
            "code": self.code,
            "line": self.line,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Example:
        return cls(
            data["tool"],
            data["args"],
            Verdict.parse(data["expect"]),
            data["cwd"],
            data["context"],
            data["code"],
            data["line"],
        )


class PolicyRule(NamedTuple):
    id: str
    verdict: Verdict
    match: Match
    unless: Match | None = None
    reason: str = ""
    repair: str = ""
    examples: tuple[Example, ...] = ()
    line: int = 0

    @property
    def about_hits(self) -> bool:
        return self.match.about_hits

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "verdict": str(self.verdict),
            "match": self.match.to_json(),
            "unless": None if self.unless is None else self.unless.to_json(),
            "reason": self.reason,
            "repair": self.repair,
            "line": self.line,
            "examples": [e.to_json() for e in self.examples],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PolicyRule:
        unless = data["unless"]
        return cls(
            data["id"],
            Verdict.parse(data["verdict"]),
            Match.from_json(data["match"]),
            None if unless is None else Match.from_json(unless),
            data["reason"],
            data["repair"],
            tuple(Example.from_json(e) for e in data["examples"]),
            data["line"],
        )


ENFORCE_LEVELS = ("required", "best-effort", "off")


class RunProfile(NamedTuple):
    """A named set of sandbox settings (`sandbox.profiles.NAME`) that
    `redline run --profile NAME` applies over the policy's own: its
    `writable` and `env.pass` are added, its `network` (when given) replaces."""

    name: str
    writable: tuple[str, ...] = ()
    network: bool | None = None
    env_pass: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name, "writable": list(self.writable), "network": self.network,
            "env_pass": list(self.env_pass),
        }  # fmt: skip

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunProfile:
        network = data["network"]
        return cls(
            str(data["name"]), tuple(data["writable"]),
            None if network is None else bool(network), tuple(data["env_pass"]),
        )  # fmt: skip


class RunSettings(NamedTuple):
    """How `redline run` runs what the gate allowed: which secret-like
    variables pass (`env.pass`), whether a kernel sandbox is `required`,
    where it may write besides the workspace and temp, the network, and the
    named profiles a run may choose (`sandbox.profiles`)."""

    env_pass: tuple[str, ...] = ()
    enforce: str = "best-effort"
    writable: tuple[str, ...] = ()
    network: bool = True
    profiles: tuple[RunProfile, ...] = ()

    def with_profile(self, name: str) -> RunSettings:
        """These settings with profile `name` applied; `ValueError` when the
        policy has no such profile."""
        for profile in self.profiles:
            if profile.name == name:
                return self._replace(
                    env_pass=(*self.env_pass, *profile.env_pass),
                    writable=(*self.writable, *profile.writable),
                    network=self.network if profile.network is None else profile.network,
                )
        known = ", ".join(p.name for p in self.profiles) or "none"
        raise ValueError(f"the policy has no sandbox profile `{name}` (it has: {known})")

    def to_json(self) -> dict[str, Any]:
        return {
            "env_pass": list(self.env_pass),
            "enforce": self.enforce,
            "writable": list(self.writable),
            "network": self.network,
            "profiles": [p.to_json() for p in self.profiles],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunSettings:
        return cls(
            tuple(data["env_pass"]), str(data["enforce"]), tuple(data["writable"]),
            bool(data["network"]),
            tuple(RunProfile.from_json(p) for p in data.get("profiles", ())),
        )  # fmt: skip


OPINION_SIGNALS = (
    "network-secret",
    "upload",
    "unknown-program",
    "computed-command",
    "write-outside-workspace",
)
"""Risk signals that send an allowed call to the second opinion (F-APPROVE-6)."""
OPINION_ON = ("asked", "allowed", "risky", *OPINION_SIGNALS)
"""What `second_opinion.on` may list: `asked` (every asked call), `allowed`
(every allowed call), `risky` (all the signals), or single signals."""
OPINION_DEFAULT_ON = ("asked", "risky")


class OpinionSettings(NamedTuple):
    """The policy's `second_opinion` block: a language model's opinion that
    can only tighten a verdict (F-APPROVE-6). Off unless the block is given."""

    base_url: str
    model: str
    api_key_env: str | None = None
    timeout_ms: int = 4000
    max_calls_per_hour: int = 60
    on: tuple[str, ...] = OPINION_DEFAULT_ON

    @property
    def signals(self) -> frozenset[str]:
        """The risk signals that select an allowed call."""
        if "risky" in self.on or "allowed" in self.on:
            return frozenset(OPINION_SIGNALS)
        return frozenset(s for s in self.on if s in OPINION_SIGNALS)

    def to_json(self) -> dict[str, Any]:
        return {**self._asdict(), "on": list(self.on)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> OpinionSettings:
        return cls(
            str(data["base_url"]), str(data["model"]), data["api_key_env"],
            int(data["timeout_ms"]), int(data["max_calls_per_hour"]), tuple(data["on"]),
        )  # fmt: skip


class Policy(NamedTuple):
    """A validated policy. `contexts` maps a context where nobody can answer
    to what an ask becomes there (`deny` unless the policy says `ask`)."""

    default: Verdict = Verdict.ALLOW
    unknown_tool: Verdict | None = None
    rules: tuple[PolicyRule, ...] = ()
    contexts: Mapping[str, Verdict] = MappingProxyType({})
    approval_port: int | None = None
    approval_socket: str | None = None
    hermes_home: str | None = None
    custom_tools: tuple[str, ...] = ()
    run: RunSettings = RunSettings()
    source: str = "<policy>"
    digest: str = ""
    # Problems that do not stop the policy from loading: (line, message, help).
    warnings: tuple[tuple[int, str, str], ...] = ()
    opinion: OpinionSettings | None = None
    """`second_opinion`: `None` (the default) is off."""
    inbound: tuple[str, ...] = ()
    """`inbound.channels`: the messaging channels whose senders must be paired
    before a gateway plugin lets their message start a run (F-INBOUND-1)."""

    @property
    def call_keys(self) -> frozenset[str]:
        """The call-level keys any rule matches on (`path`, `host`...)."""
        return frozenset(
            key
            for rule in self.rules
            for match in (rule.match, rule.unless)
            if match is not None
            for key in CALL_KEYS
            if getattr(match, key)
        )

    @property
    def unknown_verdict(self) -> Verdict:
        return self.default if self.unknown_tool is None else self.unknown_tool

    def ask_becomes(self, context: str, unattended: bool) -> Verdict:
        """What an ask becomes in a context: `deny` where nobody can answer,
        unless the policy says otherwise."""
        return self.contexts.get(context, Verdict.DENY if unattended else Verdict.ASK)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": FORMAT_VERSION,
            "default": str(self.default),
            "unknown_tool": None if self.unknown_tool is None else str(self.unknown_tool),
            "rules": [r.to_json() for r in self.rules],
            "contexts": {k: str(v) for k, v in self.contexts.items()},
            "approval_port": self.approval_port,
            "approval_socket": self.approval_socket,
            "hermes_home": self.hermes_home,
            "custom_tools": list(self.custom_tools),
            "run": self.run.to_json(),
            "source": self.source,
            "digest": self.digest,
            "warnings": list(self.warnings),
            "opinion": None if self.opinion is None else self.opinion.to_json(),
            "inbound": list(self.inbound),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Policy:
        if data.get("version") != FORMAT_VERSION:
            raise ValueError("compiled policy has another format version")
        unknown = data["unknown_tool"]
        return cls(
            default=Verdict.parse(data["default"]),
            unknown_tool=None if unknown is None else Verdict.parse(unknown),
            rules=tuple(PolicyRule.from_json(r) for r in data["rules"]),
            contexts={k: Verdict.parse(v) for k, v in data["contexts"].items()},
            approval_port=data["approval_port"],
            approval_socket=data["approval_socket"],
            hermes_home=data["hermes_home"],
            custom_tools=tuple(data["custom_tools"]),
            run=RunSettings.from_json(data["run"]),
            source=data["source"],
            digest=data["digest"],
            warnings=tuple((int(w[0]), str(w[1]), str(w[2])) for w in data["warnings"]),
            opinion=None if data["opinion"] is None else OpinionSettings.from_json(data["opinion"]),
            inbound=tuple(data["inbound"]),
        )
