"""Where an invocation puts content, and from which files (`placed`): a
copier's sources and destination (`cp`, `mv`, `install`, `ln`, `rsync`,
`scp`), an archive's folder (`tar -C`, `unzip -d`, `7z -o`), a download's
file or folder, a stream's input (`cat F >`, `tee F < S`, `dd if= of=`,
`sponge`), any program's redirected output, a unit `systemctl link`s.
"""

from __future__ import annotations

from redline.fasttuple import NamedTuple
from redline.rules import argv, output_options
from redline.runs_later import git_placed, git_settings
from redline.runs_later.places import runs_unseen
from redline.shell import paths
from redline.shell.disk_copies import VALUED
from redline.shell.invocation import Invocation
from redline.shell.model import DYNAMIC, Word

TYPE_CHECKING = False  # not `typing`'s: kept off the hook's start (ADR 0004)
if TYPE_CHECKING:
    from redline.shell.analysis import Analysis

# Programs that put a file or a tree in place (besides any program's redirect).
COPIERS = frozenset({"cp", "mv", "install", "ln", "rsync", "scp", "gcp", "gmv", "ginstall"})
_TARS = frozenset({"tar", "gtar", "bsdtar"})
_SEVEN_ZIPS = frozenset({"7z", "7za", "7zr", "7zz"})
_DOWNLOADERS = frozenset({"curl", "wget", "wget2", "aria2c"})
STREAMERS = frozenset({"cat", "tee", "sponge", "dd"})
PLACERS = (COPIERS | _TARS | _SEVEN_ZIPS | _DOWNLOADERS | STREAMERS | output_options.PROGRAMS
           | {"unzip", "systemctl", "patch", "cpio"})  # fmt: skip
# Options that take a value, per copier (short letters, long names).
_VALUED = VALUED
_TAR_VALUED = ("fCbTXIgKNVLFH", ("file", "directory", "exclude", "exclude-from", "files-from",
               "transform", "xform", "use-compress-program", "to-command", "owner", "group",
               "mode", "format", "newer", "blocking-factor", "record-size", "info-script",
               "new-volume-script", "label"))  # fmt: skip


class Move(NamedTuple):
    """Content put at `destination` from `sources` (`None`: not from files).
    `folder` is true when `destination` is a folder the sources go into;
    `maybe` when it may be one (`cp x DIR`); a `tree` moves folders too."""

    destination: str
    sources: tuple[str, ...] | None
    how: str
    folder: bool = False
    maybe: bool = False
    tree: bool = False
    whole: bool = True
    text: str | None = None  # known: what a pipe feeds `sponge`
    # The files it writes are named by content no one has seen (a patch from a
    # download): any of them may run later.
    anywhere: bool = False


# Programs that write nothing: their redirect leaves an empty file.
_SILENT = frozenset({"", ":", "true", "false"})
# What a value computed when the text is written stands for in it.
_VALUE = "${VALUE}"
_GNU = {"gcp": "cp", "gmv": "mv", "ginstall": "install"}
_CURL_VALUED = "oudHAXTFebcDEKmrwYyzCQt"
_WGET_VALUED = "OoaPUeTtwQlAR"


def moves(inv: Invocation, analysis: Analysis) -> list[Move]:
    name = _GNU.get(inv.name, inv.name)
    found: list[Move] = []
    if name in COPIERS:
        found += _copies(name, inv)
        # `rsync --log-file=FILE`: its log, generated
        found += [Move(v, None, "generated") for v in output_options.outputs(inv)]
    elif name in _TARS:
        found += _tar(inv, analysis)
    elif name == "unzip":
        found += _unzip(inv)
    elif name in _SEVEN_ZIPS:
        found += _seven_zip(inv)
    elif name in ("curl", "wget", "wget2", "aria2c"):
        found += _download(name, inv)
    elif name == "dd":
        found += _dd(inv)
    elif name in ("tee", "sponge"):
        known = inv.stdin_text
        sources = stdin_sources(inv, analysis) if known is None else ()
        whole = not inv.has_flag("a", ("append",))
        found += [
            Move(w.value, sources, "streamed", whole=whole, text=known) for w in _operands(inv)
        ]
    elif name == "systemctl":
        found += _unit_links(inv)
    elif name == "patch":  # `patch Makefile x.diff`: the file it is told to change
        found += [Move(f, None, "patched") for f in git_placed.patched(inv.values)]
    elif name == "cpio":
        folder = git_placed.cpio_folder(inv.values)
        found += [] if folder is None else [Move(folder, None, "copied", folder=True)]
    elif name in output_options.PROGRAMS:  # `gcc -o .git/hooks/pre-commit x.c`
        found += [Move(v, None, "generated") for v in output_options.outputs(inv)]
    if name == "git":  # `git checkout other -- Makefile`: a file from another tree
        grafted = git_placed.checked_out(inv.values)
        found += [Move(p, None, "checked out", tree=True) for p in grafted]
        found += _configured(inv)
    if name in ("patch", "git"):
        found += _patched_from_stdin(inv, analysis)
    found += _redirected(inv, analysis)
    return found


