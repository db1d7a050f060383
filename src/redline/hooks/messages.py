"""What a hook says, and to whom.

A refusal is written for the model: what was refused, why, the repair, and
that it must not be tried another way. An ask is written for the person who
will approve or reject: what the call would do and which rule asked. Texts
are one paragraph, plain, with rule ids in backticks.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from redline.decision import Decision

NO_RETRY = (
    "Do not retry it another way (another tool, another spelling, a script or a sub-agent): "
    "a refusal is the owner's answer, not an obstacle."
)

_LIMIT = 1500

# The codes as Hermes agents are taught them (their approval skill): the gate's
# refusals carry the `hook-` prefix there, and the service's failures their own
# words. Other hosts see the plain codes.
HERMES_CODES = {
    "unsupported-execution-context": "hook-unsupported-execution-context",
    "execute-code-unbound": "hook-hermes-execute-code-unbound",
    "timeout": "hook-timeout",
    "gate-unreachable": "approval facade unreachable",
}
_UNVERIFIED = "gate-unverified ("


def _rules(decision: Decision) -> str:
    ids = list(dict.fromkeys(decision.rule_ids))
    if not ids and decision.code:
        ids = [decision.code]
    return " (" + ", ".join(f"`{i}`" for i in ids[:6]) + ")" if ids else ""


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _LIMIT else text[: _LIMIT - 1] + "…"


def _sentence(text: str) -> str:
    text = text.strip()
    return text if not text or text.endswith((".", "!", "?")) else text + "."


def hermes_code(code: str) -> str:
    """A plain code in the words Hermes agents are taught."""
    if code.startswith(_UNVERIFIED):
        return "av-approval: gate unverified (" + code[len(_UNVERIFIED) :]
    return HERMES_CODES.get(code, code)


def in_hermes_words(decision: Decision) -> Decision:
    """The decision with its code (and the code where its texts name it) as
    Hermes agents know it; anything else is left as it is."""
    code = decision.code
    if not code:
        return decision
    spelled = hermes_code(code)
    if spelled == code:
        return decision
    return decision._replace(
        code=spelled,
        reason=decision.reason.replace(f"`{code}`", f"`{spelled}`"),
        repair=decision.repair.replace(f"`{code}`", f"`{spelled}`"),
    )


def refusal(decision: Decision) -> str:
    """A deny, for the model."""
    parts = [f"redline refused this call{_rules(decision)}: {_sentence(decision.reason)}"]
    if decision.hardline:
        parts.append("This is a hard line: no approval can lift it.")
    if decision.repair:
        parts.append(f"Repair: {_sentence(decision.repair)}")
    parts.append("It did not run.")
    parts.append(NO_RETRY)
    return _clip(" ".join(parts))


# The gate's own texts for a context where nobody can be asked: they already
# say why nobody is asked, so the host is not named a second time.
_SAYS_NOBODY = ("nobody can answer", "the policy turns asks into denials")


def approval_needed(decision: Decision, host: str) -> str:
    """An ask on a host that cannot ask a person here, for the model."""
    reason = _sentence(decision.reason)
    why = "" if reason.startswith(_SAYS_NOBODY) else f" and {host} cannot ask the owner here"
    parts = [
        f"redline: this call needs the owner's approval{_rules(decision)}{why}: {reason} "
        "It did not run.",
        "Tell the owner what you were about to do and why; do it only if they ask again "
        "and approve it.",
    ]
    if decision.repair:
        parts.append(f"Or repair it: {_sentence(decision.repair)}")
    parts.append(NO_RETRY)
    return _clip(" ".join(parts))


def question(decision: Decision) -> str:
    """An ask, for the person who approves."""
    parts = [f"redline asks before this runs{_rules(decision)}: {_sentence(decision.reason)}"]
    if decision.repair:
        parts.append(f"Safer: {_sentence(decision.repair)}")
    parts.append("Approve only if you meant this.")
    return _clip(" ".join(parts))


def note(decision: Decision) -> str:
    """An allow, for logs and debug output."""
    return _clip(f"redline allowed this call{_rules(decision)}: {_sentence(decision.reason)}")
