"""Files put in place from files on disk and run in the same command (issue
#13 family 3, and a way to the gate's own CLI under another name):
`cp evil.sh x.sh && bash x.sh`, `ln -s evil.sh l; ./l`, `cat rl > y;
python3 y approve 1`, `cp /usr/bin/rm x; ./x -rf ~`.

The analysis reads no disk, and the gate reads a run script at its own path,
which the command has not written yet (or which holds other text). So the
analysis remembers where each copy comes from, in the order the shell runs
the commands, and a run of the copy is told again as a run of its source
(`bash /p/evil.sh`, `python3 /p/rl approve 1`, `/usr/bin/rm -rf ~`): the
gate then reads and judges the source, and a program copied under another
name is judged by its own. A source the analysis cannot name (`cp "$(which
rm)" x`) makes the run one of a program no one can read.
"""

from __future__ import annotations

from redline.shell import paths
from redline.shell.carriers import Carried, quote
from redline.shell.invocation import Invocation
from redline.shell.model import DYNAMIC

# Normalised destination -> normalised source on disk (`DYNAMIC`: not known).
# A folder copied whole is kept with a trailing `/`: the files under it are
# copies of the files under its source.
Copies = dict[str, str]
# How a run of a copy is marked in its label (after `written_scripts.WRITTEN`).
COPIED = " copied from "

COPIERS = frozenset({"cp", "mv", "install", "ln", "rsync", "gcp", "gmv", "ginstall"})
# Options that take a value (short letters, long names), per copier (also
# read by `runs_later.placed_moves`).
VALUED = {
    "cp": ("tS", ("target-directory", "suffix")),
    "mv": ("tS", ("target-directory", "suffix")),
    "ln": ("tS", ("target-directory", "suffix")),
    "install": ("tSmogZ", ("target-directory", "suffix", "mode", "owner", "group",
                            "strip-program")),
    "rsync": ("efBTM", ("rsh", "rsync-path", "filter", "exclude", "include", "exclude-from",
                        "include-from", "files-from", "temp-dir", "partial-dir", "compare-dest",
                        "copy-dest", "link-dest", "backup-dir", "suffix", "chmod", "chown",
                        "usermap", "groupmap", "timeout", "port", "password-file", "log-file",
                        "log-file-format", "out-format", "bwlimit", "max-size", "min-size",
                        "iconv", "info", "debug", "remote-option", "address")),
    "scp": ("PioFclSJD", ()),
}  # fmt: skip
_GNU = {"gcp": "cp", "gmv": "mv", "ginstall": "install"}


def note_copy(copies: Copies, written: dict[str, str | None], inv: Invocation) -> None:
    """Remember what a copier puts where: text this line wrote travels in
    `written`; a file on disk is remembered by its source's path."""
    name = _GNU.get(inv.name, inv.name)
    parsed = copy_operands(name, inv.values)
    if parsed is None:
        return
    sources, target, into = parsed
    link = name == "ln" and inv.has_flag("s", ("symbolic",))
    tree = name == "mv" or link or inv.has_flag("rRa", ("recursive", "archive"))
    for source in sources:
        base = source.rstrip("/").rsplit("/", 1)[-1]
        named = base not in ("", ".", "..")
        if into or len(sources) > 1 or target.endswith("/"):
            targets = [target.rstrip("/") + "/" + base] if named else [target]
        else:  # `cp x DIR` when DIR is a folder: the copy is DIR/x
            targets = [target, target.rstrip("/") + "/" + base] if named else [target]
        for destination in targets:
            _place(copies, written, inv, source, destination, link, name, tree)


def note_stream(
    copies: Copies, written: dict[str, str | None], inv: Invocation, target: str
) -> None:
    """`cat SRC > DST`, `cat < SRC > DST`: DST is a copy of one file on disk."""
    operands = [w.value for w in inv.options.operands]
    if not operands:
        operands = [
            r.target.value
            for r in inv.redirects
            if r.op == "<" and r.fd in (None, 0) and r.target is not None
        ]
    if len(operands) != 1:
        return
    _place(copies, written, inv, operands[0], target, False, "cat")


def source_of(copies: Copies, path: str) -> str | None:
    """The file on disk whose text `path` holds in this command, if copied."""
    if path in copies:
        return copies[path]
    for target, source in copies.items():  # a file inside a folder copied whole
        if target.endswith("/") and path.startswith(target) and not path.startswith(source):
            # (a path under the source itself is not re-told: `cp -r sub/ .` would loop)
            return DYNAMIC if source == DYNAMIC else source + path[len(target) :]
    return None


def rerun(inv: Invocation, run_path: str, source: str, label: str) -> Carried:
    """`inv` told as running `source` where it runs `run_path`."""
    if source == DYNAMIC:
        return Carried(DYNAMIC, label)
    words = [w.raw for w in inv.argv]
    for k, word in enumerate(inv.argv):
        if word.value == run_path:
            words[k] = quote(source)
            break
    else:  # `sh < x`: the script is the file on stdin
        words.append("< " + quote(source))
    return Carried(" ".join(words), label)


def _place(
    copies: Copies, written: dict[str, str | None], inv: Invocation, source_value: str,
    target_value: str, symbolic: bool, name: str, tree: bool = False,
) -> None:  # fmt: skip
    target = paths.normalize(target_value, inv.cwd) if DYNAMIC not in target_value else None
    if target is None:
        return
    if symbolic and not source_value.startswith(("/", "~")):
        source_value = target.rsplit("/", 1)[0] + "/" + source_value  # relative to the link
    if source_value in ("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-"):
        written[target] = inv.stdin_text  # `cp /dev/stdin x <<< TEXT`: what it reads
        copies.pop(target, None)
        return
    source = None if DYNAMIC in source_value else paths.normalize(source_value, inv.cwd)
    if source is not None and paths.is_glob(source):
        source = None
    if source is not None and source in written:
        written[target] = written[source]
        copies.pop(target, None)
    else:
        written.pop(target, None)
        copies[target] = DYNAMIC if source is None else copies.get(source, source)
        if tree and source is not None:  # the folder's files too, when it is one
            copies[target.rstrip("/") + "/"] = source.rstrip("/") + "/"
    if name == "mv" and source is not None:
        written.pop(source, None)
        copies.pop(source, None)
        copies.pop(source.rstrip("/") + "/", None)


def copy_operands(name: str, values: tuple[str, ...]) -> tuple[list[str], str, bool] | None:
    """`(sources, target, into)`: `into` when the target is named a folder
    (`-t DIR`, `--target-directory=DIR`)."""
    letters, longs = VALUED.get(name, ("", ()))
    operands: list[str] = []
    folder: str | None = None
    k, ended = 0, False
    while k < len(values):
        value = values[k]
        if ended or not value.startswith("-") or value == "-":
            operands.append(value)
        elif value == "--":
            ended = True
        elif value.startswith("--"):
            key, eq, given = value[2:].partition("=")
            if key in longs:
                if not eq:
                    k += 1
                    given = values[k] if k < len(values) else ""
                if key == "target-directory":
                    folder = given
        else:
            for j, letter in enumerate(value[1:], 1):
                if letter in letters:
                    given = value[j + 1 :]
                    if not given:
                        k += 1
                        given = values[k] if k < len(values) else ""
                    if letter == "t":
                        folder = given
                    break
        k += 1
    if folder is not None:
        return (operands, folder, True) if operands else None
    if len(operands) < 2:
        return None
    return operands[:-1], operands[-1], False
