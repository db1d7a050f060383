"""From a tool call to a Decision, deterministically (F-GATE-4, F-GATE-8).

In order: a call that cannot be read, `execute_code`, never-run kinds, the
call's shape, hard lines (all denied, whatever the policy says); then the
policy's verdict for each rule hit and for the call, less what was approved
before (session or always); then the rejection memory; then the context
(an ask nobody can answer becomes a deny). Pure: no I/O, no clock.
"""

from collections.abc import Callable

from redline.decision import Decision, RuleHit, Severity, Verdict
from redline.fasttuple import NamedTuple
from redline.gate import (
    archive_reads,
    call_world,
    files_read,
    patch_reads,
    placed_reads,
    script_rules,
    service_contact,
    shape,
)
from redline.gate.actions import WRITE_KINDS, Action, ActionKind, ToolCall
from redline.gate.context import CallContext
from redline.gate.effects import Facts, Subject, collect
from redline.gate.memory import RejectionMemory, canonical_rule, fingerprint
from redline.gate.never_run import Guard
from redline.gate.tools import normalize
from redline.policy.model import CallView, Policy
from redline.shell import paths

NEVER_RUN = "never-run"
POLICY_DENY = "policy-deny"
NO_APPROVER = "no-approver"
REJECTED_BEFORE = "rejected-before"

# Answers where an approval was granted before ("session", "always"), or None.
GrantCheck = Callable[[str, Subject], "str | None"]
Grant = tuple[str, Subject]

_BUILT_IN = {
    Severity.HARDLINE: Verdict.DENY,
    Severity.DANGEROUS: Verdict.ASK,
    Severity.SENSITIVE: Verdict.ASK,
}
_TEXT_KINDS = frozenset({ActionKind.DELEGATE, ActionKind.SCHEDULE, ActionKind.SKILL})
# Kinds whose URLs (or free texts) may reach the approval service.
_URL_KINDS = frozenset(
    {ActionKind.FETCH, ActionKind.BROWSE, ActionKind.MCP, ActionKind.UNKNOWN, ActionKind.DELEGATE}
)


class Evaluation(NamedTuple):
    """The decision, and what recording an outcome for it needs: the facts,
    the grants an approval gives (`asks`) and the call-level policy keys."""

    decision: Decision
    facts: Facts | None = None
    asks: tuple[Grant, ...] = ()
    contributors: tuple[str, ...] = ()


class _Part(NamedTuple):
    """One reason for the verdict: a rule hit (`hit` is its index) or a
    policy rule about the whole call (`hit` is -1)."""

    verdict: Verdict
    key: str
    description: str
    repair: str
    hit: int = -1

    def subjects(self, facts: Facts) -> tuple[Subject, ...]:
        return facts.hit_subjects[self.hit] if self.hit >= 0 else facts.subjects


def resolve_paths(action: Action) -> tuple[str, ...]:
    """The action's file paths, normalised, where they can be known."""
    base = action.base if shape.is_absolute(action.base) else None
    values = action.paths or ((base,) if action.path_optional and base else ())
    found: list[str] = []
    for value in values:
        if value is None:
            continue
        if value.startswith(("/", "~")):
            normal = paths.normalize(value)
        elif action.relative_ok and base:
            normal = paths.normalize(value, base)
        else:
            continue
        if normal is not None:
            found.append(normal)
    return tuple(found)


def _deny(decision: Decision, ctx: CallContext, facts: Facts | None = None) -> Evaluation:
    return Evaluation(_with_context(decision, ctx), facts)


def with_notes(decision: Decision, notes: list[str]) -> Decision:
    return decision._replace(notes=(*decision.notes, *notes))


def _with_context(decision: Decision, ctx: CallContext) -> Decision:
    return decision._replace(context=ctx.kind.value)