def _configured(inv: Invocation) -> list[Move]:
    """`git config KEY VALUE` that makes git run what no one has seen: the
    config file, its content unseen (`git_settings`)."""
    command, rest, moved = git_placed.git_command(inv.values)
    if command != "config":
        return []
    set_ = git_settings.setting(rest)
    if set_ is None or git_settings.unseen(set_[1], set_[2]) is None:
        return []
    where = set_[0]
    if moved and not where.startswith(("/", "~")):
        where = f"{moved.rstrip('/')}/{where}"
    return [Move(where, None, "configured")]


def _patched_from_stdin(inv: Invocation, analysis: Analysis) -> list[Move]:
    """A patch fed on stdin: its text when the command line shows it (each
    file that runs later gets the patch's new lines, judged as a piece); a
    program's output (`curl URL | git apply`) names files no one has seen.
    A patch in a file is the gate's to read (`gate/patch_reads`)."""
    applied = git_placed.patch_input(inv.name, inv.values)
    if applied is None or not applied.stdin or stdin_sources(inv, analysis) is not None:
        return []
    from redline.shell.carriers import static_output

    text = inv.stdin_text
    if text is None and len(inv.upstream) == 1:
        text = static_output(analysis.invocations[inv.upstream[0]])
    if text is None:
        return [Move(".", None, "patched", anywhere=True)] if inv.upstream else []
    from redline.gate.patch_apply import new_texts

    return [Move(t.path, (), "patched", whole=False, text=t.text)
            for t in new_texts(text, lambda path: None) if runs_unseen(t.path)]  # fmt: skip


def _operands(inv: Invocation) -> list[Word]:
    return [w for w in inv.options.operands if not w.value.startswith("-")]


def _copies(name: str, inv: Invocation) -> list[Move]:
    short, long = _VALUED.get(name, ("tS", ("target-directory",)))
    args = argv.parse(inv.values, short, long)
    if name == "install" and args.has("-d", "--directory"):
        return []  # creates folders: no content
    how = "linked" if name == "ln" or args.has("-s", "-l", "--symbolic-link", "--link") else ""
    how = how or {"mv": "moved", "install": "installed"}.get(name, "copied")
    if name in ("rsync", "scp"):
        how = "copied"
    operands = list(args.operands)
    into = args.value("-t", "--target-directory") if name != "rsync" else ()
    if into:
        return [Move(into[-1], _remote(name, operands), how, folder=True)]
    if name == "ln" and len(operands) == 1:
        return [Move(".", tuple(operands), how, folder=True)]
    if len(operands) < 2:
        return []
    destination, sources = operands[-1], _remote(name, operands[:-1])
    if name in ("rsync", "scp") and ":" in destination.split("/", 1)[0]:
        return []  # a remote destination: runs elsewhere
    exact = name != "rsync" and args.has("-T", "--no-target-directory")
    tree = name in ("mv", "ln", "rsync") or args.has("-r", "-R", "-a", "--recursive", "--archive")
    return [Move(destination, sources, how, maybe=not exact, tree=tree)]


def _remote(name: str, sources: list[str]) -> tuple[str, ...] | None:
    """A copy from another host is a download: no file here tells its content."""
    if name in ("rsync", "scp") and any(":" in s.split("/", 1)[0] for s in sources):
        return None
    return tuple(sources)


def _tar(inv: Invocation, analysis: Analysis) -> list[Move]:
    values = list(inv.values)
    if values and not values[0].startswith("-"):
        values[0] = "-" + values[0]  # `tar xzf F`: the old bundled spelling
    args = argv.parse(values, *_TAR_VALUED)
    extracts = any(f in args.flags for f in ("-x", "--extract", "--get"))
    if not extracts or args.has("-O", "--to-stdout"):
        return []
    folder = (args.value("-C", "--directory") or (".",))[-1]
    members = args.operands
    feeder = analysis.invocations[inv.upstream[0]] if len(inv.upstream) == 1 else None
    if feeder is not None and feeder.name == "git" and args.value("-f", "--file") in ((), ("-",)):
        # `git archive TREE PATHS | tar -x`: the paths it names are the members
        named = git_placed.archived(feeder.values)
        members = members if named is None else named
    return _extracted(folder, members)


def _extracted(folder: str, members: tuple[str, ...]) -> list[Move]:
    found = [Move(folder, None, "extracted", folder=True)]
    base = "" if folder == "." else folder.rstrip("/") + "/"
    found += [Move(base + m, None, "extracted") for m in members if "*" not in m]
    return found


def _unzip(inv: Invocation) -> list[Move]:
    args = argv.parse(inv.values, "dxP", ())
    if args.has("-l", "-p", "-t", "-v", "-Z", "-c"):
        return []  # lists, tests or prints: nothing extracted
    folder = (args.value("-d") or (".",))[-1]
    return _extracted(folder, args.operands[1:])


