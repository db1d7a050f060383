"""Path words as bash and the kernel will see them, before the never-run
table is asked: the working directory's spellings (`$PWD/x`, `~+/x`,
`/proc/self/cwd/x`, `~-/x`), links that exist or that the same command makes
(`ln -s ~/.ssh k; cat k/id_rsa`), and a last component computed at run time
in a protected directory (`owner.$(echo sock)`: judged at its worst)."""

from __future__ import annotations

from collections.abc import Callable

from redline.gate import needles
from redline.gate.protected import canonical
from redline.shell import cwd_words, paths
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation
from redline.shell.model import DYNAMIC

TYPE_CHECKING = False  # not `typing`'s: kept off the hook's start (ADR 0004)
if TYPE_CHECKING:
    from redline.gate.never_run import Guard

# System directories, where no link leads back into a home (not resolved).
NO_LINKS = ("/usr/", "/bin/", "/sbin/", "/lib", "/proc/", "/sys/", "/dev/", "/opt/", "/var/lib/")


def respell(guard: Guard, value: str, raw: str, cwd: str | None, oldcwd: str | None) -> str:
    """`value` with a working-directory spelling replaced by the directory,
    and a run-time last component in a protected directory by the worst
    thing that directory holds."""
    here = cwd_words.spelled(raw or value, cwd, oldcwd) if cwd or oldcwd else None
    if here is not None:
        return here
    if DYNAMIC in value and value.startswith(("/", "~")):
        head, _, last = value.rpartition("/")
        if DYNAMIC not in head and head:
            worst = _worst_in(guard, paths.normalize(head, cwd) or head, last.split(DYNAMIC)[0])
            if worst is not None:
                return worst
    return value


def _worst_in(guard: Guard, directory: str, prefix: str) -> str | None:
    """A protected file directly in `directory` whose name starts with
    `prefix` (not empty), or any name in a directory only of secrets: what
    a computed name may stand for."""
    where = guard.canon(directory + "/" + (prefix or "x")) if prefix else guard.canon(directory)
    if where is None:
        return None
    base = where.rsplit("/", 1)[0] if prefix else where
    for entry in guard.table.entries if prefix else ():
        head, _, name = entry.path.rpartition("/")
        if head == base and name.startswith(prefix) and not paths.is_glob(name):
            return entry.path
    probe = f"{base}/{prefix}x"
    if guard.table.lookup(probe, False) is not None:
        return probe  # a tree of secrets (`~/.ssh/id_$(echo rsa)`)
    return None


def made_links(analysis: Analysis, before: int) -> dict[str, str]:
    """Links the command makes before invocation `before` (`ln -s TARGET
    LINK`): the link's path to where it leads, a relative target read from
    the link's directory."""
    links: dict[str, str] = {}
    for inv in analysis.invocations[:before]:
        if inv.name != "ln" or not any(v.startswith("-") and "s" in v for v in inv.values):
            continue
        operands = [w.value for w in inv.options.operands]
        if len(operands) < 2 or any(DYNAMIC in o for o in operands[:2]):
            continue
        target, link = operands[0], paths.normalize(operands[1], inv.cwd)
        if link is None or not link.startswith(("/", "~")):
            continue
        where = paths.normalize(target, link.rsplit("/", 1)[0] or "/")
        if where is not None and where.startswith(("/", "~")):
            links[link] = where
    return links


class _FirstLink:
    """The index of the analysis's first `ln`, found once per analysis (not
    once per invocation: a makefile's recipes are thousands of them)."""

    entry: tuple[Analysis, int | None] | None = None  # one attribute: thread-safe


def _first_link(analysis: Analysis) -> int | None:
    entry = _FirstLink.entry
    if entry is not None and entry[0] is analysis:
        return entry[1]
    index = next((i.index for i in analysis.invocations if i.name == "ln"), None)
    _FirstLink.entry = (analysis, index)
    return index


def link_fixer(analysis: Analysis, inv: Invocation) -> Callable[[str, str | None], str]:
    """A function giving a path word of `inv` with the links made earlier
    in the command followed (identity when it makes none)."""
    first = _first_link(analysis)
    links = made_links(analysis, inv.index) if first is not None and first < inv.index else {}

    def fix(value: str, cwd: str | None) -> str:
        if not links:
            return value
        normal = paths.normalize(value, cwd)
        if normal is None:
            return value
        for link, target in links.items():
            if normal == link or normal.startswith(link + "/"):
                return target + normal[len(link) :]
        return value

    return fix


def may_hide(guard: Guard, inv: Invocation, analysis: Analysis) -> bool:
    """Could a word name a protected path through a link (existing or made
    by the command) or a spelling of the working directory? One lookup per
    distinct directory, and none for words without a `/`."""
    fix = link_fixer(analysis, inv)
    seen: dict[str, str | None] = {}
    cwd = inv.cwd
    words = [(w.value, w.raw) for w in inv.argv[1:]]
    words += [(r.target.value, r.target.raw) for r in inv.redirects if r.target is not None]
    moved = cwd is not None and cwd != analysis.cwd
    for value, raw in words:
        here = cwd_words.spelled(raw or value, cwd, inv.oldcwd)
        if here is not None:
            value = here
        elif "/" not in value and not moved:
            continue
        if not value.startswith(("/", "~", ".")):  # `--x=PATH`, `UNIX-CONNECT:PATH`
            cut = max(value.find("=/"), value.find(":/"))
            value = value[cut + 1 :] if cut >= 0 else value
        value = fix(value, cwd)
        normal = paths.normalize(value, cwd)
        if normal is None:
            continue
        if needles.names_any(guard.needles, normal.lower()):
            return True
        if not normal.startswith("/") or normal.startswith(NO_LINKS):
            continue
        # The path itself when it exists (a link to a key), else its directory.
        head = normal.rsplit("/", 1)[0]
        for place in (normal, head) if head else (normal,):
            if place not in seen:
                seen[place] = guard.world.resolve(place)
            real = seen[place]
            if real and real != place and needles.names_any(guard.needles, real.lower()):
                return True
            if real:
                break
    return False


def read_through(guard: Guard, path: str) -> str:
    """A path read or connected to, with a link at its end followed (`cat
    /tmp/k` where `/tmp/k` leads to a key); unchanged when it is protected
    itself or leads nowhere else."""
    if guard.table.lookup(path, False) is not None:
        return path
    home = guard.places.home
    here = home.rstrip("/") + path[1:] if path.startswith("~") else path
    if not here.startswith("/") or here.startswith(NO_LINKS):
        return path
    real = guard.world.resolve(here)
    return canonical(real, home) if real and real != here else path
