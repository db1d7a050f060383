"""Programs that write a file named by an option or a fixed operand.

`sort -o ~/.bashrc`, `redline log export -o ~/.profile`, `curl -D ~/.bashrc`,
`gcc -o ~/.local/bin/git`: the same write as `> FILE`, spelled as an
argument. `targets.written_files` yields these beside redirects, so every
rule that judges what is written (shell startup files, agent configs, hooks,
block devices) sees them.

Each entry: the short letters and long names of the program's options that
take a value (so operands are told from option values), then the options
whose value is a written file, then which operand (if any) is one.
"""

from __future__ import annotations

from collections.abc import Iterator

from redline.fasttuple import NamedTuple
from redline.rules import argv
from redline.shell.disk_copies import VALUED
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex


class Output(NamedTuple):
    short_values: str
    long_values: tuple[str, ...]
    written: tuple[str, ...]  # `-o`, `--output`: options whose value is written
    operand: int | None = None  # the operand written (`sponge FILE`: 0; `uniq IN OUT`: 1)
    # Options end at the first operand (`ssh HOST CMD -E x`: the remote command's words).
    stops: bool = False


# rsync's options that take a value (its `--log-file` is appended to).
RSYNC_VALUED = VALUED["rsync"][1]  # one table: the copiers' valued options
_CC = Output("oIDLlxuUBF", ("output",), ("-o", "--output"))
_PG_DUMP = Output("fFdhpUnNtTZjSE", ("file", "format", "dbname", "host", "port", "username"),
                  ("-f", "--file"))  # fmt: skip
# `curl` and `wget` beyond their downloads (`rules.sensitive` reads those):
# headers, cookies, traces and logs written where the caller says.
OUTPUTS: dict[str, Output] = {
    "sort": Output(
        "kotST",
        (
            "key",
            "output",
            "field-separator",
            "buffer-size",
            "temporary-directory",
            "parallel",
            "batch-size",
            "compress-program",
            "files0-from",
            "random-source",
        ),
        ("-o", "--output"),
    ),
    "shuf": Output(
        "inoe", ("head-count", "output", "random-source", "input-range"), ("-o", "--output")
    ),
    "redline": Output(
        "o", ("output", "since", "until", "format", "store", "limit"), ("-o", "--output")
    ),
    "iconv": Output("oft", ("output", "from-code", "to-code"), ("-o", "--output")),
    "pandoc": Output("oftrwMVHBAcd", ("output", "from", "to", "read", "write"), ("-o", "--output")),
    "msgfmt": Output("oD", ("output-file", "directory"), ("-o", "--output-file")),
    "gpg": Output("ourkRs", ("output", "recipient", "local-user", "homedir"), ("-o", "--output")),
    "gpg2": Output("ourkRs", ("output", "recipient", "local-user", "homedir"), ("-o", "--output")),
    "strace": Output("oepsEuIabPSX", ("output",), ("-o", "--output")),
    "ltrace": Output("oepsEuaAnlLS", ("output",), ("-o", "--output")),
    "time": Output("of", ("output", "format"), ("-o", "--output")),
    "tcpdump": Output("wirCcFGMsTVWyzZEB", ("interface",), ("-w",)),
    "curl": Output(
        "oudHAXTFebcDEKmrw",
        (
            "output",
            "dump-header",
            "cookie-jar",
            "trace",
            "trace-ascii",
            "stderr",
            "libcurl",
            "data",
            "header",
            "user",
            "request",
        ),
        (
            "-o",
            "--output",
            "-D",
            "--dump-header",
            "-c",
            "--cookie-jar",
            "--trace",
            "--trace-ascii",
            "--stderr",
            "--libcurl",
        ),
    ),
    "wget": Output(
        "OoaPUeTt",
        ("output-document", "output-file", "append-output"),
        ("-O", "--output-document", "-o", "--output-file", "-a", "--append-output"),
    ),
    "pg_dump": _PG_DUMP,
    "pg_dumpall": _PG_DUMP,
    "mysqldump": Output(
        "rhuPpSB", ("result-file", "host", "user", "port"), ("-r", "--result-file")
    ),
    "gcc": _CC,
    "g++": _CC,
    "cc": _CC,
    "c++": _CC,
    "clang": _CC,
    "clang++": _CC,
    "ld": _CC,
    "rustc": Output("oLlC", ("out-dir", "crate-name", "edition", "target"), ("-o",)),
    "sponge": Output("", (), (), operand=0),
    "zstd": Output("oTL", ("output", "threads"), ("-o", "--output")),
    "lz4": Output("B", (), (), operand=1),
    "pv": Output("LsiNo", ("rate-limit", "size", "interval", "name", "output"), ("-o", "--output")),
    # util-linux script: `-q` is quiet (no value); `-B` logs input and output.
    "script": Output(
        "cEIOBTmo",
        (
            "command",
            "echo",
            "log-io",
            "log-out",
            "log-in",
            "log-timing",
            "logging-format",
            "output-limit",
        ),
        ("-O", "--log-out", "-B", "--log-io", "-I", "--log-in", "-T", "--log-timing"),
        operand=0,
    ),
    "uniq": Output("fsw", ("skip-fields", "skip-chars", "check-chars"), (), operand=1),
    "xxd": Output("cglosn", ("cols", "groupsize", "len", "seek", "name"), (), operand=1),
    # ssh's own log, appended to (`-E FILE`); words after the host are the remote command's.
    "ssh": Output("BbcDEeFIiJLlmOoPpQRSWw", (), ("-E",), stops=True),
    "rsync": Output("efBTM", RSYNC_VALUED, ("--log-file",)),
    "brotli": Output(
        "oqwDS", ("output", "quality", "lgwin", "dictionary", "suffix"), ("-o", "--output")
    ),
    # BSD and macOS base64 (`-o FILE`, `-i FILE`); GNU's has neither.
    "base64": Output("woib", ("wrap", "output", "input", "break"), ("-o", "--output")),
}
# Programs whose options are single-dash words (`openssl ... -out FILE`,
# `go build -o FILE`): the options whose value (next word, or after `=`) is
# written, for the subcommands that write it (any, when `None`).
_SINGLE_DASH: dict[str, tuple[tuple[str, ...], frozenset[str] | None]] = {
    "openssl": (("-out", "-keyout", "-signature"), None),
    "go": (("-o",), frozenset({"build", "test"})),
}
# `git archive -o FILE`, `git bundle create FILE`: git subcommands that write.
_GIT_WRITES = Output("o", ("output", "format", "prefix", "remote", "exec"), ("-o", "--output"))
# awk's own redirections (`print > "FILE"`, `printf ... >> "FILE"`), by every awk's name.
AWKS = frozenset({"awk", "gawk", "mawk", "nawk", "busybox-awk"})
# Programs whose output file is in their own words: sqlite3's `.output FILE`, ffmpeg's
# output operands (every word no option takes).
_OWN_WORDS = frozenset({"sqlite3", "ffmpeg"})
PROGRAMS = frozenset(OUTPUTS) | frozenset(_SINGLE_DASH) | {"git"} | AWKS | _OWN_WORDS


