"""`redline run` judged by the local service (issue #14, latency).

Loading the gate and its rule catalogue is most of a run's start; a running
`redline serve` has them loaded already. So before judging a command
itself, `redline run` asks the service, as a hook with `--service` does
(`approve.run_client`): with the policy's run settings the service
published (`approve.run_settings`) it makes the call exactly as
`sandbox.run.prepare` would (the level, `enforce: off`, the variables the
passthrough list lets through), sends it, and gets back the verdict, logged
and signed, settled for the sandbox as the local path settles it
(`sandbox.verdict`). The places and the environment come from the same
settings, so what runs is what a local judgment would run.

`None` from `prepare_served`: no service judged it (none running, its key
or settings missing, settings not the policy's): judge locally. Nothing
here loads the gate, the policy or the rules.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping, Sequence

from redline.sandbox.level import NAMESPACES, NONE, Level
from redline.sandbox.programs import shell_argv
from redline.sandbox.run import AGENT, TOOL, Prepared, build_early

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from redline.sandbox.spawn import Started


def prepare_served(
    command: Sequence[str] | str,
    *,
    level: Level,
    cwd: str | None = None,
    environ: Mapping[str, str] | None = None,
    network: bool | None = None,
    context: str | None = None,
    session: str | None = None,
    profile: str | None = None,
    hold: bool = False,
    started: Started | None = None,
) -> Prepared | None:
    """`sandbox.run.prepare`'s answer, judged and logged by the service;
    `None` when no service judged it. `hold`: an ask waits for the owner
    (`--service`), else it is refused. `ValueError`: the service cannot
    judge the call (an unknown context). `started` (the launch spawned
    early) is built while the service judges: the places and the
    environment come from the published settings, not from the verdict."""
    from redline.approve.run_settings import digest, read, with_profile
    from redline.home import home_dir

    env_in = dict(os.environ if environ is None else environ)
    home = home_dir(env_in)
    service_dir = os.path.join(home, "service")
    published = read(service_dir)
    if published is None or not os.path.exists(os.path.join(service_dir, "hook.sock")):
        return None  # no service here: nothing more is loaded for it
    from redline.approve.run_client import NoService, decide_run
    from redline.secrets import scrub

    try:
        settings = published if profile is None else with_profile(published, profile)
    except (AttributeError, KeyError, TypeError):
        return None
    plain = _plain(settings)
    if plain is None:
        return None  # an unknown profile, or a file that is not the policy's: judge locally
    enforce, env_pass, writable, net = plain
    text = command if isinstance(command, str) else shlex.join(command)
    argv = shell_argv(command) if isinstance(command, str) else list(command)
    where = os.path.abspath(cwd or os.getcwd())
    if enforce == "off":
        level = Level(NONE, "the policy says `enforce: off`")
    scrubbed = scrub(env_in, env_pass)
    net = net if network is None else network
    args: dict[str, object] = {"command": text, "enforcement": level.name}
    if profile is not None:
        args["profile"] = profile
    if scrubbed.passed:
        args["env_passed"] = [p.name for p in scrubbed.passed]
    run = {"settings": digest(published), "network": net, "hold": hold, "why": level.why}
    passed = tuple(p.name for p in scrubbed.passed)
    if started is not None and not hold and level.name == NAMESPACES and started.command == argv:
        # (an ask held for the owner takes seconds: built after the answer, as before)
        build_early(started, where, env_in, writable, net, passed, scrubbed.env)
    try:
        decision = decide_run(
            TOOL, args, cwd=where, session=session, context=context, agent=AGENT, home=home,
            run=run, key=env_in.get("REDLINE_SERVICE_KEY") or None,
        )  # fmt: skip
    except NoService:
        return None
    decision = decision._replace(notes=(*decision.notes, f"enforcement: {level.line()}"))
    removed = tuple(r.name for r in scrubbed.removed)
    env = scrubbed.env
    return Prepared(text, argv, decision, level, env, removed, passed, where, net, writable)


def _plain(
    settings: Mapping[str, Any] | None,
) -> tuple[str, tuple[str, ...], tuple[str, ...], bool] | None:
    """(enforce, env_pass, writable, network) of well-formed settings."""
    if settings is None:
        return None
    enforce, network = settings.get("enforce"), settings.get("network")
    env_pass, writable = settings.get("env_pass"), settings.get("writable")
    if not isinstance(enforce, str) or not isinstance(network, bool):
        return None
    if not isinstance(env_pass, list) or not isinstance(writable, list):
        return None
    if not all(isinstance(word, str) for word in (*env_pass, *writable)):
        return None
    return enforce, tuple(env_pass), tuple(writable), network