def _seven_zip(inv: Invocation) -> list[Move]:
    values = inv.values
    if not values or values[0] not in ("x", "e"):
        return []
    folder = next((v[2:] for v in values if v.startswith("-o") and len(v) > 2), ".")
    return [Move(folder, None, "extracted", folder=True)]


def _download(name: str, inv: Invocation) -> list[Move]:
    if name == "curl":
        args = argv.parse(inv.values, _CURL_VALUED, ("output", "output-dir", "config"))
        files = args.value("-o", "--output")
        folder = args.value("--output-dir")
        named = args.has("-O", "--remote-name", "--remote-name-all", "-J")
    elif name == "aria2c":
        args = argv.parse(inv.values, "odi", ("out", "dir", "input-file"))
        files, folder, named = args.value("-o", "--out"), args.value("-d", "--dir"), True
    else:
        args = argv.parse(inv.values, _WGET_VALUED, ("output-document", "directory-prefix"))
        files = args.value("-O", "--output-document")
        folder = args.value("-P", "--directory-prefix")
        named = not files
    found = [Move(f, None, "downloaded") for f in files if f != "-"]
    if named:
        where = folder[-1] if folder else "."
        found.append(Move(where, None, "downloaded", folder=True))
    return found


def _dd(inv: Invocation) -> list[Move]:
    given = dict(v.split("=", 1) for v in inv.values if "=" in v)
    target = given.get("of")
    if target is None:
        return []
    source = given.get("if")
    return [Move(target, (source,) if source else _stdin_file(inv), "streamed")]


def _unit_links(inv: Invocation) -> list[Move]:
    """`systemctl [--user] link|enable /path/x.service`: the unit, linked in."""
    args = argv.parse(inv.values, "HMpt", ("host", "machine", "property", "type"))
    words = [w for w in args.operands if DYNAMIC not in w]
    if not words or words[0] not in ("link", "enable", "reenable"):
        return []
    folder = "~/.config/systemd/user" if args.has("--user") else "/etc/systemd/system"
    units = [w for w in words[1:] if "/" in w]
    return [Move(f"{folder}/{u.rsplit('/', 1)[-1]}", None, "linked") for u in units]


def _redirected(inv: Invocation, analysis: Analysis) -> list[Move]:
    """A program's output sent to a file; `cat F > f` puts F there."""
    targets = [
        (r.target.value, ">>" in r.op)
        for r in inv.redirects
        if r.writes and r.target is not None and _later(r.target.value, inv.cwd)
    ]
    if not targets:
        return []
    from redline.shell.carriers import static_output

    if inv.name in _SILENT:  # `: > f` empties it (a file tool's write, to the gate)
        return [Move(t, (), "emptied", text="") for t, _ in targets]
    if inv.name == "cargo" and inv.subcommand() == "vendor":
        # `cargo vendor DIR > .cargo/config.toml`: source replacements, no command
        return [Move(t, (), "written", whole=not a, text="") for t, a in targets]
    if static_output(inv) is not None:
        return []  # its text is known: the `later.*` rules judge it
    if inv.name in ("echo", "printf") and inv.stdin_text is None:
        # Its text but a variable's value: judged with the value a reference
        # (a command made of one is asked; a token in `.npmrc` is not).
        from redline.shell import static_text

        values = tuple(v.replace(DYNAMIC, _VALUE) for v in inv.values)
        text = static_text.echo(values) if inv.name == "echo" else static_text.printf(values)
        if text is not None:
            return [Move(t, (), "written", whole=not a, text=text) for t, a in targets]
    sources: tuple[str, ...] | None = None
    if inv.name == "cat":
        files = [w.value for w in inv.options.operands]
        if any(f == "-" for f in files):
            sources = None
        elif files:
            sources = tuple(files)
        else:
            sources = stdin_sources(inv, analysis)
    how = "streamed" if sources is not None else "generated"
    return [Move(t, sources, how, whole=not append) for t, append in targets]


def stdin_sources(inv: Invocation, analysis: Analysis) -> tuple[str, ...] | None:
    """The file a program reads on stdin: `< F`, or `cat F |` before it."""
    redirected = _stdin_file(inv)
    if redirected is not None or not inv.upstream:
        return redirected
    feeders = [analysis.invocations[k] for k in inv.upstream]
    if len(feeders) == 1 and feeders[0].name == "cat" and not feeders[0].redirects:
        files = tuple(w.value for w in feeders[0].options.operands)
        return files if files and "-" not in files else None
    return None


def _stdin_file(inv: Invocation) -> tuple[str, ...] | None:
    for redirect in inv.redirects:
        if redirect.op == "<" and redirect.target is not None and not redirect.target.feeds:
            return (redirect.target.value,)
    return None


def _later(value: str, cwd: str | None) -> bool:
    normal = paths.normalize(value, cwd)
    return normal is not None and runs_unseen(normal)
