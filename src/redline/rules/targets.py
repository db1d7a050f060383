"""What an invocation acts on: the trees it deletes, the devices it writes,
the files it reads and writes. Shared by the rule families."""

from __future__ import annotations

import re
from collections.abc import Iterator

from redline.rules import output_options
from redline.shell import find, globs, made_links, paths
from redline.shell.analysis import Analysis
from redline.shell.carriers import inline_code, interpreter_family
from redline.shell.code_home import home_spelled
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC, Word

# Raw block devices: disks, partitions, RAID, device-mapper, loop, NBD, MTD.
RAW_DEVICE = lazy_regex(
    r"\A/dev/(?:sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|r?disk\d|md\d|md/|dm-\d"
    r"|mapper/|loop\d|nbd\d|zd\d|bcache\d|mtdblock\d|sr\d|root\b|disk/by-|block/)",
    re.IGNORECASE,
)


def normalized(word: Word, inv: Invocation) -> str | None:
    path = paths.normalize(word.value, inv.cwd)
    if path is not None and inv.links:  # `ln -s ~ h; rm -rf h/`
        path = made_links.follow(path, inv.links, made_links.follows_word(inv, word.value))
    return path


MKFS_PREFIXES = ("mk", "newfs")
"""How every filesystem maker's name begins: tested before the mkfs patterns."""


# Names of raw block devices a glob under `/dev` is tried against: a pattern
# that can match one of them (`/dev/sd?`, `/dev/nvme[0-9]n1`, `/dev/*`) is
# judged as that device, at its worst.
_DEVICE_SAMPLES = (
    "/dev/sda", "/dev/sdb1", "/dev/hda", "/dev/vda1", "/dev/xvda", "/dev/nvme0n1",
    "/dev/nvme0n1p1", "/dev/mmcblk0", "/dev/mmcblk0p1", "/dev/md0", "/dev/dm-0",
    "/dev/mapper/root", "/dev/loop0", "/dev/nbd0", "/dev/zd0", "/dev/sr0", "/dev/root",
    "/dev/disk/by-id/ata-disk", "/dev/block/8:0", "/dev/bcache0", "/dev/mtdblock0",
)  # fmt: skip


def is_raw_device(value: str, inv: Invocation | None = None) -> bool:
    """A raw block device, or a glob that can name one; with `inv`, the
    value as the kernel opens it (`/dev/./sda`, `sda` in `/dev`, a link to
    a device made earlier in the command)."""
    if inv is not None and (inv.links or "dev" in value or (inv.cwd or "").startswith("/dev")):
        path = paths.normalize(value, inv.cwd) if DYNAMIC not in value else None
        if path is not None:
            value = made_links.follow(path, inv.links) if inv.links else path
    # The prefix test first: most words are no device, and the pattern then
    # never compiles in that process (ADR 0003).
    if not value.startswith("/dev/"):
        return False
    if RAW_DEVICE.match(value):
        return True
    if paths.is_glob(value):
        return any(globs.matches(value, sample) for sample in _DEVICE_SAMPLES)
    return False


def recursive(inv: Invocation) -> bool:
    return inv.has_flag("rR", ("recursive",))


# Library calls that delete a whole tree, given a literal path: Python, Ruby,
# Node, Perl, R, Rust. `rmSync`/`rmdirSync` and R's `unlink` delete a tree only
# with `recursive`. Ruby's calls may go without parentheses (`rm_rf Dir.home`).
_CODE_TREE_DELETE = lazy_regex(
    r"""\b(?:rmtree|rm_rf|rm_r|remove_dir|remove_entry(?:_secure)?|remove_tree|removeSync"""
    r"""|rimraf(?:\.sync)?|remove_dir_all|(?P<node>rmSync|rmdirSync|unlink))(?:\s*\(\s*|[ \t]+)"""
    r"""(?:path\s*=\s*)?[rbf]?(?P<q>['"])(?P<path>[^'"]*)(?P=q)"""
)
# Programs that delete each file `find -exec` hands them: every file under an
# unfiltered root goes, which is the tree itself.
_FILE_REMOVERS = frozenset({"rm", "unlink", "shred", "srm", "wipe", "scrub"})
# Node's tree removers (`rimraf`, `del-cli`): every operand is deleted, recursively.
TREE_REMOVERS = frozenset({"rimraf", "del-cli", "del", "rmrf"})


def _code_trees(inv: Invocation) -> Iterator[str]:
    code = inline_code(inv)
    if not code:
        return
    for match in _CODE_TREE_DELETE.finditer(home_spelled(code)):
        if match["node"] and "recursive" not in code:
            continue
        path = paths.normalize(match["path"], inv.cwd)
        if path is not None:
            yield path


def _found_by_find(inv: Invocation) -> bool:
    return inv.appended_args and any(v.startswith(find.FOUND_BY) for v in inv.via)


def applies_to_tree(inv: Invocation) -> bool:
    """`-R`, or run by `find -exec` on each file under a root (unfiltered: the tree)."""
    return recursive(inv) or _found_by_find(inv)


def fed_words(inv: Invocation) -> tuple[Word, ...]:
    """Names `xargs` appends from a stdin the analysis can read (`echo / | xargs rm -rf`)."""
    if not inv.appended_args or inv.stdin_text is None or _found_by_find(inv):
        return ()
    return tuple(Word(v, inv.span, v) for v in re.split(r"[\s\x00]+", inv.stdin_text) if v)


