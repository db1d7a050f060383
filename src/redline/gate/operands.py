"""What a shell invocation names and changes, for the never-run checks:
the words that may be paths (with the option before each), the writes that
`written_files` leaves out, and the programs that only read, only list, or
use a key without showing it."""

from __future__ import annotations

from collections.abc import Iterator

from redline.shell.carriers import carried_scripts, inline_code
from redline.shell.invocation import Invocation
from redline.shell.model import Word
from redline.shell.wrappers import split_wrapper

# Programs that only read what they are given (so naming a gate file is fine).
READERS = frozenset(
    {
        "cat", "less", "more", "head", "tail", "grep", "egrep", "fgrep", "rg", "ag", "ack", "wc",
        "diff", "cmp", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum",
        "b2sum", "cksum", "jq", "bat", "batcat", "od", "xxd", "hexdump", "strings", "nl", "column",
        "yamllint", "sed", "cp", "scp", "rsync", "echo", "printf",
    }
)  # fmt: skip
# Programs that name files without reading what is in them.
LISTERS = frozenset(
    {
        "ls", "stat", "test", "[", "[[", "du", "file", "find", "tree", "realpath", "readlink",
        "dirname", "basename", "namei", "lsattr", "getfacl", "cd", "pushd", "exa", "eza", "echo",
        "printf",
    }
)  # fmt: skip
# Programs that use a key without showing it (`ssh -i KEY`).
KEY_USERS = frozenset({"ssh", "ssh-add", "ssh-copy-id", "autossh", "mosh"})
_KEY_OPTION_USERS = frozenset({"scp", "sftp", "rsync", "git", "sshfs"})
_EDITORS = frozenset(
    {
        "vi", "vim", "nvim", "nano", "emacs", "ed", "ex", "code", "micro", "pico", "joe", "mcedit",
        "mkdir", "rmdir", "chattr", "setfacl", "patch", "cpio", "mktemp", "mkfifo", "tmux",
    }
)  # fmt: skip


def operand_value(value: str) -> str:
    """`--output=PATH`, `of=PATH` and curl's `@PATH` name PATH."""
    if value.startswith("@"):
        return value[1:]
    if value.startswith("--") and "=" in value:
        return operand_value(value.partition("=")[2])
    if "=" in value and not value.startswith(("-", "/", "~", ".")):
        # `-F file=@PATH` and `-F file=<PATH` (curl's form fields) name PATH too.
        return value.partition("=")[2].removeprefix("@").removeprefix("<")
    return value


def mentions(inv: Invocation) -> Iterator[tuple[Word, str]]:
    """Every word that may name a path, with the option before it; a
    wrapper's own words only (what it wraps is its own invocation)."""
    argv = inv.argv
    split = split_wrapper(inv.name, argv)
    end = len(argv) - len(split[0]) if split and split[0] else len(argv)
    # Scripts and code given as arguments are judged as code, not as paths.
    code = {c.text for c in carried_scripts(inv)} | {inline_code(inv) or ""}
    previous = ""
    for word in argv[1:end]:
        value = word.value
        if value.startswith("-") and "=" not in value:
            previous = value
            continue
        if value not in code and not _remote(value):
            yield word, previous
        previous = ""
    for redirect in inv.redirects:
        if redirect.target is not None and redirect.op not in ("<<", "<<-", "<<<"):
            yield redirect.target, ""


def _remote(value: str) -> bool:
    head = value.split("/", 1)[0]
    return ":" in head and not value.startswith(("/", "~", "."))


def shows_nothing(name: str, inv: Invocation, option: str) -> bool:
    """Naming a credential without reading it out: listing it, or handing a
    key to ssh (`ssh -i KEY`, `scp -i KEY`)."""
    if name in LISTERS and not (name == "find" and inv.values and "-exec" in inv.values):
        return True
    if name in KEY_USERS:
        return True
    if name == "ssh-keygen":
        return inv.has_flag("ly", ())
    return name in _KEY_OPTION_USERS and option in ("-i", "-o", "--identity", "-e")


def only_reads(inv: Invocation) -> bool:
    """A program that writes its file operands in other modes, run in one that
    only reads them: `ssh-keygen -l -f KEY.pub` prints a fingerprint."""
    return inv.name == "ssh-keygen" and inv.has_flag("lyBe", ())


CONTAINER_TOOLS = frozenset({"docker", "podman", "nerdctl"})
_MOUNT_OPTIONS = frozenset({"-v", "--volume", "--mount"})


def extra_writes(inv: Invocation) -> Iterator[str]:
    """Writes `written_files` leaves out: a move removes its source, a link
    aliases its target, editors and extractors write their operands."""
    name, operands = inv.name, inv.options.operands
    if name in ("mv", "ln") or name in _EDITORS:
        yield from (w.value for w in operands)
    if name in CONTAINER_TOOLS and any(
        v in _MOUNT_OPTIONS or v[:3] in ("-v=", "--v") for v in inv.values
    ):
        # A bind mount hands the container the host path, to read and to write
        # (`docker run -d -v ~/.redline:/r IMAGE`), whatever the container runs.
        from redline.shell.bind_mounts import run_mounts

        mounts = run_mounts(inv.argv, 1, len(inv.argv), inv.cwd)
        yield from (m.source for m in mounts.mounts) if mounts is not None else ()
    values = inv.values
    for k, value in enumerate(values[:-1]):
        if name in (
            "curl",
            "wget",
            "sort",
            "tar",
            "unzip",
            "bsdtar",
            "git",
            "yt-dlp",
        ) and value in (
            "-o",
            "-O",
            "--output",
            "--output-document",
            "-C",
            "--directory",
            "-d",
            "-P",
        ):
            yield values[k + 1]
    if name in ("yq", "jq") and inv.has_flag("i", ("inplace", "in-place")):
        yield from (w.value for w in operands[1:])
    if name == "awk" and "inplace" in values:
        yield from (w.value for w in operands[1:])


# `find` actions that remove, move or change what they find.
_FIND_CHANGES = frozenset({"-delete", "-fprint", "-fprint0", "-fprintf", "-fls"})
_FIND_RUNS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_FIND_GLOBAL = frozenset({"-H", "-L", "-P", "-O0", "-O1", "-O2", "-O3", "-D"})


def find_changed_roots(inv: Invocation) -> tuple[str, ...]:
    """The starting points of a `find` that deletes or changes what it finds
    (`-delete`, `-exec rm {} ;`): anything under them may be changed."""
    if inv.name != "find":
        return ()
    values = inv.values
    changes = False
    for k, value in enumerate(values):
        if value in _FIND_CHANGES:
            changes = True
        elif value in _FIND_RUNS and k + 1 < len(values):
            program = values[k + 1].rsplit("/", 1)[-1]
            in_place = program == "sed" and any(v.startswith(("-i", "--in-place")) for v in values)
            changes = changes or in_place or program not in READERS | LISTERS
    if not changes:
        return ()
    roots: list[str] = []
    for value in values:
        if value in _FIND_GLOBAL:
            continue
        if value.startswith(("-", "(", "!", ")")):
            break
        roots.append(value)
    return tuple(roots) or (".",)


def installs_crontab(inv: Invocation) -> bool:
    """Anything but listing (`crontab -l`, `crontab -u USER -l`) changes jobs."""
    values = inv.values
    rest = [v for k, v in enumerate(values) if v != "-u" and (k == 0 or values[k - 1] != "-u")]
    return rest != ["-l"]
