"""Gate a Python tool function: `@gated("terminal")` (F-HOOKS-1).

For agents whose tools are plain Python functions. Each call is judged by the
gate as the tool call it is, before the function runs: allowed calls run,
refused ones raise `Refused` carrying the Decision (the reason and repair are
for the model). An asked call runs only if `on_ask` says yes; without one,
nobody can answer, so it is refused like any call that may not run unasked.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, ParamSpec, TypeVar, cast

from redline.decision import Decision, Verdict

P = ParamSpec("P")
R = TypeVar("R")
Judge = Callable[[str, Mapping[str, Any]], Decision]
ArgsOf = Callable[..., Mapping[str, Any]]


class Refused(PermissionError):
    """The gate did not let the call run. `decision` says why and how to repair it."""

    def __init__(self, tool: str, decision: Decision) -> None:
        self.tool = tool
        self.decision = decision
        repair = f" Repair: {decision.repair}" if decision.repair else ""
        super().__init__(f"redline refused `{tool}`: {decision.reason}.{repair}")


def gated(
    tool: str | None = None,
    *,
    args: ArgsOf | None = None,
    cwd: str | None = None,
    context: str | None = None,
    session: str | Callable[[], str | None] | None = None,
    on_ask: Callable[[str, Decision], bool] | None = None,
    judge: Judge | None = None,
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Judge every call of the decorated function before it runs.

    `tool` names the tool (default: the function's name); the tool's arguments
    are the function's bound arguments by parameter name, or what `args`
    builds from them. `session` may be a function, read at each call.
    `judge` replaces the process's default gate (a `Gate(...).check` bound
    to other settings, say).
    """

    def decorate(fn: Callable[P, R]) -> Callable[P, R]:
        name = tool or fn.__name__
        signature = inspect.signature(fn)

        def permit(call_args: tuple[Any, ...], call_kwargs: dict[str, Any]) -> None:
            if args is not None:
                tool_args = dict(args(*call_args, **call_kwargs))
            else:
                bound = signature.bind(*call_args, **call_kwargs)
                bound.apply_defaults()
                tool_args = dict(bound.arguments)
            decision = _judge(name, tool_args)
            if decision.verdict is Verdict.ALLOW:
                return
            if decision.verdict is Verdict.ASK and on_ask is not None and on_ask(name, decision):
                return
            raise Refused(name, decision)

        def _judge(name: str, tool_args: Mapping[str, Any]) -> Decision:
            if judge is not None:
                return judge(name, tool_args)
            from redline.gatekeeper import check_tool_call

            key = session() if callable(session) else session
            return check_tool_call(name, tool_args, cwd=cwd, context=context, session=key)

        if inspect.iscoroutinefunction(fn):
            coroutine = cast(Callable[..., Awaitable[Any]], fn)

            @functools.wraps(fn)
            async def run_async(*call_args: Any, **call_kwargs: Any) -> Any:
                permit(call_args, call_kwargs)
                return await coroutine(*call_args, **call_kwargs)

            return cast(Callable[P, R], run_async)

        @functools.wraps(fn)
        def run(*call_args: P.args, **call_kwargs: P.kwargs) -> R:
            permit(call_args, call_kwargs)
            return fn(*call_args, **call_kwargs)

        return run

    return decorate
