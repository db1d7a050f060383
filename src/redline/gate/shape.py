"""Shape checks: calls the gate cannot judge are refused, each refusal naming
its repair (F-GATE-2).

The texts keep the promises agents are given: a `terminal` call needs an
absolute `workdir`; file tools need an absolute `path` starting with `/`;
`execute_code` is always refused, and the same work goes through `terminal`.
"""

from __future__ import annotations

from redline.decision import Decision, Verdict
from redline.gate.actions import Action, ActionKind

UNSUPPORTED_CONTEXT = "unsupported-execution-context"
EXECUTE_CODE_UNBOUND = "execute-code-unbound"
MALFORMED_CALL = "malformed-call"

_AGAIN = " and call again once"


def refuse(code: str, reason: str, repair: str) -> Decision:
    return Decision(Verdict.DENY, reason=reason, repair=repair, code=code)


def malformed(action: Action) -> Decision | None:
    if action.problem is not None:
        return refuse(
            MALFORMED_CALL,
            f"`{action.tool}` call cannot be read: {action.problem}",
            "send the arguments the tool's schema asks for" + _AGAIN,
        )
    if action.kind is ActionKind.RUN and action.command is None:
        return refuse(
            MALFORMED_CALL,
            f"`{action.tool}` call has no command to run",
            "pass the command line to run as `command`" + _AGAIN,
        )
    return None


def execute_code(action: Action) -> Decision | None:
    if action.kind is not ActionKind.CODE:
        return None
    return refuse(
        EXECUTE_CODE_UNBOUND,
        f"`{action.tool}` is always refused: the gate cannot see what the code would do",
        "run the same work through `terminal` with an absolute `workdir`",
    )


def is_absolute(path: str | None) -> bool:
    return bool(path) and path.startswith("/")  # type: ignore[union-attr]


def refusal(action: Action) -> Decision | None:
    """The shape refusal for this action, if any."""
    if action.kind is ActionKind.RUN:
        return _workdir(action)
    if action.is_file_tool:
        return _paths(action)
    return None


def _workdir(action: Action) -> Decision | None:
    workdir = action.workdir
    if is_absolute(workdir):
        return None
    got = "none" if workdir is None else f"`{workdir}`"
    if action.vocabulary == "hermes":
        return refuse(
            UNSUPPORTED_CONTEXT,
            f"`{action.tool}` needs `workdir` as an absolute path; got {got}",
            "pass `workdir` as an absolute path (for example the Hermes home directory)" + _AGAIN,
        )
    return refuse(
        UNSUPPORTED_CONTEXT,
        f"`{action.tool}` needs an absolute working directory; got {got}",
        "pass the working directory as an absolute path (the hook's `cwd`)" + _AGAIN,
    )


def _paths(action: Action) -> Decision | None:
    key = action.path_key
    if not action.paths:
        if action.path_optional and is_absolute(action.base):
            return None
        what = "the patch names no file" if action.kind is ActionKind.PATCH else "got none"
        return _path_refusal(action, f"`{action.tool}` needs `{key}` as an absolute path; {what}")
    for path in action.paths:
        if not path.strip():
            return _path_refusal(
                action, f"`{action.tool}` needs `{key}` as an absolute path; got ``"
            )
        if is_absolute(path):
            continue
        if action.relative_ok and is_absolute(action.base) and not path.startswith("~"):
            continue
        return _path_refusal(
            action,
            f"`{action.tool}` needs `{key}` as an absolute path starting with `/`; got `{path}`",
        )
    return None


def _path_refusal(action: Action, reason: str) -> Decision:
    if action.kind is ActionKind.PATCH and not action.path_key.endswith("path"):
        repair = "name every file in the patch by an absolute path starting with `/`"
    else:
        repair = f"give `{action.path_key}` as an absolute path starting with `/`"
    return refuse(UNSUPPORTED_CONTEXT, reason, repair + _AGAIN)
