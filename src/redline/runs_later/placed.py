"""Files that run later put in place whole (issues 13/18): copied, moved,
linked, extracted, downloaded or generated into a git hook, a Makefile, a
CI workflow, a unit... (`cp -r /tmp/x .git/hooks`, `cat /tmp/x > Makefile`,
`tar -xf h.tar -C .git/hooks`). What the judge needs is their content:

- known when this command line wrote it first (`printf ... > /tmp/x && cp
  /tmp/x .git/hooks/pre-commit`): judged as if written directly;
- readable when the sources are files the gate can read at judging time
  (`gate/placed_reads.py` reads them and judges their text);
- else unseen: a download, an archive, a program's output, a folder, a
  link (its other name can change it later unseen): asked.
"""

from __future__ import annotations

from redline.fasttuple import NamedTuple
from redline.runs_later import places
from redline.runs_later.placed_moves import PLACERS as PLACERS
from redline.runs_later.placed_moves import Move, moves
from redline.shell import paths
from redline.shell.invocation import Invocation
from redline.shell.model import DYNAMIC

TYPE_CHECKING = False  # not `typing`'s: kept off the hook's start (ADR 0004)
if TYPE_CHECKING:
    from redline.shell.analysis import Analysis

# Where nothing can be read from at judging time.
_UNREADABLE = ("/dev/", "/proc/", "/sys/")


class Placement(NamedTuple):
    """A file (or folder) that runs later, put in place by an invocation.

    `text` is its content when this command line wrote it; `sources` the
    files the gate may read for it (`()`: none can tell, so it is unseen);
    `how` says how it got there; `whole` is false for text appended."""

    path: str
    text: str | None
    sources: tuple[str, ...]
    how: str
    whole: bool = True
    # A folder the sources go into: known when every source is a file (each
    # judged by its own name), unseen when one is a folder.
    folder: bool = False


def may_place(inv: Invocation) -> bool:
    """A cheap first test: `inv` runs a placer or writes through a redirect."""
    if inv.name in PLACERS:
        return True
    redirects = inv.redirects  # most invocations have none: no generator for them
    return bool(redirects) and any(r.writes for r in redirects)


def unseen(placement: Placement) -> bool:
    """Its content is not known from the command line: a link's never is
    (its other name can change it later, unseen)."""
    return placement.text is None or placement.how == "linked"


class _Last:
    """The last invocation read and its placements: the rules share one
    reading. One attribute, set at once: threads never see half of it."""

    entry: tuple[Invocation, tuple[Placement, ...]] | None = None


def placements(inv: Invocation, analysis: Analysis) -> tuple[Placement, ...]:
    """What `inv` puts into files that run later, with their content when
    known. Text the analysis already reads (`echo CMD > hook`) is left out:
    the `later.*` rules judge it."""
    if not may_place(inv) or inv.remote:
        return ()
    entry = _Last.entry
    if entry is not None and entry[0] is inv:
        return entry[1]
    found = tuple(_placements(inv, analysis))
    _Last.entry = (inv, found)
    return found


def _placements(inv: Invocation, analysis: Analysis) -> list[Placement]:
    found_moves = moves(inv, analysis)
    if not found_moves:
        return []
    written = _before(analysis, inv) if any(m.sources for m in found_moves) else {}
    found: list[Placement] = []
    for move in found_moves:
        found.extend(_placed(move, inv.cwd, written))
    return found


def _placed(move: Move, cwd: str | None, written: dict[str, str | None]) -> list[Placement]:
    target = paths.normalize(move.destination, cwd)
    if target is None or DYNAMIC in target:
        target = _stand_in(move.destination)
        if target is None:
            return []
    sources = [] if move.sources is None else [_normal(s, cwd) for s in move.sources]
    found: list[Placement] = []
    link = move.how == "linked"
    if move.anywhere:
        return [Placement(target, None, (), move.how)]
    if not move.folder and places.runs_unseen(target):  # the destination as the file itself
        text, readable = _content(sources, written) if move.sources is not None else (None, ())
        text = move.text if move.text is not None else text
        found.append(Placement(target, text, () if link else readable, move.how, move.whole))
    if move.folder or (move.maybe and _may_be_folder(move.destination)):
        for source in sources:  # each source goes into the folder by its name
            name = source.rstrip("/").rsplit("/", 1)[-1]
            inside = f"{target}/{name}"
            if name not in (".", "..", DYNAMIC) and places.runs_unseen(inside):
                text, readable = _content([source], written)
                found.append(Placement(inside, text, () if link else readable, move.how))
    named = bool(sources) and DYNAMIC not in sources  # `cp /tmp/h/* .git/hooks/`: not
    if (move.folder or move.tree or (move.maybe and not named)) and places.holds_later(target):
        # A folder whose files run later: what the sources put there is
        # known when they are all files (each judged above by its name).
        texts = [_text_of(s, written) for s in sources]
        on_disk = tuple(s for s, t in zip(sources, texts, strict=True) if t is _ON_DISK)
        if link or not sources or None in texts:
            found.append(Placement(target, None, (), move.how, True, True))
        elif on_disk:
            found.append(Placement(target, None, on_disk, move.how, True, True))
        found.extend(_written_under(sources, target, written, move.how))
    return found


