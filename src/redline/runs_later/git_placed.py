"""What git and patch programs put in place from content the command line
does not show (`placed_moves`): a file checked out or restored from another
tree (`git checkout other -- Makefile`, `git restore --source=other
Makefile`), the files `git archive TREE PATHS` hands to `tar -x`, a file
`patch` is told to change or write (`patch Makefile x.diff`, `patch -o
Makefile`), and the folders `cpio` copies or extracts into (`cpio -p DIR`,
`cpio -i -D DIR`), and the patch `patch`, `git apply` or `git am` reads.

Content already in `HEAD` or the index (`git checkout -- Makefile`, `git
restore Makefile`) is the project's committed or staged text: putting it
back is an undo, not a placement. A whole branch switched to (`git checkout
main`) is the project's history too; a single file grafted from another
tree, a fetched ref or an old commit is content no one has shown the judge.
"""

from __future__ import annotations

from collections.abc import Iterator

from redline.fasttuple import NamedTuple
from redline.rules import argv
from redline.shell.model import DYNAMIC

# Trees whose content is what the working tree already builds on.
_CURRENT = frozenset({"HEAD", "@"})
_GLOBAL_VALUED = ("Cc", ("git-dir", "work-tree", "namespace", "exec-path", "config-env"))
_CHECKOUT_VALUED = ("bB", ("orphan", "conflict", "pathspec-from-file", "track"))
_RESTORE_VALUED = ("s", ("source", "pathspec-from-file", "conflict"))
# git takes any unambiguous prefix of a long option (`--sour=X` is `--source=X`).
_CHECKOUT_NAMES = ("quiet", "progress", "no-progress", "force", "merge", "detach", "ours",
                   "theirs", "patch", "guess", "no-guess", "overlay", "no-overlay",
                   "ignore-skip-worktree-bits", "ignore-other-worktrees", "overwrite-ignore",
                   "no-overwrite-ignore", "recurse-submodules", "no-recurse-submodules",
                   "pathspec-file-nul", "no-track")  # fmt: skip
_RESTORE_NAMES = ("staged", "worktree", "patch", "ours", "theirs", "merge", "quiet", "progress",
                  "no-progress", "ignore-unmerged", "ignore-skip-worktree-bits", "overlay",
                  "no-overlay", "recurse-submodules", "no-recurse-submodules",
                  "pathspec-file-nul")  # fmt: skip
_ARCHIVE_VALUED = ("o", ("output", "format", "prefix", "remote", "exec", "add-file",
                         "add-virtual-file", "mtime"))  # fmt: skip


def git_command(values: tuple[str, ...]) -> tuple[str, tuple[str, ...], str]:
    """The subcommand after git's own options, its arguments, and the folder
    `-C` moves to (`""`: none)."""
    args = argv.parse(values, *_GLOBAL_VALUED, stop_at_operand=True)
    moved = "/".join(args.value("-C"))
    return (args.rest[0], args.rest[1:], moved) if args.rest else ("", (), moved)


def checked_out(values: tuple[str, ...]) -> Iterator[str]:
    """Each path `git checkout|restore` writes from a tree other than `HEAD`
    or the index (under `-C`'s folder)."""
    command, rest, moved = git_command(values)
    found: Iterator[str] = iter(())
    if command == "checkout":
        found = _checkout(rest)
    elif command == "restore":
        found = _restore(rest)
    for path in found:
        yield f"{moved.rstrip('/')}/{path}" if moved and not path.startswith("/") else path


def _checkout(rest: tuple[str, ...]) -> Iterator[str]:
    if "--" in rest:
        at = rest.index("--")
        before = argv.parse(rest[:at], *_CHECKOUT_VALUED, long_names=_CHECKOUT_NAMES)
        if before.value("-b", "-B", "--orphan") or len(before.operands) != 1:
            return  # a new branch, or paths from the index
        tree, files = before.operands[0], rest[at + 1 :]
    else:
        args = argv.parse(rest, *_CHECKOUT_VALUED, long_names=_CHECKOUT_NAMES)
        if args.value("-b", "-B", "--orphan") or len(args.operands) < 2:
            return  # `git checkout main`, `git checkout FILE`: a switch, or the index's text
        tree, files = args.operands[0], args.operands[1:]
    if tree not in _CURRENT:
        yield from files


