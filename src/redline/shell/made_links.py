"""Symbolic links made earlier in the same command (issue #13: a target that
can be the home, a system folder or a device): `ln -s ~ h; rm -rf h/`,
`ln -s /dev/sda d; dd if=/dev/zero of=d`. The kernel follows the link; the
rules must see where it leads. The analysis records each link it sees made,
in the order the shell runs the commands, and gives every later invocation
the links made before it (`Invocation.links`).
"""

from __future__ import annotations

from redline.shell import paths
from redline.shell.disk_copies import copy_operands
from redline.shell.invocation import Invocation
from redline.shell.model import DYNAMIC

# Normalised link path -> normalised path it leads to.
Links = dict[str, str]
# Programs that make links, and their flags that make one (`ln -s`, `cp -s`, `cp -l`).
_LINKERS = {"ln": ("s", ("symbolic",)), "cp": ("sl", ("symbolic-link", "link"))}
_GNU = {"gln": "ln", "gcp": "cp"}
MAKERS = frozenset({*_LINKERS, *_GNU})
# Links that lead to links are followed this many times.
_MAX_HOPS = 8
# Programs that act on the link itself when it is named without a trailing
# `/` (`rm -rf h` removes the link, not what it leads to).
_ON_THE_LINK = frozenset({"rm", "unlink", "mv", "ln", "cp", "rsync", "tar", "lstat"})


def made(links: Links, inv: Invocation) -> Links:
    """`links` with those `inv` makes (a new dict when it makes any)."""
    name = _GNU.get(inv.name, inv.name)
    if name not in _LINKERS or inv.remote or not inv.has_flag(*_LINKERS[name]):
        return links
    if name == "cp" and inv.has_flag("rRa", ("recursive", "archive")):
        return links  # a new tree of links: removing it leaves the source whole
    parsed = copy_operands(name, inv.values)
    if parsed is None and name == "ln":  # `ln -s /home`: the link is made here, by its name
        operands = [w.value for w in inv.options.operands]
        parsed = (operands, ".", True) if len(operands) == 1 else None
    if parsed is None:
        return links
    targets, where, into = parsed
    added: Links = {}
    for target in targets:
        base = target.rstrip("/").rsplit("/", 1)[-1]
        if into or len(targets) > 1 or where.endswith("/"):
            link_value = where.rstrip("/") + "/" + base
        else:
            link_value = where
        link = _normal(link_value, inv.cwd)
        if link is None:
            continue
        # A symbolic link's relative target is read from the link's folder (`-r`: from here).
        relative = inv.has_flag("s", ("symbolic", "symbolic-link"))
        relative = relative and not (name == "ln" and inv.has_flag("r", ("relative",)))
        if relative and not target.startswith(("/", "~")) and "/" in link:
            target = link.rsplit("/", 1)[0] + "/" + target
        leads = _normal(target, inv.cwd)
        if leads is not None:
            added[link] = leads
    return {**links, **added} if added else links


def follow(path: str, links: Links | None, whole: bool = True) -> str:
    """`path` with the links made before followed: a path under a link
    always; the link itself only when `whole` (it is opened, not removed)."""
    if not links:
        return path
    for _ in range(_MAX_HOPS):
        for link, leads in links.items():
            if path.startswith(link + "/") or (whole and path == link):
                path = leads + path[len(link) :]
                break
        else:
            return path
    return path


def follows_word(inv: Invocation, value: str) -> bool:
    """Whether `inv` given `value` acts on what a link there leads to."""
    return value.endswith(("/", "/.")) or inv.name not in _ON_THE_LINK


def _normal(value: str, cwd: str | None) -> str | None:
    if not value or DYNAMIC in value or paths.is_glob(value):
        return None
    return paths.normalize(value, cwd)
