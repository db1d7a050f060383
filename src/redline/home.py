"""Where redline keeps its files: `$REDLINE_HOME`, default `~/.redline`."""

from __future__ import annotations

import os
from collections.abc import Mapping

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from pathlib import Path


def user_home(environ: Mapping[str, str] | None = None) -> str:
    """The owner's home directory: `$HOME` of `environ` (the process's when
    none is given). Every path judged for a decision uses this one value."""
    env = os.environ if environ is None else environ
    home = env.get("HOME", "").strip()
    if home:
        return home.rstrip("/") or "/"
    # No HOME: the account's home, as `~` means to the shell.
    return os.path.expanduser("~") if environ is None or env is os.environ else _account_home()


def _account_home() -> str:
    import pwd

    try:
        return pwd.getpwuid(os.getuid()).pw_dir
    except KeyError:
        return "/"


def expand_user(path: str, environ: Mapping[str, str] | None = None) -> str:
    """`~` and `~/x` against `user_home(environ)`; `~user/x` as the system says."""
    if path == "~" or path.startswith("~/"):
        home = user_home(environ)
        return home + path[1:] if home != "/" else path[1:] or "/"
    return os.path.expanduser(path)


def home_dir(environ: Mapping[str, str] | None = None) -> str:
    """The directory as a string; importing nothing, for the hook's hot path."""
    env = os.environ if environ is None else environ
    configured = env.get("REDLINE_HOME", "").strip()
    if configured:
        return expand_user(configured, env)
    return os.path.join(user_home(env), ".redline")


def configured_policy(environ: Mapping[str, str] | None = None) -> str | None:
    """`$REDLINE_POLICY`, else `$REDLINE_HOME/policy.yaml` if it exists; `None`
    means the policy that ships with redline."""
    env = os.environ if environ is None else environ
    configured = env.get("REDLINE_POLICY", "").strip()
    if configured:
        return expand_user(configured, env)
    path = os.path.join(home_dir(env), "policy.yaml")
    return path if os.path.isfile(path) else None


def redline_home(environ: Mapping[str, str] | None = None) -> Path:
    from pathlib import Path

    return Path(home_dir(environ))


def secure_quickly(home: str) -> OSError | None:
    """At a hook's start: whatever it creates is the owner's alone (umask
    0o077), and the home is tightened (`redline.home_modes`) if its own mode
    lets anyone else in, beyond the agent's group that `redline serve
    --agent-group` noted. One `stat` when all is well. Never raises: a
    failure is returned, and the call is still judged."""
    os.umask(0o077)
    try:
        st = os.stat(home)
    except OSError:
        return None  # made 0700, under the umask, by whatever creates it first
    others = st.st_mode & 0o077
    if not others:
        return None
    if others == 0o010 and os.path.exists(os.path.join(home, "service", "agent-group")):
        return None  # the agent's group may enter (`home_modes` checks the rest)
    try:
        from redline.home_modes import tighten

        tighten(home)
    except OSError as error:  # `redline doctor` names what is loose
        return error
    return None


def private_file(path: str) -> None:
    """Make `path` (and its folder) the owner's alone before a database opens
    it, whatever the process's umask: a plugin runs inside the agent's own
    process (Hermes), whose umask lets others read. SQLite gives its `-wal`
    and `-shm` files the mode of the database file."""
    os.makedirs(os.path.dirname(path) or ".", mode=0o700, exist_ok=True)
    if not os.path.exists(path):
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
