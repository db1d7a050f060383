"""`redline run`: judge a command as a hook would, then run it where the hard
lines cannot happen and the owner's secrets are absent (F-SECRETS-1, -3).

The order is fixed: the policy loads (a broken one refuses); the sandbox
level is found and held against the policy's `enforce`; the command is
judged as a `Bash` call (an ask needs the approval service, else it is
refused with the reason); the verdict goes into the log with the level and
the variables the passthrough list let through (a log that cannot be
written refuses); only an allow runs, with the scrubbed environment.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping, Sequence

from redline.decision import Decision, Verdict
from redline.fasttuple import NamedTuple
from redline.sandbox.level import NAMESPACES, NONE, Level, probe
from redline.sandbox.pids import DEFAULT_MAX_PROCS
from redline.sandbox.programs import shell_argv
from redline.sandbox.verdict import (
    ASK_NEEDS_SERVICE,
    NETWORK_OFF_UNAVAILABLE,
    SANDBOX_UNAVAILABLE,
    settle,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from redline.sandbox.spawn import Started

AGENT = "run"
TOOL = "Bash"
__all__ = ["ASK_NEEDS_SERVICE", "NETWORK_OFF_UNAVAILABLE", "SANDBOX_UNAVAILABLE"]
POLICY_UNAVAILABLE = "policy-unavailable"


class Prepared(NamedTuple):
    """A judged command: what runs, how, and the recorded decision."""

    text: str
    argv: list[str]
    decision: Decision
    level: Level
    env: dict[str, str]
    removed: tuple[str, ...]
    passed: tuple[str, ...]
    cwd: str
    network: bool
    writable: tuple[str, ...]


def prepare(
    command: Sequence[str] | str,
    *,
    cwd: str | None = None,
    environ: Mapping[str, str] | None = None,
    policy_path: str | None = None,
    service: bool = False,
    network: bool | None = None,
    force_level: str | None = None,
    context: str | None = None,
    session: str | None = None,
    record: bool = True,
    ticket: str | None = None,
    profile: str | None = None,
    level: Level | None = None,
    started: Started | None = None,
) -> Prepared:
    """Judge `command` (an argv list, or a shell text) and decide how it would
    run, with the policy's sandbox `profile` when one is named; `level` is
    `probe(force_level)` when already found. Never raises for a refusal: the
    decision says it; `ValueError` for a profile (or context) the policy does
    not have."""
    from redline.gatekeeper import Gate
    from redline.policy.load import PolicyError
    from redline.secrets import scrub

    env_in = dict(os.environ if environ is None else environ)
    if (
        not isinstance(command, str)
        and command
        and (command[0].startswith("-") or "=" in command[0])
    ):
        raise ValueError(
            f"the program `{command[0]}` starts with `-` or holds `=`: give its path, "
            "or the command as shell text"
        )
    text = command if isinstance(command, str) else shlex.join(command)
    argv = shell_argv(command) if isinstance(command, str) else list(command)
    where = os.path.abspath(cwd or os.getcwd())
    try:
        gate = Gate.from_environ(env_in, policy_path)
    except PolicyError as error:
        first = str(error).splitlines()[0] if str(error) else "the policy cannot be loaded"
        refused = Decision(
            Verdict.DENY,
            reason=f"the approval policy cannot be loaded: {first}",
            repair="the owner must fix the policy (`redline policy lint`); until then nothing runs",
            code=POLICY_UNAVAILABLE,
        )
        found = level if level is not None else probe(force_level)
        return Prepared(text, argv, refused, found, {}, (), (), where, False, ())
    settings = gate.policy.run
    if profile is not None:
        settings = settings.with_profile(profile)
    level = level if level is not None else probe(force_level)
    if settings.enforce == "off":
        level = Level(NONE, "the policy says `enforce: off`")
    scrubbed = scrub(env_in, settings.env_pass)
    net = settings.network if network is None else network
    args: dict[str, object] = {"command": text, "enforcement": level.name}
    if profile is not None:
        args["profile"] = profile
    if scrubbed.passed:
        args["env_passed"] = [p.name for p in scrubbed.passed]
    from redline.sandbox.plan import workspace_refusal

    unsafe = workspace_refusal(where, env_in) if level.name != NONE else None
    if (
        started is not None
        and started.command == argv
        and level.name == NAMESPACES
        and unsafe is None
        and record
        and not service  # an ask held for the owner is built after the answer
    ):
        passed = tuple(p.name for p in scrubbed.passed)  # bwrap builds it while we judge
        build_early(started, where, env_in, settings.writable, net, passed, scrubbed.env)
    if unsafe is not None:
        decision = Decision(
            Verdict.DENY,
            reason=f"{unsafe}: the sandbox makes the workspace writable",
            repair="run it from the project's own folder (its git root or a folder made for "
            "it), not from the home, `/` or a system folder",
            code=WORKSPACE_REFUSED,
        )
    elif ticket and _ticket_holds(ticket, text, env_in):
        decision = TICKETED
    else:
        from redline.gate.actions import ToolCall

        decision = gate.check(ToolCall(TOOL, args, where, context, session))
    decision = settle(
        decision, enforce=settings.enforce, level=level.name, why=level.why, network=net,
        hold=service,
    )  # fmt: skip
    by_service = decision.verdict is Verdict.ASK  # only with `service`: the owner answers
    if by_service:
        decision = _ask_owner(args, where, context, session, env_in)
    if record and not by_service:  # the service logs what it decides itself
        decision = _record(decision, args, where, context, session, env_in)
    decision = decision._replace(notes=(*decision.notes, f"enforcement: {level.line()}"))
    return Prepared(
        text,
        argv,
        decision,
        level,
        scrubbed.env,
        tuple(r.name for r in scrubbed.removed),
        tuple(r.name for r in scrubbed.passed),
        where,
        net,
        settings.writable,
    )


def build_early(
    started: Started,
    where: str,
    environ: Mapping[str, str],
    writable: tuple[str, ...],
    network: bool,
    passed: tuple[str, ...],
    env: Mapping[str, str],
) -> None:
    """Build the sandbox (`Started.prepare`) as `execute` would plan it, so
    that bwrap sets it up while the command is judged (here or by the
    service); the command starts only if the verdict allows it (`execute`
    checks that the plan was made from the same places). A workspace
    `execute` would refuse is not built; a launch that failed is left for
    `execute` to report."""
    from redline.policy.model import RunSettings
    from redline.sandbox.launch import SandboxFailed
    from redline.sandbox.plan import make_plan, workspace_refusal

    if workspace_refusal(where, environ) is not None:
        return
    limit = started.bound.limit
    settings = RunSettings(writable=writable, network=network)
    plan = make_plan(where, environ, settings, max_procs=limit, kept_sockets=passed)
    try:
        started.prepare(plan, env, (where, writable, network, passed, limit))
    except SandboxFailed:
        return


WORKSPACE_REFUSED = "workspace-refused"
TICKETED = Decision(
    Verdict.ALLOW,
    reason="the hook that wrapped this command judged it (one-time ticket)",
)


def _ticket_holds(ticket: str, text: str, environ: Mapping[str, str]) -> bool:
    from redline.home import home_dir
    from redline.sandbox.tickets import consume

    return consume(home_dir(environ), ticket, text)


def _ask_owner(
    args: Mapping[str, object],
    cwd: str,
    context: str | None,
    session: str | None,
    environ: Mapping[str, str],
) -> Decision:
    """An asked command's answer from the approval service, which holds it
    for the owner and logs the call and its outcome itself."""
    from redline.approve.client import decide_via_service
    from redline.home import home_dir

    return decide_via_service(
        TOOL, args, cwd=cwd, session=session, context=context, agent=AGENT,
        home=home_dir(environ), key=environ.get("REDLINE_SERVICE_KEY") or None,
    )  # fmt: skip


def _record(
    decision: Decision,
    args: Mapping[str, object],
    cwd: str,
    context: str | None,
    session: str | None,
    environ: Mapping[str, str],
) -> Decision:
    from redline.audit.recorder import LogUnavailable, deny_log_unavailable, record_decision
    from redline.audit.shared import drop_shared_log, shared_log

    try:
        record_decision(
            shared_log(environ), session=session, context=context, agent=AGENT, tool=TOOL,
            args={**args, "cwd": cwd}, decision=decision, environ=environ,
        )  # fmt: skip
    except LogUnavailable as error:
        drop_shared_log()
        return deny_log_unavailable(error)._replace(context=decision.context, hits=decision.hits)
    return decision


def execute(
    prepared: Prepared,
    *,
    environ: Mapping[str, str] | None = None,
    temp_dirs: Sequence[str] | None = None,
    max_procs: int = DEFAULT_MAX_PROCS,
    started: Started | None = None,
) -> int:
    """Run an allowed command; its exit status. Raises `SandboxFailed`.
    `started` (from `spawn.start_early`) is used when it launches this very
    command under the level decided, else ended."""
    from redline.policy.model import RunSettings
    from redline.sandbox.plan import make_plan, workspace_refusal

    if prepared.decision.verdict is not Verdict.ALLOW:
        if started is not None:
            started.cancel()
        raise ValueError("only an allowed command runs")
    env_in = os.environ if environ is None else environ
    unsafe = workspace_refusal(prepared.cwd, env_in) if prepared.level.name != NONE else None
    if unsafe is not None:  # a decision made elsewhere (the service) must not widen it
        if started is not None:
            started.cancel()
        from redline.sandbox.launch import SandboxFailed

        raise SandboxFailed(unsafe)
    if started is not None and started.built is not None:
        # Built while the command was judged (`build_early`): used only for
        # these very places, environment and command, else ended.
        same = (prepared.cwd, prepared.writable, prepared.network, prepared.passed, max_procs)
        if (
            prepared.level.name == NAMESPACES
            and temp_dirs is None
            and started.command == prepared.argv
            and started.built_for == same
            and started.built[1] == prepared.env
        ):
            return started.run(*started.built)
        started.cancel()
        started = None
    settings = RunSettings(writable=prepared.writable, network=prepared.network)
    plan = make_plan(
        prepared.cwd, env_in, settings, temp_dirs=temp_dirs, max_procs=max_procs,
        kept_sockets=prepared.passed,
    )  # fmt: skip
    if started is not None:
        if prepared.level.name == NAMESPACES and started.command == prepared.argv:
            return started.run(plan, prepared.env)
        started.cancel()
    from redline.sandbox.launch import launch
    from redline.sandbox.pids import make_bound

    bound = make_bound(max_procs)
    return launch(prepared.argv, plan, prepared.level, prepared.env, bound)


def run(
    command: Sequence[str] | str,
    *,
    cwd: str | None = None,
    environ: Mapping[str, str] | None = None,
    policy_path: str | None = None,
    service: bool = False,
    network: bool | None = None,
    force_level: str | None = None,
    temp_dirs: Sequence[str] | None = None,
    max_procs: int = DEFAULT_MAX_PROCS,
    profile: str | None = None,
) -> tuple[Decision, int | None]:
    """Judge and, when allowed, run `command` sandboxed: the decision and the
    exit status (`None`: it did not run). `redline.run` from Python."""
    prepared = prepare(
        command, cwd=cwd, environ=environ, policy_path=policy_path, service=service,
        network=network, force_level=force_level, profile=profile,
    )  # fmt: skip
    if prepared.decision.verdict is not Verdict.ALLOW:
        return prepared.decision, None
    code = execute(prepared, environ=environ, temp_dirs=temp_dirs, max_procs=max_procs)
    return prepared.decision, code
