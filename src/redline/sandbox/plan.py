"""What a sandboxed run may touch: the places, worked out once from the cwd,
the environment and the policy, for either backend (bubblewrap or Landlock).

- writable: the workspace (the git root of the cwd, else the cwd), the temp
  directories, the package managers' caches and the policy's `sandbox.writable`;
- hidden: the owner's credentials (the never-run list of `gate.protected`)
  and the gate's own home (`$REDLINE_HOME`);
- read-only even inside a writable place: the agents' hook configuration
  (the workspace's `.claude`, `.codex`, `.gemini`, `.hermes` folders whole)
  and what git would run later (`.git/config`, `.git/hooks`, a submodule's or
  a linked worktree's own config and `commondir`);
- everything else: read-only.

A mount point cannot be renamed or removed (EBUSY), which is what keeps a
read-only or hidden place from being swapped for one the command made: so the
workspace's guard folders are made (empty) when missing, and `pinned` lists
the folders on the way to each place that a writable place holds, which the
namespace sandbox binds onto themselves.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
from collections.abc import Iterable, Mapping

from redline.fasttuple import NamedTuple
from redline.policy.model import RunSettings
from redline.sandbox.pids import DEFAULT_MAX_PROCS

TEMP_DIRS = ("/tmp", "/var/tmp")  # noqa: S108 - the host's temp dirs, shared on purpose
CACHE_DIRS = (
    "~/.cache", "~/.npm", "~/.cargo/registry", "~/.cargo/git", "~/.local/share/uv",
    "~/.local/share/pnpm", "~/.local/share/virtualenv", "~/.m2/repository", "~/.gradle/caches",
    "~/go/pkg/mod", "~/.rustup/downloads",
)  # fmt: skip
# The agents' hook configuration, under the home and under the workspace.
HOOK_CONFIG_HOME = (
    "~/.claude/settings.json", "~/.claude/settings.local.json", "~/.claude/hooks",
    "~/.codex/config.toml", "~/.codex/hooks.json", "~/.gemini/settings.json",
)  # fmt: skip
# Bound read-only as folders (made empty when missing): a folder that is a
# mount point cannot be renamed away and made again with new settings in it.
GUARD_FOLDERS = (".claude", ".codex", ".gemini", ".hermes")
# What git reads from its own directory and may run: config (`core.fsmonitor`,
# `core.hooksPath`, filters...), hooks, and `commondir` (where config is read).
GIT_GUARDED = ("config", "config.worktree", "hooks", "commondir")
_GIT_NESTED = ("modules", "worktrees")
_GIT_DEPTH = 4
# Where the owner's local services usually listen (`{uid}`: the user's id):
# a path socket ignores the network namespace, and `connect` is not a write.
SOCKET_PLACES = (
    *(TEMP_DIRS[0] + name for name in ("/tmux-{uid}", "/.X11-unix", "/screens")),
    "/run/user/{uid}", "/run/screen", "/var/run/screen", "/run/docker.sock", "/var/run/docker.sock",
    "/run/containerd", "/run/podman", "/run/dbus/system_bus_socket", "/run/systemd/private",
)  # fmt: skip
HERMES_FILES = (".env", "auth.json", "config.yaml", "agent-hooks", "approval", "scripts")


class Plan(NamedTuple):
    """Absolute, existing paths only; `hidden` holds (path, is_directory)."""

    cwd: str
    workspace: str
    writable: tuple[str, ...]
    hidden: tuple[tuple[str, bool], ...]
    read_only: tuple[str, ...]
    network: bool = True
    max_procs: int = DEFAULT_MAX_PROCS
    sockets: tuple[tuple[str, bool], ...] = ()
    """The owner's service sockets, hidden like `hidden` by the namespace
    sandbox (Landlock cannot refuse a `connect`: not there)."""


def workspace_of(cwd: str) -> str:
    """The git root of `cwd` (a directory holding `.git`), else `cwd`."""
    here = cwd
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return cwd
        here = parent


def _expand(path: str, home: str) -> str:
    if path == "~" or path.startswith("~/"):
        path = home.rstrip("/") + path[1:]
    return os.path.normpath(path)


def _existing(paths: Iterable[str]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for path in paths:
        if os.path.lexists(path) and path not in seen:
            seen[path] = None
    return tuple(seen)


def credential_paths(
    home: str, redline_home: str, hermes_home: str
) -> tuple[tuple[str, bool], ...]:
    """The owner's credentials and the gate's home, as they exist here: a
    directory is hidden whole, except `~/.ssh`, where only what the gate
    refuses to read (private keys, not `*.pub` or `known_hosts`) is hidden."""
    from redline.gate.protected import NeverRunKind, Places, build_table

    found: list[tuple[str, bool]] = []
    for entry in build_table(Places(home=home)):
        if entry.kind is not NeverRunKind.CREDENTIALS or not entry.path.startswith("~/"):
            continue
        path = _expand(entry.path, home)
        if not os.path.lexists(path):
            continue
        if entry.tree and entry.read_ok and os.path.isdir(path):
            for name in sorted(os.listdir(path)):
                if not any(fnmatch.fnmatchcase(name, p) for p in entry.read_ok):
                    inner = os.path.join(path, name)
                    found.append((os.path.realpath(inner), os.path.isdir(inner)))
        else:
            found.append((os.path.realpath(path), os.path.isdir(path)))
    for name in HERMES_FILES[:2]:
        path = os.path.join(hermes_home, name)
        if os.path.lexists(path):
            found.append((os.path.realpath(path), os.path.isdir(path)))
    if os.path.isdir(redline_home):
        found.append((os.path.realpath(redline_home), True))
    return tuple(dict.fromkeys(found))


def socket_places(
    environ: Mapping[str, str], kept: Iterable[str] = ()
) -> tuple[tuple[str, bool], ...]:
    """The owner's local service sockets as they exist here, to be hidden:
    the usual places, `$XDG_RUNTIME_DIR` and `$SSH_AUTH_SOCK`; but not one
    holding the socket of a variable in `kept` (the policy's `env.pass` let
    it through: the owner wants it reachable)."""
    # No scan of `/tmp` for other `ssh-*` agents: a shared `/tmp` can hold
    # thousands of entries, ~1 ms for every hook; the owner's own agent is
    # the one `$SSH_AUTH_SOCK` names.
    found = [place.format(uid=os.getuid()) for place in SOCKET_PLACES]
    for name in ("XDG_RUNTIME_DIR", "SSH_AUTH_SOCK"):
        value = environ.get(name, "")
        if os.path.isabs(value):
            found.append(value)
    wanted = [
        os.path.realpath(value)
        for name in kept
        if os.path.isabs(value := environ.get(name, "").split(",")[0])
    ]
    out: dict[tuple[str, bool], None] = {}
    for path in found:
        if not os.path.lexists(path):
            continue
        real = os.path.realpath(path)
        if real in ("/", "/tmp", "/var/tmp", "/run") or not os.path.exists(real):  # noqa: S108
            continue
        if not any(_under(socket, real) for socket in wanted):
            out[(real, os.path.isdir(real))] = None
    return tuple(out)


def make_plan(
    cwd: str,
    environ: Mapping[str, str],
    settings: RunSettings | None = None,
    *,
    network: bool | None = None,
    temp_dirs: Iterable[str] | None = None,
    max_procs: int = DEFAULT_MAX_PROCS,
    kept_sockets: Iterable[str] = (),
) -> Plan:
    """The plan for a run in `cwd`; `kept_sockets`: the variables the
    policy's `env.pass` let through, whose sockets stay reachable."""
    from redline.home import home_dir, user_home

    settings = settings or RunSettings()
    home = user_home(environ)
    cwd = os.path.realpath(cwd)
    workspace = workspace_of(cwd)
    redline_home = os.path.realpath(home_dir(environ))
    hermes = _expand(environ.get("HERMES_HOME", "").strip() or "~/.hermes", home)
    if temp_dirs is None:
        temp_dirs = (*TEMP_DIRS, environ.get("TMPDIR", "") or "/tmp")  # noqa: S108
    asked = [_expand(p, home) for p in (workspace, *temp_dirs, *CACHE_DIRS, *settings.writable)]
    resolved = [os.path.realpath(p) for p in asked]
    writable = _existing(
        real
        for path, real in zip(asked, resolved, strict=True)
        if path == workspace or not _swappable(path, resolved)
    )
    # `$HOME` and `$REDLINE_HOME` are the caller's to set: the account's own
    # home and its default gate home are hidden too.
    account = _account_home()
    hidden = tuple(
        dict.fromkeys(
            (
                *credential_paths(home, redline_home, hermes),
                *(
                    credential_paths(account, os.path.join(account, ".redline"), hermes)
                    if account and os.path.realpath(account) != os.path.realpath(home)
                    else ()
                ),
            )
        )
    )
    # The gate's home is hidden even where a writable place holds it.
    writable = tuple(p for p in writable if not _under(p, redline_home))
    read_only = _existing(
        (
            *(_expand(p, home) for p in HOOK_CONFIG_HOME),
            *guard_folders(workspace),
            *git_guarded(os.path.join(workspace, ".git")),
            *(os.path.join(hermes, p) for p in HERMES_FILES[2:]),
        )
    )
    return Plan(
        cwd=cwd,
        workspace=workspace,
        writable=writable,
        hidden=hidden,
        read_only=read_only,
        network=settings.network if network is None else network,
        max_procs=max_procs,
        sockets=tuple(s for s in socket_places(environ, kept_sockets) if s not in hidden),
    )


