"""The text a patch leaves in each file it writes: Codex `apply_patch` and
Hermes V4A patches (`*** Add File:`, `*** Update File:`, `*** Move to:`),
and unified diffs. An added file is its `+` lines; an updated one is the
file on disk with the hunks applied when the disk is known and each hunk's
old lines are found there, else the hunks' new lines with their context (a
piece of the file, read line by line by the judge).
"""

from __future__ import annotations

from collections.abc import Callable

from redline.fasttuple import NamedTuple

TYPE_CHECKING = False  # not `typing`'s: kept off the hook's start (ADR 0004)
if TYPE_CHECKING:
    from redline.gate.world import World


class NewText(NamedTuple):
    """A file's text after the patch; `whole` is false for a piece of it."""

    path: str
    text: str
    whole: bool


def new_texts(patch: str, read: Callable[[str], str | None]) -> list[NewText]:
    """What the patch leaves in each file it adds or updates. `read` gives a
    file's text as it is on disk (by the path as the patch names it)."""
    files = _v4a(patch) if "*** " in patch else []
    if not files:
        files = _unified(patch)
    found: list[NewText] = []
    for path, added, hunks in files:
        if added:
            found.append(NewText(path, "\n".join(line[1:] for line in hunks[0]) + "\n", True))
            continue
        found.append(_updated(path, hunks, read(path)))
    return found


_File = tuple[str, bool, list[list[str]]]


def _v4a(patch: str) -> list[_File]:
    files: list[_File] = []
    for line in patch.split("\n"):
        head = line.strip()
        if head.startswith("*** "):
            verb, _, rest = head[4:].partition(":")
            verb = verb.strip().lower()
            if verb in ("add file", "update file"):
                files.append((rest.strip(), verb == "add file", [[]]))
            elif verb == "move to" and files:
                files[-1] = (rest.strip(), files[-1][1], files[-1][2])
            elif verb == "delete file":
                files.append(("", False, [[]]))
            continue
        if not files or not files[-1][0]:
            continue
        hunks = files[-1][2]
        if line.startswith("@@"):
            if hunks[-1]:
                hunks.append([])
        elif line[:1] in ("+", "-", " ") or not line:
            hunks[-1].append(line if line else " ")
    return [f for f in files if f[0]]


def _unified(patch: str) -> list[_File]:
    files: list[_File] = []
    old = path = ""
    for line in patch.split("\n"):
        if line.startswith("--- "):
            old = line[4:].split("\t", 1)[0].strip()
            continue
        if line.startswith("+++ "):
            path = line[4:].split("\t", 1)[0].strip()
            path = path[2:] if path.startswith("b/") else path
            files.append((path, old == "/dev/null", [[]]))
            continue
        if not files or path == "/dev/null":
            continue
        hunks = files[-1][2]
        if line.startswith("@@"):
            if hunks[-1]:
                hunks.append([])
        elif line[:1] in ("+", "-", " "):
            hunks[-1].append(line)
    return files


def _updated(path: str, hunks: list[list[str]], disk: str | None) -> NewText:
    pieces = ["\n".join(line[1:] for line in h if line[:1] in (" ", "+")) for h in hunks if h]
    if disk is not None:
        text = disk
        for hunk in hunks:
            old = "\n".join(line[1:] for line in hunk if line[:1] in (" ", "-"))
            new = "\n".join(line[1:] for line in hunk if line[:1] in (" ", "+"))
            if not old or old not in text:
                return NewText(path, "\n".join(pieces), False)
            text = text.replace(old, new, 1)
        return NewText(path, text, True)
    return NewText(path, "\n".join(pieces), False)


def file_texts(
    patches: tuple[str, ...], base: str | None, path: str, world: World
) -> tuple[str, ...]:
    """What the patches leave in `path` (normalised), the files on disk read
    from `world`; the patches themselves when none names it."""
    from redline.shell import paths

    def read(named: str) -> str | None:
        normal = paths.normalize(named, base)
        return world.read_script(normal) if normal and normal.startswith("/") else None

    texts = [t for patch in patches for t in new_texts(patch, read)]
    mine = tuple(t.text for t in texts if paths.normalize(t.path, base) == path)
    return mine or patches
