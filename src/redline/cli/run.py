"""`redline run [OPTIONS] -- CMD ARGS...` (or `--shell 'TEXT'`): judge the
command as a hook would, then run it in the sandbox (see `redline.sandbox`).

Once the command runs, its own exit status is redline's. When redline does
not run it, the status says why: 126 refused (a deny, an ask nobody could
answer, a sandbox the policy requires and this machine lacks), 125 redline
failed (a broken policy, a sandbox that could not be set up).

`fast_args` reads the usual command lines without argparse (a run starts a
process per command, as a hook does: ADR 0004); anything else, help and
errors included, goes to the argparse parser of `add_parser`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from redline.sandbox.pids import DEFAULT_MAX_PROCS

TYPE_CHECKING = False  # not `typing`'s: a run's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from redline.sandbox.level import Level
    from redline.sandbox.spawn import Started

REFUSED = 126
FAILED = 125


FLAGS = {"--no-network": "no_network", "--service": "service", "--explain": "explain"}
VALUED = {
    "--cwd": "cwd", "--shell": "shell", "--profile": "profile", "--sandbox": "sandbox",
    "--max-procs": "max_procs", "--ticket": "ticket", "--context": "context",
    "--session": "session",
}  # fmt: skip
SANDBOXES = ("namespaces", "landlock")


def fast_args(argv: Sequence[str]) -> Any:
    """The parsed command line, as argparse would give it, when every option
    is spelled in full and well formed; `None` for anything else (help, an
    abbreviation, an error), which argparse then reads and reports."""
    from types import SimpleNamespace

    values: dict[str, object] = {name: None for name in VALUED.values()}
    values.update({name: False for name in FLAGS.values()})
    rest = list(argv)
    while rest and rest[0].startswith("-") and rest[0] != "--":
        word = rest.pop(0)
        name, equals, value = word.partition("=")
        if word in FLAGS:
            values[FLAGS[word]] = True
            continue
        if name not in VALUED:
            return None
        if not equals:
            if not rest or rest[0].startswith("-"):
                return None
            value = rest.pop(0)
        if name == "--sandbox" and value not in SANDBOXES:
            return None
        if name == "--max-procs":
            try:
                values["max_procs"] = int(value)
            except ValueError:
                return None
            continue
        values[VALUED[name]] = value
    return SimpleNamespace(command=rest, **values)


def fast_main(argv: Sequence[str]) -> int | None:
    """`redline run ...` without argparse; `None`: let argparse read it."""
    args = fast_args(argv)
    if args is None:
        return None
    os.umask(0o077)  # as `cli.main` sets for every command that writes redline's files
    return run(args)


def epilog() -> str:
    from redline.cli import exitcodes

    return (
        "exit codes: the command's own once it runs (128+N when signal N killed it); "
        f"{REFUSED} refused (deny, ask without --service, sandbox required but missing); "
        f"{FAILED} redline failed (broken policy, sandbox could not be set up); "
        f"{exitcodes.USAGE} usage"
    )


def add_parser(sub: Any, name: str, help_text: str) -> None:
    import argparse

    parser: argparse.ArgumentParser = sub.add_parser(
        name,
        help=help_text,
        description="Judge a command like a hook would; if it is allowed, run it with the "
        "owner's secrets scrubbed from its environment, in a kernel sandbox where the "
        "filesystem outside the workspace and temp is read-only, credentials and the gate's "
        "home are hidden, and signals and processes stay inside.",
        epilog=epilog(),
    )
    parser.add_argument("--cwd", metavar="DIR", help="run in DIR (default: here)")
    parser.add_argument("--shell", metavar="TEXT", help="run TEXT with bash -c (sh if no bash)")
    parser.add_argument("--no-network", action="store_true", help="run without a network")
    parser.add_argument(
        "--profile",
        metavar="NAME",
        help="apply the policy's sandbox profile NAME (`sandbox.profiles`: more writable "
        "paths, the network, variables passed)",
    )
    parser.add_argument(
        "--service",
        action="store_true",
        help="an ask waits for the owner's answer through `redline serve` (else it is refused)",
    )
    parser.add_argument(
        "--explain",
        action="store_true",
        help="print the verdict, the enforcement level and why, and the sandbox's places; "
        "run nothing",
    )
    # No `--policy` and no `--sandbox none`: the command line is the agent's to
    # write, so it may only narrow what the owner's policy gives.
    parser.add_argument(
        "--sandbox",
        choices=("namespaces", "landlock"),
        help="use this sandbox, or the Landlock fallback (default: the best available)",
    )
    parser.add_argument(
        "--max-procs",
        type=int,
        default=None,
        metavar="N",
        help=f"lower the bound on processes and threads (at most {DEFAULT_MAX_PROCS})",
    )
    parser.add_argument(
        "--ticket",
        metavar="NONCE",
        help="a one-time ticket from the hook that judged this very command (a hook's "
        "rewrite sets it); without a live one the command is judged here",
    )
    parser.add_argument("--context", help="interactive, gateway, cron or single_query")
    parser.add_argument("--session", help="the session the command belongs to")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- CMD ARGS...")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    # First of all: the sandbox's launch starts while the judge loads.
    from redline.sandbox.spawn import start_early

    words = list(args.command)
    if words[:1] == ["--"]:
        words = words[1:]
    if bool(words) == bool(args.shell):
        return _usage("give a command after `--`, or `--shell 'TEXT'` (not both)")
    if words and (words[0].startswith("-") or "=" in words[0]):
        # Judged as shell text, `X=1 cmd` is an assignment and `-S ...` an option;
        # run as an argv they are a program's name: the judge would see another command.
        return _usage(
            f"the program `{words[0]}` starts with `-` or holds `=`: give its path "
            "(`./NAME`), or the whole command with `--shell 'TEXT'`"
        )
    max_procs = min(DEFAULT_MAX_PROCS, args.max_procs or DEFAULT_MAX_PROCS)
    if args.max_procs is not None and args.max_procs < 1:
        return _usage("`--max-procs` must be at least 1")
    command = args.shell if args.shell else words
    level, started = (None, None) if args.explain else start_early(command, args.sandbox, max_procs)
    try:
        return _judge_and_run(args, command, max_procs, level, started)
    finally:
        if started is not None:
            started.cancel()  # a no-op once it ran


def _judge_and_run(
    args: argparse.Namespace,
    command: list[str] | str,
    max_procs: int,
    level: Level | None,
    started: Started | None,
) -> int:
    from redline.cli import exitcodes
    from redline.decision import Verdict
    from redline.sandbox.run import POLICY_UNAVAILABLE, execute

    try:
        prepared = _served(args, command, level, started) or _judged_here(
            args, command, level, started
        )
    except ValueError as error:  # an unknown context or profile name
        return _usage(str(error))
    decision = prepared.decision
    if args.explain:
        from redline.cli.check import render

        print(render(prepared.text, decision))
        print(_explain(prepared, max_procs))
        return exitcodes.BY_VERDICT[decision.verdict]
    if decision.verdict is not Verdict.ALLOW:
        from redline.cli.check import render

        print(f"redline: not run\n{render(prepared.text, decision)}", file=sys.stderr)
        return FAILED if decision.code == POLICY_UNAVAILABLE else REFUSED
    from redline.sandbox.launch import SandboxFailed

    try:
        return execute(prepared, max_procs=max_procs, started=started)
    except SandboxFailed as error:
        print(f"redline: not run: {error}", file=sys.stderr)
        return FAILED


def _served(
    args: argparse.Namespace, command: list[str] | str, level: Level | None, started: Started | None
) -> Any:
    """The command judged by a running `redline serve` (`sandbox.served`), or
    `None`: none answered, or this run is judged here anyway (`--explain`
    prints the local judgment; a hook's ticket is checked here)."""
    if args.explain or args.ticket or level is None:
        return None
    if os.environ.get("REDLINE_POLICY", "").strip():
        return None  # a policy of the caller's: the service judges by its own
    from redline.sandbox.served import prepare_served

    return prepare_served(
        command, level=level, cwd=args.cwd, network=False if args.no_network else None,
        context=args.context, session=args.session, profile=args.profile, hold=args.service,
        started=started,
    )  # fmt: skip


def _judged_here(
    args: argparse.Namespace, command: list[str] | str, level: Level | None, started: Started | None
) -> Any:
    from redline.sandbox.run import prepare

    return prepare(
        command,
        cwd=args.cwd,
        service=args.service,
        network=False if args.no_network else None,
        force_level=args.sandbox,
        context=args.context,
        session=args.session,
        record=not args.explain,
        ticket=None if args.explain else args.ticket,
        profile=args.profile,
        level=level,
        started=started,
    )


def _explain(prepared: Any, max_procs: int) -> str:
    from redline.policy.model import RunSettings
    from redline.sandbox.pids import make_bound
    from redline.sandbox.plan import make_plan

    settings = RunSettings(writable=prepared.writable, network=prepared.network)
    plan = make_plan(prepared.cwd, os.environ, settings, max_procs=max_procs)
    bound = make_bound(max_procs)
    bound.close()
    lines = [
        f"enforcement: {prepared.level.line()}",
        f"  workspace: {plan.workspace}",
        f"  writable: {', '.join(plan.writable) or '-'}",
        f"  hidden: {', '.join(p for p, _ in plan.hidden) or '-'}",
        f"  read-only: {', '.join(plan.read_only) or '-'}",
        f"  network: {'on' if plan.network else 'off'}",
        f"  process bound: {bound.mechanism} ({max_procs})",
        f"  environment removed: {', '.join(prepared.removed) or '-'}",
    ]
    if prepared.passed:
        lines.append(f"  environment passed by the policy: {', '.join(prepared.passed)}")
    return "\n".join(lines)


def _usage(message: str) -> int:
    from redline.cli import exitcodes

    print(f"error: {message}\n  help: `redline run -- make test`", file=sys.stderr)
    return exitcodes.USAGE