def evaluate(
    call: ToolCall,
    ctx: CallContext,
    policy: Policy,
    guard: Guard,
    granted: GrantCheck | None = None,
    memory: RejectionMemory | None = None,
) -> Evaluation:
    action = normalize(call)
    # Each fact of the machine asked once for this call (a long script names
    # the same folders and files many times).
    guard = guard._replace(world=call_world.for_call(guard.world))
    for refusal in (shape.malformed(action), shape.execute_code(action)):
        if refusal is not None:
            return _deny(refusal, ctx)
    resolved = resolve_paths(action) if action.is_file_tool else ()
    facts = collect(action, resolved, guard.places.home)
    if facts.analysis is not None:  # scripts it runs, compose files, Dockerfiles: read from disk
        facts.hits += script_rules.disk_hits(guard, facts.analysis)
        facts.hits = files_read.with_file_hits(facts.hits, facts.analysis, guard)
        # a file that runs later copied from a file on disk: judged by its text
        facts.hits = placed_reads.settled(facts.hits, facts.analysis, guard)
        # a patch on disk applied: judged by what it leaves in files that run later
        facts.hits += patch_reads.hits(facts.analysis, guard)
        # an archive on disk unpacked: asked when it holds a git hook or config
        facts.hits += archive_reads.hits(facts.analysis, guard)
    if action.kind in WRITE_KINDS:  # a file that runs later: judged by what it will run
        from redline.gate import later_writes

        later = later_writes.hits(call.args, action, resolved, guard.world, guard.places.home)
        facts.hits = (*facts.hits, *later) if later else facts.hits
    never = _never_run(action, resolved, facts, guard)
    if never:
        # Only the never-run hits: nothing else the call does can matter.
        first = never[0]
        decision = Decision(Verdict.DENY, never, first.description, first.repair, True, NEVER_RUN)
        return _spelled_back(_deny(decision, ctx, facts), facts)
    refusal = shape.refusal(action)
    if refusal is not None:
        return _spelled_back(_deny(refusal, ctx, facts), facts)
    hard = [h for h in facts.hits if h.severity is Severity.HARDLINE]
    if hard:
        reason = "; ".join(dict.fromkeys(h.description for h in hard))
        decision = Decision(Verdict.DENY, facts.hits, reason, hard[0].repair, True)
        return _spelled_back(_deny(decision, ctx, facts), facts)
    return _spelled_back(_judge(action, facts, ctx, policy, guard, granted, memory), facts)


def _spelled_back(evaluation: Evaluation, facts: Facts) -> Evaluation:
    """Spans into the text the agent wrote, where the owner's home was respelled."""
    respelled = facts.respelled
    if respelled is None or not respelled.changes:
        return evaluation
    return evaluation._replace(decision=respelled.unmap(evaluation.decision))


def _never_run(
    action: Action, resolved: tuple[str, ...], facts: Facts, guard: Guard
) -> tuple[RuleHit, ...]:
    found: list[RuleHit] = []
    if facts.analysis is not None:
        found.extend(guard.shell_hits(facts.analysis))
    if action.is_file_tool:
        found.extend(guard.file_hits(action, resolved))
    if action.kind in _URL_KINDS:
        found.extend(service_contact.url_hits(guard, action))
    if action.kind in (ActionKind.MCP, ActionKind.UNKNOWN):
        # Its command, if any, is in `facts.analysis` (judged above).
        found.extend(guard.argument_hits(action))
    if action.kind in _TEXT_KINDS:
        found.extend(guard.text_hits(action))
    return tuple({h.rule_id: h for h in reversed(found)}.values())[::-1]


def _view(action: Action, facts: Facts, ctx: CallContext, home: str, policy: Policy) -> CallView:
    """What the policy's rules look at; paths, hosts and programs only if
    some rule does."""
    needs = policy.call_keys
    view = CallView(action.tool, action.kind.value, ctx.kind.value)
    if not needs & {"path", "host", "program"}:
        return view
    forms: dict[str, None] = {}
    home = home.rstrip("/")
    for path in facts.paths if "path" in needs else ():
        forms[path] = None
        if home and path.startswith(home + "/"):
            forms["~" + path[len(home) :]] = None
        elif path.startswith("~/"):
            forms[home + path[1:]] = None
    return view._replace(
        paths=tuple(forms),
        hosts=facts.hosts if "host" in needs else (),
        programs=facts.programs if "program" in needs else frozenset(),
    )


def _parts(action: Action, facts: Facts, view: CallView, policy: Policy) -> list[_Part]:
    parts: list[_Part] = []
    for index, hit in enumerate(facts.hits):
        rule_id = canonical_rule(hit.rule_id)
        verdicts = [
            r.verdict
            for r in policy.rules
            if r.about_hits
            and r.match.call_matches(view)
            and r.match.hit_matches(hit, rule_id)
            and not (
                r.unless is not None
                and r.unless.call_matches(view)
                and (not r.unless.about_hits or r.unless.hit_matches(hit, rule_id))
            )
        ]
        verdict = max(verdicts) if verdicts else _BUILT_IN[hit.severity]
        parts.append(_Part(verdict, rule_id, hit.description, hit.repair, index))
    for rule in policy.rules:
        if rule.about_hits or not rule.match.call_matches(view):
            continue
        unless = rule.unless
        if (
            unless is not None
            and unless.call_matches(view)
            and (
                not unless.about_hits
                or any(unless.hit_matches(h, canonical_rule(h.rule_id)) for h in facts.hits)
            )
        ):
            continue
        what = rule.reason or f"policy rule `{rule.id}` says {rule.verdict} for this call"
        parts.append(_Part(rule.verdict, "policy:" + rule.id, what, rule.repair))
    if not parts:
        if action.kind is ActionKind.UNKNOWN:
            verdict = policy.unknown_verdict
            what = f"unknown tool `{action.tool}`; the policy's default for it is {verdict}"
        else:
            verdict = policy.default
            what = f"no rule matched; the policy's default is {verdict}"
        parts.append(_Part(verdict, "policy:default", what, ""))
    return parts


