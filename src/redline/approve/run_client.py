"""`redline run`'s side of the local service: one run's call over the hook
socket, answered by the warm judge (`sandbox.served`).

The call is sent as a hook with `--service` sends it (`/v1/decide` on
`$REDLINE_HOME/service/hook.sock`, nothing a hook may not use), with a
`run` object that the service settles the verdict by (`sandbox.verdict`)
and signs back with it. Every answer is verified against the pinned key
(`REDLINE_SERVICE_KEY`, else `service/signing.pub`); an ask waits for the
owner by long-polling, as a hook does. `NoService` means nothing was sent
that the service judged or logged (no key, no socket, connect refused or
timed out, settings not the policy's): the run judges the command itself.
Once the call is out, every failure is a deny, never a second judgment.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from redline.approve.client import (
    CONNECT_TIMEOUT_S,
    Unverified,
    call_digest,
    from_answer,
    pinned_key,
    refused,
    unreachable,
    unverified,
    verify,
    wait_held,
)
from redline.approve.paths import ServicePaths
from redline.approve.run_settings import STALE
from redline.approve.wire import DECIDE_TIMEOUT_S, Disconnected, Unreachable, exchange
from redline.deadline import Deadline
from redline.decision import Decision

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class NoService(Exception):
    """No service judged the call: judge it locally."""


def decide_run(
    tool: str,
    args: Mapping[str, Any],
    *,
    cwd: str,
    session: str | None,
    context: str | None,
    agent: str,
    home: str,
    run: Mapping[str, Any],
    key: str | None = None,
    connect_timeout: float = CONNECT_TIMEOUT_S,
) -> Decision:
    """The service's verified, logged decision for a run's call. Raises
    `NoService` (see above), `ValueError` for a call the service cannot
    judge (an unknown context: nothing logged)."""
    paths = ServicePaths(home)
    try:
        pinned = pinned_key(paths, key)
    except Unverified:
        raise NoService("no service key") from None
    nonce = os.urandom(16).hex()
    request = {"tool": tool, "args": dict(args), "cwd": cwd, "session": session}
    request.update(context=context, agent=agent, run=dict(run), nonce=nonce)
    digest = call_digest(tool, args, cwd, session, context, agent)
    try:
        status, reply = exchange(
            paths.hook_socket, "POST", "/v1/decide", request,
            timeout=DECIDE_TIMEOUT_S, connect_timeout=connect_timeout,
        )  # fmt: skip
    except Unreachable as err:
        raise NoService(str(err)) from None
    except Disconnected as err:  # it may have been judged and logged: no second judgment
        return unreachable(str(err))
    problem = reply.get("error") if isinstance(reply, dict) else None
    if status == STALE:
        raise NoService(str(problem))
    if status == 400 and problem:
        raise ValueError(str(problem))
    if status != 200 or not isinstance(reply, dict):
        return refused(status, reply)
    try:
        if reply.get("status") == "answered":
            body = verify(reply, pinned, request=None, nonce=nonce, call=digest, run=run)
            return from_answer(body)
        if not run["hold"]:
            raise Unverified("malformed", "the service held a call that nobody may answer")
        held, expires = str(reply["request"]), float(reply["deadline"])
        wait = Deadline(float("inf"))
        return wait_held(
            paths.hook_socket, held, expires, pinned, nonce, digest, connect_timeout, wait, run=run
        )
    except Unverified as err:
        return unverified(err.code, str(err))
    except (KeyError, TypeError, ValueError):
        return unverified("malformed", "the service's reply cannot be read")