def guard_folders(workspace: str) -> tuple[str, ...]:
    """The workspace's agent configuration folders, made empty when missing
    (an empty `.claude/` and the like is what a run leaves in a workspace
    that had none); a symlink is left as it is, its target bound."""
    out: list[str] = []
    for name in GUARD_FOLDERS:
        path = os.path.join(workspace, name)
        try:
            os.mkdir(path, 0o755)
        except FileExistsError:
            pass
        except OSError:
            continue  # a read-only workspace: nothing there to swap either
        if os.path.isdir(path):
            out.append(os.path.realpath(path))
    return tuple(out)


def git_guarded(git_dir: str, depth: int = 0) -> tuple[str, ...]:
    """What git may run from `git_dir` and from its submodules' and linked
    worktrees' own directories beneath it; `hooks` is made when missing."""
    if not os.path.isdir(git_dir) or os.path.islink(git_dir) or depth > _GIT_DEPTH:
        return ()
    hooks = os.path.join(git_dir, "hooks")
    if depth == 0 and not os.path.lexists(hooks):
        with contextlib.suppress(OSError):
            os.mkdir(hooks, 0o755)
    out = [os.path.join(git_dir, name) for name in GIT_GUARDED]
    for nested in _GIT_NESTED:
        folder = os.path.join(git_dir, nested)
        try:
            names = sorted(os.listdir(folder)) if not os.path.islink(folder) else []
        except OSError:
            names = []
        for name in names:
            out.extend(git_guarded(os.path.join(folder, name), depth + 1))
    return tuple(out)


