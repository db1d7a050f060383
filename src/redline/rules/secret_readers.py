"""Which files a command prints the content of (`secret.file-shown`): a
reader's file operands (`cat`, `sort`, `base64`, `sed -n p`, `awk 1`, `jq .`,
`diff`), what it reads on stdin (`cat < .env`, `< .env tr -d x`), `dd if=`,
a blob of git's (`git show HEAD:.env`), the input of `perl -ne`, and a file
inline code opens and prints (`python3 -c 'print(open(".env").read())'`).

A reader that keeps only the names (`cut -d= -f1 .env`, `awk -F= '{print $1}'
.env`, `sed 's/=.*//' .env`) and one that edits in place (`sed -i`) print no
value.
"""

from __future__ import annotations

from collections.abc import Iterator

from redline.shell.carriers import inline_code, interpreter_family
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import Word

# Programs that print (part of) the files they are given, or what they read.
PRINTERS = frozenset(
    {"cat", "less", "more", "head", "tail", "bat", "batcat", "grep", "egrep", "fgrep", "rg",
     "nl", "strings", "xxd", "od", "hexdump", "tac", "sort", "uniq", "base64", "base32",
     "basenc", "column", "fold", "rev", "paste", "cut", "sed", "awk", "gawk", "mawk", "nawk",
     "jq", "yq", "diff", "sdiff", "dd", "tee", "tr", "expand", "unexpand", "fmt", "pr", "comm",
     "join", "look", "iconv", "dos2unix", "gpg"}
)  # fmt: skip
# Interpreters whose inline code may open a file and print it.
INTERPRETERS = frozenset(
    {"python", "python3", "python2", "pypy3", "node", "nodejs", "bun", "deno", "ruby", "perl",
     "php", "lua", "luajit", "Rscript"}
)  # fmt: skip
_CODE_FAMILIES = frozenset({"python", "node", "ruby", "perl"})
_AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})
# `grep -q/-c/-l` and the like print no line of the file.
_QUIET = frozenset({"q", "c", "l", "L"})
_QUIET_LONG = frozenset({"quiet", "silent", "count", "files-with-matches",
                         "files-without-match"})  # fmt: skip
_GREPS = frozenset({"grep", "egrep", "fgrep", "rg"})
_AWK_NAMES = lazy_regex(r"\A\s*(?:\{\s*)?print\s+\$1\s*;?\s*\}?\s*\Z")
_SED_NAMES = lazy_regex(r"\As(.)=\.\*\1\1g?\Z")
_PRINTS = lazy_regex(
    r"\bprint|\bputs\b|\bsay\b|console\.(?:log|info|error)|stdout|\becho\b|\bcat\(|\bp\s*\(|"
    r"\bwriteLines\b|\bio\.write\b|\bpp\b"
)
_QUOTED = lazy_regex(r"""(['"])([^'"\n]{1,256})\1""")


def read_files(inv: Invocation) -> Iterator[Word]:
    """The words naming files whose content `inv` prints."""
    for redirect in inv.redirects:
        if redirect.op == "<" and redirect.fd in (None, 0) and redirect.target is not None:
            yield redirect.target  # `cat < .env`, `< .env base64`
    name = inv.name
    if name not in PRINTERS:
        if name == "git":
            yield from _git_blobs(inv)
        elif name in INTERPRETERS or interpreter_family(name) in _CODE_FAMILIES:
            yield from _code_reads(inv)
        return
    options = inv.options
    operands = options.operands
    if name in _GREPS:
        if options.short & _QUIET or options.long & _QUIET_LONG:
            return
        if not (options.short & {"e", "f"} or options.long & {"regexp", "file"}):
            operands = operands[1:]  # the first operand is the pattern
    elif name == "sed" and ("i" in options.short or "in-place" in options.long):
        return  # edits the file in place: prints nothing of it
    elif name in ("tee", "tr"):
        return  # their operands are outputs, or sets of characters
    elif name == "dd":
        operands = tuple(
            w._replace(value=w.value[3:]) for w in operands if w.value.startswith("if=")
        )
    if _names_only(name, inv.values):
        return
    yield from operands


def _names_only(name: str, values: tuple[str, ...]) -> bool:
    """`cut -d= -f1`, `awk -F= '{print $1}'`, `sed 's/=.*//'`: `NAME=value`
    lines cut to their names."""
    if name == "cut":
        return _option(values, "-d", "--delimiter") == "=" and _option(
            values, "-f", "--fields"
        ) in ("1", "1,")
    if name in _AWKS:
        separated = any(v in ("-F=", "-F") or v.startswith("-F=") for v in values)
        return separated and any(_AWK_NAMES.match(v) for v in values)
    if name == "sed":
        return any(_SED_NAMES.match(v) for v in values)
    return False


def _option(values: tuple[str, ...], short: str, long: str) -> str | None:
    """The value of an option given as `-dX`, `-d X`, `--long=X` or `--long X`."""
    for k, value in enumerate(values):
        if value in (short, long):
            return values[k + 1] if k + 1 < len(values) else None
        if value.startswith(long + "="):
            return value[len(long) + 1 :]
        if value.startswith(short) and not value.startswith("--"):
            return value[len(short) :]
    return None


def _git_blobs(inv: Invocation) -> Iterator[Word]:
    """`git show REV:PATH`, `git cat-file -p REV:PATH`: the file as committed."""
    operands = inv.options.operands
    shows = next((k for k, w in enumerate(operands) if w.value in ("show", "cat-file")), None)
    if shows is None:
        return
    for word in operands[shows + 1 :]:
        rev, colon, path = word.value.partition(":")
        if colon and path and "/" not in rev.strip("~^@{}"):
            yield word._replace(value=path.lstrip("/"))


def _code_reads(inv: Invocation) -> Iterator[Word]:
    """Paths inline code names, when it prints something (`print(open(P).read())`),
    and the input files of `perl -ne` / `ruby -pe`."""
    code = inline_code(inv)
    if code is None:
        return
    family = interpreter_family(inv.name)
    if family in ("perl", "ruby") and _reads_lines(inv):
        code_seen = False
        for word in inv.options.operands:
            if not code_seen and word.value == code:
                code_seen = True
                continue
            if code_seen:
                yield word
    if not _PRINTS.search(code):
        return
    for match in _QUOTED.finditer(code):
        text = match.group(2)
        yield Word(text, inv.span, text)


def _reads_lines(inv: Invocation) -> bool:
    """`perl -ne`/`-pe`, `ruby -ne`/`-pe`: the code runs on every input line."""
    return bool(inv.options.short & {"n", "p"})
