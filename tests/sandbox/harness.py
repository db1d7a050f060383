"""Runs one command in the sandbox without the judge, as a separate process:
`python harness.py LEVEL WORKSPACE TEMP MAX_PROCS -- CMD ARGS...`; the
environment (`HOME`, `REDLINE_HOME`) is the caller's. The must-show tests run
commands here that the judge would refuse, to show the sandbox alone holds."""

from __future__ import annotations

import os
import sys

from redline.sandbox.launch import launch
from redline.sandbox.level import probe
from redline.sandbox.pids import make_bound
from redline.sandbox.plan import make_plan
from redline.secrets import scrub


def main(argv: list[str]) -> int:
    level_name, workspace, temp, max_procs = argv[:4]
    command = argv[5:]
    level = probe(level_name)
    if level.name != level_name:
        print(f"harness: wanted {level_name}, got {level.line()}", file=sys.stderr)
        return 99
    plan = make_plan(workspace, os.environ, temp_dirs=(temp,), max_procs=int(max_procs))
    env = scrub(os.environ).env
    return launch(command, plan, level, env, make_bound(int(max_procs)))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
