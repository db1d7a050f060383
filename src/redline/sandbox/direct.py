"""The sandbox launch a hook writes itself (issue #14, latency): once the
hook has judged a command, the command it hands back need not start Python
again to be judged and launched. It is the namespace sandbox's own launch,
as shell text:

    ( echo 0 > CGROUP/tasks && exec BWRAP --clearenv --setenv K V ...
      --seccomp 9 ... --chdir CWD -- bash -c 'COMMAND' 9< SECCOMP_FILE )

- the places, the hidden credentials and the read-only hook configuration
  are `plan.make_plan`'s, for the call's working directory and the policy's
  `sandbox` settings;
- the environment is the hook's own, scrubbed (`secrets.scrub` with the
  policy's `env.pass`): `--clearenv`, then one `--setenv` a variable kept;
  what the agent's shell itself exported since does not reach the command;
- the terminal filter (`seccomp`) is a file under `$REDLINE_HOME/sandbox`,
  opened by the shell on descriptor 9 for `--seccomp 9` (the command inside
  cannot reach that directory: it is hidden);
- the process bound is a pids cgroup the hook made, which the subshell
  joins before it becomes bwrap (`rlimit`: `ulimit -u`); a cgroup that is
  left empty is removed by a later hook (`pids.sweep`).

Only for the `namespaces` level and a policy that does not say `enforce:
off`: anything else (`None` here) goes through `redline run`, which applies
the Landlock fallback, `required` and `off` itself. bwrap passes the
command's exit status through (128+N for a signal); a signal sent to the
launch reaches bwrap, and `--die-with-parent` and the PID namespace end
what it started. If the cgroup or the filter file is gone when the command
starts, the shell stops before bwrap: the command does not run.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping

from redline.sandbox.level import NAMESPACES, probe
from redline.sandbox.pids import DEFAULT_MAX_PROCS

SECCOMP_FD = 9
FOLDER = "sandbox"


def seccomp_file(home: str) -> str:
    """The terminal filter as a file in the gate's home (written when it is
    missing or differs). Raises `OSError`."""
    from redline.sandbox.seccomp import program

    folder = os.path.join(home, FOLDER)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    path = os.path.join(folder, f"seccomp-{os.uname().machine}.bpf")
    data = program()
    try:
        with open(path, "rb") as file:
            if file.read() == data:
                return path
    except OSError:
        pass
    temp = f"{path}.{os.getpid()}"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as file:
        file.write(data)
    os.replace(temp, path)
    return path


def launch_text(command: str, cwd: str, environ: Mapping[str, str]) -> str | None:
    """The shell text that runs `command` (shell text, already judged) in the
    namespace sandbox without Python; `None` when this machine or the policy
    calls for `redline run` instead. Raises `OSError` when the filter file
    or the cgroup cannot be made."""
    level = probe()
    if level.name != NAMESPACES or level.bwrap is None:
        return None
    from redline.gatekeeper import Gate
    from redline.home import home_dir
    from redline.sandbox import seccomp
    from redline.sandbox.bwrap import argv
    from redline.sandbox.pids import RLIMIT, make_bound, sweep
    from redline.sandbox.plan import make_plan, workspace_refusal
    from redline.sandbox.programs import shell_argv
    from redline.secrets import scrub

    settings = Gate.from_environ(environ).policy.run
    if settings.enforce == "off" or workspace_refusal(cwd, environ) is not None:
        return None  # `redline run` refuses such a workspace with the reason
    scrubbed = scrub(environ, settings.env_pass)
    env = scrubbed.env
    plan = make_plan(
        cwd, environ, settings, max_procs=DEFAULT_MAX_PROCS,
        kept_sockets=[p.name for p in scrubbed.passed],
    )  # fmt: skip
    filter_path = seccomp_file(home_dir(environ)) if seccomp.supported() else None
    fd = SECCOMP_FD if filter_path else None
    words = argv(level.bwrap, plan, shell_argv(command), fd, env=env)
    sweep()
    bound = make_bound(DEFAULT_MAX_PROCS)
    join = ""
    joined = bound.join_file()  # v1's `tasks`: the subshell runs one thread
    if joined is not None:
        join = f"echo 0 > {shlex.quote(joined)} && "
    elif bound.mechanism == RLIMIT:
        join = f"ulimit -u {bound.limit} && "
    opened = f" {fd}< {shlex.quote(filter_path)}" if filter_path else ""
    return f"( {join}exec {shlex.join(words)}{opened} )"