# Git's hooks, by name: a computed folder's `hooks/NAME` is taken for `.git/hooks/NAME`
# (`cp x "$(git rev-parse --git-dir)/hooks/pre-commit"`).
_HOOK_NAMES = frozenset({"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit",
                         "pre-push", "pre-merge-commit", "post-merge", "post-checkout",
                         "pre-rebase", "post-rewrite", "applypatch-msg", "pre-applypatch",
                         "post-applypatch", "reference-transaction", "pre-auto-gc",
                         "post-index-change", "push-to-checkout", "sendemail-validate",
                         "fsmonitor-watchman", "p4-pre-submit", "post-update", "pre-receive",
                         "update", "proc-receive"})  # fmt: skip


def _stand_in(destination: str) -> str | None:
    """A destination computed up to its last part (`$DIR/Makefile`): the
    part the command names, under a stand-in folder."""
    tail = destination.rsplit(DYNAMIC, 1)[-1].rstrip("/")
    if not tail.startswith("/") or DYNAMIC in tail:
        return None
    parts = tail.split("/")
    if len(parts) > 2 and parts[-2] == "hooks" and parts[-1] in _HOOK_NAMES:
        return "/_/.git" + tail
    return "/_" + tail


def _may_be_folder(destination: str) -> bool:
    """`cp x DIR`: a destination ending in `/`, or named without a suffix
    (`.git/hooks`, `.husky`, `.`), may be a folder the sources go into."""
    last = destination.rstrip("/").rsplit("/", 1)[-1]
    return destination.endswith("/") or "." not in last.lstrip(".")


def _normal(value: str, cwd: str | None) -> str:
    normal = paths.normalize(value, cwd)
    if normal is None or DYNAMIC in normal or paths.is_glob(normal):
        return DYNAMIC
    return normal + ("/" if value.endswith(("/", "/.")) else "")


def _content(
    sources: list[str], written: dict[str, str | None]
) -> tuple[str | None, tuple[str, ...]]:
    """The text the sources put together when this line wrote them all;
    else the sources the gate may read (`()` when one cannot be read)."""
    if not sources:
        return None, ()
    texts = [_text_of(s, written) for s in sources]
    if all(isinstance(t, str) for t in texts):
        return "".join(t for t in texts if isinstance(t, str)), ()
    if any(t is not _ON_DISK for t in texts):
        return None, ()
    return None, tuple(sources)


_ON_DISK = object()  # a file this line did not write: read from disk, if the gate can


def _text_of(source: str, written: dict[str, str | None]) -> object:
    if source == DYNAMIC or source.endswith("/") or source.startswith(_UNREADABLE):
        return None
    if source in written:
        return written[source]
    for path, text in written.items():  # a folder written with unknown content holds it
        if text is None and paths.is_under(source, path):
            return None
    return _ON_DISK


def _written_under(
    sources: list[str], target: str, written: dict[str, str | None], how: str
) -> list[Placement]:
    """Files this line wrote under a folder it then puts in place."""
    found: list[Placement] = []
    for source in sources:
        root = source.rstrip("/")
        if root.endswith("/."):
            root = root[:-2]
        for path, text in written.items():
            if text is not None and path.startswith(root + "/"):
                found.append(Placement(f"{target}/{path[len(root) + 1 :]}", text, (), how))
    return found


def _before(analysis: Analysis, inv: Invocation) -> dict[str, str | None]:
    """Files the command line writes before `inv`, normalised: their text
    when static, `None` when a program's."""
    from redline.rules.targets import written_files
    from redline.shell.carriers import static_output

    found: dict[str, str | None] = {}
    for earlier in analysis.invocations:
        if earlier is inv or earlier.index >= inv.index:
            break
        static = static_output(earlier) if earlier.redirects else None
        texts = [(r.target.value, static, ">>" in r.op) for r in earlier.redirects
                 if r.writes and r.target is not None]  # fmt: skip
        if earlier.name == "tee" and earlier.stdin_text is not None:
            append = earlier.has_flag("a", ("append",))
            texts += [(w.value, earlier.stdin_text, append) for w in earlier.options.operands]
        done: set[str] = set()
        for value, text, append in texts:
            path = paths.normalize(value, earlier.cwd)
            if path is None:
                continue
            done.add(path)
            before = found.get(path, "") if append else ""
            found[path] = None if text is None or before is None else before + text
        for value in written_files(earlier):
            path = paths.normalize(value, earlier.cwd)
            if path is not None and path not in done:
                found[path] = None  # `sed -i`, `cp`...: a program's text
        if earlier.name in PLACERS:
            for move in moves(earlier, analysis):
                path = paths.normalize(move.destination, earlier.cwd)
                if path is None:
                    continue
                text = move.text
                if text is None and move.sources and not move.folder:
                    text, _ = _content([_normal(s, earlier.cwd) for s in move.sources], found)
                found[path] = text
    return found
