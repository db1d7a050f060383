"""Archives on disk unpacked into a folder (attack round 5, section 4:
`cpio -idv < hooks.cpio`, `tar -xf h.tar`, `unzip h.zip`): the catalogue
asks an extraction into a folder whose files run later (`tar -C .git/hooks`),
but an archive names its members itself. The gate lists them (it extracts
nothing) and asks for a member that a tool runs without anyone naming it: a
git hook (`.git/hooks/NAME`, `.githooks`, `.husky`), anything inside a
`.git` folder (its config runs commands), an `.envrc`, an agent's settings or
MCP servers (`.claude/settings.json`, `.mcp.json`).

A source tarball's own `Makefile` or CI workflow is what unpacking it is
for, and runs only when someone runs `make` or pushes (each judged then):
those members are not asked. An archive the gate cannot list (missing when
judged, another format, over `MAX_ARCHIVE`) is judged by the command line.
"""

from __future__ import annotations

from redline.decision import RuleHit
from redline.rules import argv
from redline.runs_later import places
from redline.runs_later.placed_moves import stdin_sources
from redline.shell import paths
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation
from redline.shell.model import DYNAMIC

TYPE_CHECKING = False  # not `typing`'s: kept off the hook's start (ADR 0004)
if TYPE_CHECKING:
    from redline.gate.never_run import Guard

_TARS = frozenset({"tar", "gtar", "bsdtar"})
_UNPACKERS = _TARS | {"cpio", "unzip"}
_TAR_VALUED = ("fCbTXIgKNVLFH", ("file", "directory", "exclude", "exclude-from", "files-from",
                                 "transform", "xform", "use-compress-program", "to-command",
                                 "owner", "group", "mode", "format", "newer", "label"))  # fmt: skip
_CPIO_VALUED = ("DEFHIMORcs", ("directory", "file", "format", "pattern-file", "message", "owner",
                               "io-size", "block-size", "rsh-command"))  # fmt: skip


def hits(analysis: Analysis, guard: Guard) -> tuple[RuleHit, ...]:
    """A `later.unseen` hit for each extraction whose archive holds a file
    that runs unnamed."""
    found: list[RuleHit] = []
    for inv in analysis.invocations:
        if inv.name not in _UNPACKERS or inv.remote:
            continue
        unpacked = _unpacked(inv, analysis)
        if unpacked is None:
            continue
        archive, folder = unpacked
        path = _absolute(archive, inv.cwd, guard)
        names = guard.world.archive_members(path) if path is not None else None
        base = paths.normalize(folder, inv.cwd)
        if not names or base is None or DYNAMIC in base:
            continue
        hidden = [n for n in names if _runs_unnamed(f"{base.rstrip('/')}/{_relative(n)}")]
        if hidden:
            found.append(_unseen(inv, archive, hidden[0]))
    return tuple(found)


def _unpacked(inv: Invocation, analysis: Analysis) -> tuple[str, str] | None:
    """The archive file an extraction reads and the folder it unpacks into."""
    values = list(inv.values)
    if inv.name in _TARS:
        if values and not values[0].startswith("-"):
            values[0] = "-" + values[0]  # `tar xf F`: the old bundled spelling
        args = argv.parse(values, *_TAR_VALUED)
        if not args.has("-x", "--extract", "--get") or args.has("-O", "--to-stdout"):
            return None
        files = [f for f in args.value("-f", "--file") if f != "-"]
        folder = (args.value("-C", "--directory") or (".",))[-1]
    elif inv.name == "cpio":
        args = argv.parse(values, *_CPIO_VALUED)
        if not args.has("-i", "--extract") or args.has("-t", "--list"):
            return None
        files = list(args.value("-F", "-I", "--file"))
        folder = (args.value("-D", "--directory") or (".",))[-1]
    else:
        args = argv.parse(values, "dxP", ())
        if args.has("-l", "-p", "-t", "-v", "-Z", "-c") or not args.operands:
            return None
        files = [args.operands[0]]
        folder = (args.value("-d") or (".",))[-1]
    if not files:
        files = list(stdin_sources(inv, analysis) or ())
    return (files[-1], folder) if files else None


def _absolute(name: str, cwd: str | None, guard: Guard) -> str | None:
    path = paths.normalize(name, cwd)
    if path is None or DYNAMIC in path:
        return None
    if path.startswith("~"):
        home = guard.places.home.rstrip("/")
        path = home + path[1:] if home else ""
    return path if path.startswith("/") else None


def _relative(member: str) -> str:
    """A member's path under the folder (tar and cpio drop a leading `/` and `./`)."""
    while member.startswith(("./", "/")):
        member = member[2:] if member.startswith("./") else member[1:]
    return member


def _runs_unnamed(path: str) -> bool:
    from redline.rules.sensitive_places import family_of

    # an agent's settings and MCP servers (`.claude/settings.json`, `.mcp.json`) run commands too
    return places.runs_unnamed(path) or "/.git/" in path or family_of(path) == "agent-config"


def _unseen(inv: Invocation, archive: str, member: str) -> RuleHit:
    from redline.rules.catalog import resolve

    description = (
        f"unpacks `{archive}`, which holds `{member}`: a file a tool runs later without being "
        "named (a git hook, a git config, an `.envrc`, an agent's settings), its content unseen"
    )
    rule = resolve("later.unseen")
    if rule is None:  # the catalogue always has it; fail closed all the same
        from redline.decision import Severity

        return RuleHit("later.unseen", description, Severity.DANGEROUS, "later", inv.span)
    return RuleHit(rule.id, description, rule.severity, rule.category, inv.span, rule.repair)