def outputs(inv: Invocation) -> Iterator[str]:
    """Raw values of the files `inv` writes through an option or operand."""
    single = _SINGLE_DASH.get(inv.name)
    if single is not None:
        yield from _single_dash(inv.values, *single)
        return
    if inv.name == "git":
        yield from _git_writes(inv.values)
        return
    if inv.name in AWKS:
        yield from awk_writes(inv.values)
        return
    if inv.name == "sqlite3":
        yield from _sqlite_outputs(inv.values)
        return
    if inv.name == "ffmpeg":
        yield from _ffmpeg_outputs(inv.values)
        return
    spec = OUTPUTS.get(inv.name)
    if spec is None:
        return
    args = argv.parse(inv.values, spec.short_values, spec.long_values, stop_at_operand=spec.stops)
    if spec.written:
        yield from args.value(*spec.written)
    if spec.operand is not None and len(args.operands) > spec.operand:
        yield args.operands[spec.operand]


def _single_dash(
    values: tuple[str, ...], options: tuple[str, ...], subcommands: frozenset[str] | None
) -> Iterator[str]:
    if subcommands is not None and not (values and values[0] in subcommands):
        return
    for k, value in enumerate(values):
        name, equals, attached = value.partition("=")
        if name.lstrip("-") and ("-" + name.lstrip("-")) in options:
            if equals:
                yield attached
            elif k + 1 < len(values):
                yield values[k + 1]


