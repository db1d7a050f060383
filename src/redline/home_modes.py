"""Files only the owner can read: `$REDLINE_HOME` is 0700 and everything in
it 0600 (directories 0700).

The log and its WAL/SHM files, the keys, the sockets, the allowlist, the
held calls, the pairing tables and the hook token live there. Each is made
owner-only as it is created, not fixed afterwards: the service, its workers
and the hooks run with the umask 0o077 (SQLite gives the WAL and SHM files
the log's own mode), and the home itself is made 0700 before anything goes
in. A home left looser by an older version or by hand is tightened when the
service, `redline install` or a hook starts (a hook only looks at the home's
own mode, which guards everything in it: one `stat`, in
`redline.home.secure_quickly`), and `redline doctor` names whatever is
still loose.

With `redline serve --agent-group`, the agent's user (another account in
that group) must reach the hook socket: the home may then let that group in
(0710), as may `service/` (0750), `service/hook.sock` (0660) and
`service/signing.pub` (0640). Those group bits are kept only on those
entries, only while they belong to the group the service noted in
`service/agent-group`.

Imports only `os` (a hook starts once per tool call).
"""

from __future__ import annotations

import os

OWNER_UMASK = 0o077
# The group bits an entry may keep when it belongs to the agent's group.
SHARED = {"": 0o010, "service": 0o050, "service/hook.sock": 0o060, "service/signing.pub": 0o040}


def owner_umask() -> None:
    """Whatever this process creates from now on is the owner's alone."""
    os.umask(OWNER_UMASK)


def make_home(home: str) -> None:
    """Make `home` (0700, and any missing parent as the owner's) if missing."""
    old = os.umask(OWNER_UMASK)
    try:
        os.makedirs(home, mode=0o700, exist_ok=True)
    finally:
        os.umask(old)


def agent_group(home: str) -> int | None:
    """The agent's group that `redline serve --agent-group` noted, if any."""
    try:
        with open(os.path.join(home, "service", "agent-group"), encoding="ascii") as source:
            return int(source.read().strip())
    except (OSError, ValueError):
        return None


def allowed(relative: str, gid: int, directory: bool, shared_gid: int | None) -> int:
    """The permission bits an entry of the home may have."""
    base = 0o700 if directory else 0o600
    if shared_gid is not None and gid == shared_gid:
        base |= SHARED.get(relative, 0)
    return base


def _dedicated(home: str) -> bool:
    """Tighten only a directory of redline's own, never `/` or the user's home."""
    from redline.home import user_home

    real = os.path.realpath(home)
    return real not in ("/", os.path.realpath(user_home()))


def loose(home: str) -> list[tuple[str, int, int]]:
    """Every entry of `home` (itself included) with more permission bits than
    allowed: (path, its mode, the mode it should have). Symbolic links are
    neither followed nor changed."""
    found: list[tuple[str, int, int]] = []
    if not os.path.isdir(home) or not _dedicated(home):
        return found
    shared_gid = agent_group(home)

    def check(path: str, relative: str) -> bool:
        try:
            st = os.lstat(path)
        except OSError:
            return False
        if os.path.islink(path):
            return False
        directory = os.path.isdir(path)
        mode = st.st_mode & 0o777
        wanted = mode & allowed(relative, st.st_gid, directory, shared_gid)
        if wanted != mode:
            found.append((path, mode, wanted))
        return directory

    check(home, "")
    for root, dirs, files in os.walk(home):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(root, d))]
        for name in sorted(dirs) + sorted(files):
            path = os.path.join(root, name)
            check(path, os.path.relpath(path, home))
    return found


def tighten(home: str) -> list[tuple[str, int, int]]:
    """Take the extra bits off every loose entry; what could not be fixed
    (another user's file) is returned, for `redline doctor` to name."""
    left: list[tuple[str, int, int]] = []
    for path, mode, wanted in loose(home):
        try:
            os.chmod(path, wanted)
        except OSError:
            left.append((path, mode, wanted))
    return left


def secure(home: str) -> list[tuple[str, int, int]]:
    """At the start of the service or an install: the umask, the home made
    0700 if missing, and everything in it tightened."""
    owner_umask()
    make_home(home)
    return tighten(home)


def loose_note(left: list[tuple[str, int, int]], fix: str) -> str:
    """One line naming what others can reach, and how to fix it."""
    shown = ", ".join(f"`{path}` ({mode:o}, wants {wanted:o})" for path, mode, wanted in left[:3])
    more = f" and {len(left) - 3} more" if len(left) > 3 else ""
    return f"other users can reach {shown}{more}; {fix}"