def _judge(
    action: Action,
    facts: Facts,
    ctx: CallContext,
    policy: Policy,
    guard: Guard,
    granted: GrantCheck | None,
    memory: RejectionMemory | None,
) -> Evaluation:
    view = _view(action, facts, ctx, guard.places.home, policy)
    parts = _parts(action, facts, view, policy)
    contributors = tuple(p.key for p in parts if p.key.startswith("policy:"))
    notes: list[str] = []
    if action.kind is ActionKind.UNKNOWN:
        notes.append(
            f"unknown tool `{action.tool}`: judged by the policy's default for "
            f"unknown tools ({policy.unknown_verdict})"
        )
    if memory:
        remembered = memory.match(fingerprint(facts, contributors))
        if remembered is not None:
            decision = _rejected_before(remembered.fingerprint.summary, facts)
            return Evaluation(_with_context(decision, ctx), facts, (), contributors)
    asks = tuple((p.key, s) for p in parts if p.verdict is Verdict.ASK for s in p.subjects(facts))
    remaining: list[_Part] = []
    for part in parts:
        source = _granted(part, facts, granted) if part.verdict is Verdict.ASK else None
        if source is None:
            remaining.append(part)
        else:
            notes.append(f"`{part.key}` was approved before ({source})")
    decision = _decide(remaining, parts, facts, notes)
    turned = policy.ask_becomes(ctx.kind.value, ctx.unattended) is Verdict.DENY
    if decision.verdict is Verdict.ASK and turned:
        why = "nobody can answer" if ctx.unattended else "the policy turns asks into denials"
        decision = Decision(
            Verdict.DENY,
            decision.hits,
            f"{why} in the `{ctx.kind}` context: {decision.reason}",
            "do not retry; tell the owner this needs their approval",
            False,
            NO_APPROVER,
            None,
            decision.notes,
        )
    return Evaluation(_with_context(decision, ctx), facts, asks, contributors)


def _granted(part: _Part, facts: Facts, granted: GrantCheck | None) -> str | None:
    if granted is None:
        return None
    subjects = part.subjects(facts)
    if not subjects:
        return None
    sources = {granted(part.key, s) for s in subjects}
    if None in sources:
        return None
    return "always" if "always" in sources else "session"


def _decide(remaining: list[_Part], parts: list[_Part], facts: Facts, notes: list[str]) -> Decision:
    if not remaining:
        if all(p.key == "policy:default" for p in parts) and parts[0].verdict is Verdict.ALLOW:
            reason = "no rule matched"
        elif any(p.verdict is Verdict.ASK for p in parts):
            reason = "approved before: " + "; ".join(dict.fromkeys(p.description for p in parts))
        else:
            reason = "allowed: " + "; ".join(dict.fromkeys(p.description for p in parts))
        return Decision(Verdict.ALLOW, facts.hits, reason, notes=tuple(notes))
    verdict = max(p.verdict for p in remaining)
    top = [p for p in remaining if p.verdict is verdict]
    if verdict is Verdict.ALLOW:
        reason = "allowed: " + "; ".join(dict.fromkeys(p.description for p in top))
        if all(p.key == "policy:default" for p in top):
            reason = "no rule matched"
    else:
        reason = "; ".join(dict.fromkeys(p.description for p in top))
    repair = next((p.repair for p in top if p.repair), "")
    code = POLICY_DENY if verdict is Verdict.DENY else None
    return Decision(verdict, facts.hits, reason, repair, False, code, None, tuple(notes))


def _rejected_before(summary: str, facts: Facts) -> Decision:
    reason = (
        f"the owner rejected this same effect earlier in this session (`{summary}`); "
        "another tool, path or spelling does not change that"
    )
    repair = (
        "do not try again; tell the owner plainly that it was not done because they declined it"
    )
    return Decision(Verdict.DENY, facts.hits, reason, repair, False, REJECTED_BEFORE)
