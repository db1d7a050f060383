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
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex


class Output(NamedTuple):
    short_values: str
    long_values: tuple[str, ...]
    written: tuple[str, ...]  # `-o`, `--output`: options whose value is written
    operand: int | None = None  # the operand written (`sponge FILE`: 0; `uniq IN OUT`: 1)


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
    "script": Output(
        "cEIOqT",
        ("command", "log-io", "log-out", "log-in", "log-timing"),
        ("-O", "--log-out", "--log-io", "-I", "--log-in", "-T", "--log-timing"),
        operand=0,
    ),
    "uniq": Output("fsw", ("skip-fields", "skip-chars", "check-chars"), (), operand=1),
    "xxd": Output("cglosn", ("cols", "groupsize", "len", "seek", "name"), (), operand=1),
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
PROGRAMS = frozenset(OUTPUTS) | frozenset(_SINGLE_DASH) | {"git"}


def outputs(inv: Invocation) -> Iterator[str]:
    """Raw values of the files `inv` writes through an option or operand."""
    single = _SINGLE_DASH.get(inv.name)
    if single is not None:
        yield from _single_dash(inv.values, *single)
        return
    if inv.name == "git":
        yield from _git_archive(inv.values)
        return
    spec = OUTPUTS.get(inv.name)
    if spec is None:
        return
    args = argv.parse(inv.values, spec.short_values, spec.long_values)
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


def _git_archive(values: tuple[str, ...]) -> Iterator[str]:
    """`git [-C DIR] archive -o FILE` / `--output=FILE`."""
    args = argv.parse(values, "Cc", ("git-dir", "work-tree", "namespace"), stop_at_operand=True)
    if args.rest[:1] != ("archive",):
        return
    rest = argv.parse(args.rest[1:], _GIT_WRITES.short_values, _GIT_WRITES.long_values)
    yield from rest.value(*_GIT_WRITES.written)


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