_TREE_DELETERS = _FILE_REMOVERS | TREE_REMOVERS | {"find", "rsync", "tar", "gtar", "bsdtar"}


def may_delete_trees(inv: Invocation) -> bool:
    """A cheap first test for `deleted_trees` (the programs its branches read)."""
    return inv.name in _TREE_DELETERS or interpreter_family(inv.name) is not None


def deleted_trees(inv: Invocation, analysis: Analysis) -> Iterator[str]:
    """Normalised paths a command deletes recursively (`rm -r`, `find -delete`,
    `find -exec rm`, `xargs rm -r` fed known names, `rsync --delete` onto a
    destination, `shutil.rmtree` in inline code). Unknown targets yield nothing."""
    name = inv.name
    if interpreter_family(name) is not None:
        yield from _code_trees(inv)
        return
    if name == "rm" and recursive(inv):
        words: tuple[Word, ...] = inv.options.operands + fed_words(inv)
    elif name in TREE_REMOVERS:
        words = tuple(w for w in inv.options.operands if not w.value.startswith("-"))
    elif name in _FILE_REMOVERS and _found_by_find(inv):
        if name == "shred" and not inv.has_flag("u", ("remove",)):
            return
        words = inv.options.operands
    elif name == "find" and "-delete" in inv.values:
        words = find_roots(inv)
        if find.narrowed(inv.argv):
            # Only matching files go: unknown paths under each root.
            words = tuple(
                w._replace(value=find.standing_for_found(w.value, inv.argv)) for w in words
            )
    elif name == "rsync" and any(rsync_deletes(v) for v in inv.values):
        operands = inv.options.operands
        words = operands[-1:] if len(operands) >= 2 else ()
    elif name in ("tar", "gtar", "bsdtar") and any(_removes_files(v) for v in inv.values):
        words = inv.options.operands  # archived, then deleted: judged as deleted trees
    else:
        return
    for word in words:
        path = normalized(word, inv)
        if path is not None:
            yield path


def rsync_deletes(value: str) -> bool:
    """An rsync option that deletes at the destination (`--delete*`, and its
    alias `--del`)."""
    return value.startswith("--delete") or value == "--del"


def _removes_files(value: str) -> bool:
    """tar's `--remove-files`, or a prefix of it getopt_long takes (`--remove`)."""
    return len(value) >= 5 and "--remove-files".startswith(value)


def find_roots(inv: Invocation) -> tuple[Word, ...]:
    return find.roots(inv.argv) or (Word(".", inv.span, "."),)


def dynamic_operand(inv: Invocation) -> bool:
    return inv.appended_args or any(DYNAMIC in w.value for w in inv.options.operands)


_WRITERS = frozenset(
    {"tee", "cp", "mv", "install", "ln", "rsync", "scp", "ddrescue", "dd", "sed", "perl",
     "truncate", "shred", "touch", "chmod", "chown", "chgrp", "rm", "unlink"}
)  # fmt: skip
# The programs whose operands `written_files` reads (besides every redirect).
OPERAND_WRITERS = _WRITERS | output_options.PROGRAMS


def written_files(inv: Invocation) -> Iterator[str]:
    """Raw values of the files an invocation writes: redirects, `tee`, `cp`
    and `mv` destinations, `dd of=`, `sed -i`, `ln` targets, `truncate`..."""
    for redirect in inv.redirects:
        if redirect.writes and redirect.target is not None:
            yield redirect.target.value
    name = inv.name
    if name not in _WRITERS:
        if name in output_options.PROGRAMS:  # `sort -o FILE`, `gcc -o FILE`
            yield from output_options.outputs(inv)
        return  # most programs write no operand: leave their options unread
    if name in output_options.PROGRAMS:  # `rsync --log-file=FILE`
        yield from output_options.outputs(inv)
    operands = inv.options.operands
    if name == "tee":
        yield from (w.value for w in operands)
    elif name in ("cp", "mv", "install", "ln", "rsync", "scp", "ddrescue"):
        target_dir = next((v for k, v in inv.options.values if k == "target-directory"), None)
        if target_dir is not None:
            yield target_dir
        elif "t" in inv.options.short:
            values = inv.values
            index = values.index(next(v for v in values if v.startswith("-") and "t" in v))
            if index + 1 < len(values):
                yield values[index + 1]
        elif len(operands) >= 2 or (name == "ln" and operands):
            yield operands[-1].value
    elif name == "dd":
        yield from (v[3:] for v in inv.values if v.startswith("of="))
    elif name in ("sed", "perl") and (
        inv.has_flag("i", ("in-place",)) or any(v.startswith("-i") for v in inv.values)
    ):
        yield from (w.value for w in operands[1:])
        if name == "sed":
            yield from output_options.sed_writes(inv)
    elif name == "sed":  # `sed -n 'w FILE'`, `s/x/y/w FILE`
        yield from output_options.sed_writes(inv)
    elif name in ("truncate", "shred", "touch", "chmod", "chown", "chgrp", "rm", "unlink"):
        start = 1 if name in ("chmod", "chown", "chgrp") else 0
        yield from (w.value for w in operands[start:])