def _restore(rest: tuple[str, ...]) -> Iterator[str]:
    args = argv.parse(rest, *_RESTORE_VALUED, long_names=_RESTORE_NAMES)
    sources = args.value("-s", "--source")
    if not sources or sources[-1] in _CURRENT:
        return
    if args.has("-S", "--staged") and not args.has("-W", "--worktree"):
        return  # the index only: nothing runs from it
    yield from args.operands


def archived(values: tuple[str, ...]) -> tuple[str, ...] | None:
    """The paths `git archive TREE PATHS` writes to stdout (`()`: the whole
    tree); `None` when it is no archive to stdout."""
    command, rest, _ = git_command(values)
    if command != "archive":
        return None
    args = argv.parse(rest, *_ARCHIVE_VALUED)
    if args.value("-o", "--output", "--remote"):
        return None
    return tuple(args.operands[1:])


_PATCH_VALUED = ("iopdBDFrVYzgF", ("input", "output", "directory", "strip", "prefix", "suffix",
                 "basename-prefix", "reject-file", "fuzz", "backup-if-mismatch",
                 "version-control", "quoting-style", "define", "get"))  # fmt: skip


def patched(values: tuple[str, ...]) -> tuple[str, ...]:
    """The files `patch` is told to change or write on its command line:
    `patch FILE PATCH`, `patch -o OUT`; `()` when the patch names them."""
    args = argv.parse(values, *_PATCH_VALUED)
    named = args.value("-o", "--output") or args.operands[:1]  # `-o`: the original is kept
    return tuple(n for n in named if n not in ("-", DYNAMIC))


_CPIO_VALUED = ("DEFHIMORcs", ("directory", "file", "format", "pattern-file", "message",
                                "owner", "io-size", "block-size", "rsh-command"))  # fmt: skip


def cpio_folder(values: tuple[str, ...]) -> str | None:
    """The folder `cpio -p DIR` copies into or `cpio -i -D DIR` extracts into."""
    args = argv.parse(values, *_CPIO_VALUED)
    if args.has("-p", "--pass-through"):
        return args.operands[-1] if args.operands else None
    if args.has("-i", "--extract"):
        folders = args.value("-D", "--directory")
        return folders[-1] if folders else None
    return None


class PatchInput(NamedTuple):
    """The patch a `patch`, `git apply` or `git am` applies: the files named
    (or redirected to its stdin), or its stdin otherwise (`stdin`)."""

    files: tuple[str, ...]
    stdin: bool


_APPLY_VALUED = ("pC", ("exclude", "include", "directory", "whitespace", "build-fake-ancestor"))
_AM_VALUED = ("pC", ("exclude", "include", "directory", "whitespace", "patch-format",
                     "resolvemsg", "empty", "quoted-cr"))  # fmt: skip
# `git am` verbs that go on with a mailbox already read, and `git apply`'s reports.
_NOT_APPLYING = frozenset({"--abort", "--continue", "--skip", "--quit", "--retry",
                           "--show-current-patch", "--resolved", "-r", "--stat", "--numstat",
                           "--summary", "--check"})  # fmt: skip


def patch_input(name: str, values: tuple[str, ...]) -> PatchInput | None:
    """What `patch`, `git apply` or `git am` reads its patch from; `None` for
    any other invocation, or one that applies nothing."""
    if name == "patch":
        args = argv.parse(values, *_PATCH_VALUED)
        named = args.value("-i", "--input") or args.operands[1:2]
        return PatchInput(tuple(named), not named or "-" in named)
    if name != "git":
        return None
    command, rest, _ = git_command(values)
    if command not in ("apply", "am"):
        return None
    if any(v in _NOT_APPLYING for v in rest) and not (command == "apply" and "--apply" in rest):
        return None  # `git apply --stat`, `git am --continue`: nothing applied from a patch
    args = argv.parse(rest, *(_APPLY_VALUED if command == "apply" else _AM_VALUED))
    files = tuple(f for f in args.operands if f != "-")
    return PatchInput(files, not files or "-" in args.operands)