def pinned(plan: Plan) -> tuple[str, ...]:
    """The folders on the way to each of the plan's places that lie inside a
    writable place: bound onto themselves, they become mount points, which
    cannot be renamed away (and a place made again where they were)."""
    places = {*plan.writable, *plan.read_only, *(path for path, _ in plan.hidden)}
    out: dict[str, None] = {}
    for place in sorted(places):
        parent = os.path.dirname(place)
        while parent not in places and parent != os.path.dirname(parent):
            if any(parent != w and _under(parent, w) for w in plan.writable):
                out[parent] = None
            parent = os.path.dirname(parent)
    return tuple(out)


# Never a workspace: the system's own folders (and anything in the first ones).
_SYSTEM_TREES = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
                 "/boot", "/dev", "/proc", "/sys")  # fmt: skip
_SYSTEM_FOLDERS = ("/var", "/opt", "/srv", "/run", "/mnt", "/media", "/snap", "/nix", "/root")
# In the home, the folders that hold what runs later (startup files, units,
# programs on PATH, the agents' settings): never a workspace, nor in one.
_HOME_TREES = ("~/.config", "~/.local", "~/.ssh", "~/.gnupg", "~/.claude", "~/.codex",
               "~/.gemini", "~/.hermes", "~/.redline")  # fmt: skip


def workspace_refusal(cwd: str, environ: Mapping[str, str]) -> str | None:
    """Why the workspace of a run in `cwd` may not be made writable, or
    `None`: `/`, a system folder, the home (the caller's or the account's),
    a folder holding it or the gate's home, or a dot-folder of the home. The
    cwd is the agent's to choose (`cd`, Hermes's `workdir`): this is what
    keeps it from choosing the home as what the sandbox lets it write."""
    from redline.home import home_dir, user_home

    workspace = workspace_of(os.path.realpath(cwd))
    if workspace == "/":
        return "the workspace would be `/`, the whole filesystem"
    if any(_under(workspace, t) for t in _SYSTEM_TREES) or workspace in _SYSTEM_FOLDERS:
        return f"the workspace would be `{workspace}`, a system folder"
    homes = {os.path.realpath(h) for h in (user_home(environ), _account_home()) if h}
    kept = {*homes, os.path.realpath(home_dir(environ))}
    for place in sorted(kept):
        if _under(place, workspace):
            return f"the workspace would be `{workspace}`, which holds `{place}`"
    for home in sorted(homes):
        if os.path.dirname(workspace) == home and os.path.basename(workspace).startswith("."):
            return f"the workspace would be `{workspace}`, a dot-folder of the home"
        for tree in _HOME_TREES:
            if _under(workspace, _expand(tree, home)):
                return f"the workspace would be `{workspace}`, inside `{_expand(tree, home)}`"
    return None


def _swappable(path: str, writable: Iterable[str]) -> bool:
    """Whether the way to `path` goes through a symlink that a writable place
    holds: an earlier run could have made it (after renaming its folder away)
    to have this run bind its target, the home say, writable. Such a place
    is left read-only."""
    here = "/"
    for part in os.path.normpath(path).split("/"):
        if not part:
            continue
        here = os.path.join(here, part)
        if os.path.islink(here):
            where = os.path.join(os.path.realpath(os.path.dirname(here)), part)
            if any(_under(where, w) and where != w for w in writable):
                return True
            here = os.path.realpath(here)
    return False


def _account_home() -> str:
    import pwd

    try:
        return pwd.getpwuid(os.getuid()).pw_dir
    except KeyError:
        return ""


def _under(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent.rstrip("/") + "/")