def _git_writes(values: tuple[str, ...]) -> Iterator[str]:
    """`git [-C DIR] archive -o FILE` / `--output=FILE`, `git bundle create FILE`."""
    args = argv.parse(values, "Cc", ("git-dir", "work-tree", "namespace"), stop_at_operand=True)
    if args.rest[:2] == ("bundle", "create"):
        bundle = argv.parse(args.rest[2:], "", ("since", "until"))  # rev-list's options too
        yield from bundle.operands[:1]
        return
    if args.rest[:1] != ("archive",):
        return
    rest = argv.parse(args.rest[1:], _GIT_WRITES.short_values, _GIT_WRITES.long_values)
    yield from rest.value(*_GIT_WRITES.written)


# `print > "FILE"` / `printf ... >> "FILE"`: the file a constant string names, the whole
# target expression (`> "/tmp/" $1` names a file computed per line: left out).
_AWK_WRITE = lazy_regex(r"""\bprintf?\b[^;{}\n]*?>>?\s*"((?:[^"\\\n]|\\.)*)"\s*(?=[;}\n)]|\Z)""")
_AWK_VALUED = ("fvF", ("file", "assign", "field-separator", "include", "load", "source"))
_STANDARD = ("/dev/stdout", "/dev/stderr", "-", "/dev/fd/1", "/dev/fd/2")


def awk_writes(values: tuple[str, ...]) -> Iterator[str]:
    """The files an awk program names in its own redirections."""
    args = argv.parse(values, *_AWK_VALUED)
    programs = list(args.value("--source"))
    if not args.value("-f", "--file") and args.operands:
        programs.append(args.operands[0])
    for program in programs:
        if ">" not in program:
            continue
        for match in _AWK_WRITE.finditer(program):
            name = match.group(1).replace('\\"', '"')
            if name and name not in _STANDARD:
                yield name


# sqlite3's dot-commands that send what follows into a file (`.once` for one query).
_SQLITE_OUTPUT = lazy_regex(
    r"(?:^|\n)\s*\.(?:output|once|out)((?:[ \t]+-\S+)*)[ \t]+('[^']*'|\"[^\"]*\"|\S+)"
)


def _sqlite_outputs(values: tuple[str, ...]) -> Iterator[str]:
    """`sqlite3 DB '.output FILE'` (also in `-cmd`): a file, not a `|command`."""
    for value in values:
        if ".o" not in value:
            continue
        for match in _SQLITE_OUTPUT.finditer(value):
            name = match.group(2).strip("'\"")
            if name and not name.startswith("|") and name not in _STANDARD:
                yield name


# ffmpeg's options that take no value: every other option takes the next word.
_FFMPEG_FLAGS = frozenset({"-y", "-n", "-nostdin", "-hide_banner", "-stats", "-nostats",
                           "-shortest", "-re", "-an", "-vn", "-sn", "-dn", "-copyts",
                           "-benchmark", "-ignore_unknown", "-stdin", "-dump", "-hex"})  # fmt: skip


def _ffmpeg_outputs(values: tuple[str, ...]) -> Iterator[str]:
    """ffmpeg's outputs: its words that are neither options nor their values."""
    k = 0
    while k < len(values):
        value = values[k]
        if value.startswith("-") and len(value) > 1:
            k += 1 if value in _FFMPEG_FLAGS or value.startswith("-no") else 2
            continue
        if value not in _STANDARD:
            yield value
        k += 1


# sed's `w FILE` command and the `w FILE` flag of `s///`: the file name runs
# to the end of the line (`W` writes the first line of the pattern space).
_SED_W = lazy_regex(
    r"(?:^|[;\n{}!])\s*(?:(?:\d+|\$|/(?:[^/\\\n]|\\.)*/)\s*(?:,\s*(?:\d+|\$|/(?:[^/\\\n]|\\.)*/))?\s*!?\s*)?[wW]\s+([^\n]+)"
    r"|s(.)(?:(?!\2)[^\\\n]|\\.)*\2(?:(?!\2)[^\\\n]|\\.)*\2[gpiImMe0-9]*w\s*([^\n]+)"
)


def sed_writes(inv: Invocation) -> Iterator[str]:
    """The files a sed script writes (`sed -n 'w FILE'`, `s/a/b/w FILE`)."""
    args = argv.parse(inv.values, "efl", ("expression", "file", "line-length"))
    scripts = list(args.value("-e", "--expression"))
    if not scripts and not args.value("-f", "--file") and args.operands:
        scripts = [args.operands[0]]
    for script in scripts:
        for match in _SED_W.finditer(script):
            name = (match.group(1) or match.group(3) or "").strip()
            if name and name not in ("/dev/stdout", "/dev/stderr"):
                yield name
