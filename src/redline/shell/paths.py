"""Normalising path targets before rules judge them (F-SHELL-6).

`/`, `//`, `/./`, `/..`, `~`, `$HOME`, `${HOME}/`, trailing slashes and
relative paths against a known working directory all reduce to one spelling:
`/...` for absolute paths, `~` or `~/...` for the home directory, and a
relative path when the working directory is unknown. `None` means the path
starts with something computed at run time.
"""

from __future__ import annotations

from redline.shell import globs
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC

GLOB_CHARS = frozenset("*?[")

# Directories whose loss breaks the machine (a recursive delete is a hard line).
SYSTEM_DIRS = frozenset(
    {"/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/libx32",
     "/opt", "/proc", "/root", "/run", "/sbin", "/srv", "/sys", "/usr", "/var", "/snap",
     "/usr/bin", "/usr/sbin", "/usr/lib", "/usr/lib64", "/usr/libexec", "/usr/share",
     "/usr/include", "/usr/local", "/usr/local/bin", "/usr/local/lib", "/usr/src",
     "/var/lib", "/var/log", "/var/cache", "/var/spool", "/var/mail", "/var/db", "/var/www",
     "/etc/ssh", "/etc/ssl", "/etc/systemd", "/etc/pam.d", "/etc/sudoers.d",
     "/boot/efi", "/boot/grub", "/mnt", "/media", "/System", "/Library", "/Applications",
     "/Users", "/Volumes", "/private", "/private/etc", "/private/var", "/cores"}
)  # fmt: skip
_SYSTEM_LOWER = frozenset(d.lower() for d in SYSTEM_DIRS)
_HOME_PARENTS = ("/home/", "/Users/")
HOME_PREFIXES = ("/home/", "/Users/", "/root", "/var/root")
"""How every spelling of a path in a user's home begins: a cheap test before
the home patterns (which then need not compile, ADR 0003)."""
_USER_HOME = lazy_regex(r"\A(?:/home/[^/]+|/Users/[^/]+|/root|/var/root)\Z")


def normalize(value: str, cwd: str | None = None) -> str | None:
    """The canonical spelling of a path target; `None` if it starts dynamic."""
    if not value or value.startswith(DYNAMIC):
        return None
    if value.startswith("~"):
        head, _, rest = value.partition("/")
        if head == "~" or head == "~" + DYNAMIC:
            base, parts = "~", rest
        else:  # `~user`
            base, parts = "/", "home/" + head[1:] + ("/" + rest if rest else "")
    elif value.startswith("/"):
        base, parts = "/", value
    elif cwd and cwd.startswith("/"):
        base, parts = "/", cwd + "/" + value
    elif cwd and cwd.startswith("~"):
        base, parts = "~", cwd[1:] + "/" + value
    else:
        base, parts = ".", value
    stack: list[str] = []
    for part in parts.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if stack and stack[-1] != "..":
                stack.pop()
            elif base == "~":
                base, stack = "/", ["home"]
            elif base == ".":
                stack.append("..")
            continue
        stack.append(part)
    if base == "/":
        return "/" + "/".join(stack)
    if base == "~":
        return "~" + ("/" + "/".join(stack) if stack else "")
    return "/".join(stack) or "."


def is_glob(path: str) -> bool:
    return any(c in GLOB_CHARS for c in path) or globs.is_extglob(path)


def _matches_any(pattern: str, names: frozenset[str]) -> bool:
    """A glob pattern (`/e*`, `/[u]sr`) that could name one of `names`."""
    return any(globs.matches(pattern.lower(), name.lower()) for name in names)


def _contents_of(path: str) -> str | None:
    """For `/etc/*` (everything inside a directory), the directory."""
    head, slash, last = path.rpartition("/")
    if not slash or not path.startswith(("/", "~")):
        return None
    if last and all(c in GLOB_CHARS or c == "." for c in last) and "*" in last:
        return head or "/"
    return None


def could_name(path: str, names: frozenset[str]) -> bool:
    """A glob (`/e?c`, `/u*r`, `/[e]tc`) that could match one of `names`
    at the same depth: judged as that target, its worst."""
    return path.startswith("/") and is_glob(path) and any(globs.matches(path, n) for n in names)


def is_root(path: str) -> bool:
    """`/` itself, or everything directly in it (`/*`, `/ *`)."""
    return path == "/" or _contents_of(path) == "/"


def is_system_dir(path: str) -> bool:
    """A system directory itself or all of its contents, case-insensitively
    (some filesystems are), including glob spellings that could name one."""
    if is_root(path):
        return True
    target = _contents_of(path) or path
    if target.lower() in _SYSTEM_LOWER:
        return True
    return (
        target.startswith("/") and is_glob(target) and target.count("/") <= 2
        and _matches_any(target, SYSTEM_DIRS)
    )  # fmt: skip


def is_home_dir(path: str) -> bool:
    """The home directory (`~`, `/home/me`, `/root`) itself or all of its contents."""
    target = _contents_of(path) or path
    if target == "~" or (target.startswith(HOME_PREFIXES) and _USER_HOME.match(target)):
        return True
    return is_glob(target) and target.startswith(_HOME_PARENTS) and target.count("/") == 2


def is_under(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")
