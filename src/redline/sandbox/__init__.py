"""Enforcement: what the gate allowed runs in a kernel sandbox (F-SECRETS-3).

- `run.py`: `redline run`'s order: policy, level, judge, log, run.
- `level.py`: which sandbox this machine gives (`namespaces`, `landlock`, `none`) and why.
- `plan.py`: the places a run may write, the ones hidden from it, the read-only ones.
- `bwrap.py`: bubblewrap's command line for a plan (the namespace sandbox).
- `landlock.py`: the Landlock ruleset for a plan (the fallback), through raw system calls.
- `pids.py`: the bound on processes (a pids cgroup, else `RLIMIT_NPROC`).
- `launch.py`: starting the command and passing through its status, terminal and signals.
"""
