"""What a command that only turns text into text writes, computed statically
(F-SHELL-4): `echo`, `printf`, `cat`, decoders (`base64 -d`, `xxd -r -p`) and
transforms (`rev`, `tr`, `sed`, `cut`, `awk '{print ...}'`). Text that then
runs as code (`... | sh`, `$(...)`, `source <(...)`) is judged as what it
decodes to, not as the opaque text it was written as.

Every function here is pure: the program's arguments and what it reads on
stdin (`None` when unknown) in, its output out, `None` when it cannot be known.
The decoders and transforms are imported only when such a program is met.
"""

from __future__ import annotations

from redline.shell.lexer import decode_ansi_c
from redline.shell.model import DYNAMIC

# Programs whose output can be computed here.
DECODERS = frozenset({"base64", "base32", "basenc", "xxd", "openssl"})
DECOMPRESSORS = frozenset(
    {"gunzip", "zcat", "gzip", "unxz", "xzcat", "xz", "bunzip2", "bzcat", "bzip2"}
)
TRANSFORMS = frozenset({"rev", "tr", "sed", "cut", "head", "tail", "tac"})
AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})
PATHS = frozenset({"dirname", "basename"})
# Programs that print the names they are given: `ls -d NAME`, `compgen -W "WORDS"`.
NAMERS = frozenset({"ls", "compgen"})
PRODUCERS = (
    (frozenset({"echo", "printf", "cat", "tee"}) | DECODERS | DECOMPRESSORS | TRANSFORMS | AWKS)
    | PATHS
    | NAMERS
    | {"getent"}
)
# Bounds on work: longer text is not computed (it stays unknown).
MAX_TEXT = 64 * 1024


def output(name: str, values: tuple[str, ...], stdin: str | None) -> str | None:
    """What `name values...` writes on stdout, when it can be known."""
    if name == "getent":
        return _passwd_entry(values)
    if name not in PRODUCERS or any(DYNAMIC in v for v in values):
        return None
    if stdin is not None and (DYNAMIC in stdin or len(stdin) > MAX_TEXT):
        return None
    if name == "echo" or name == "printf":
        text = echo(values) if name == "echo" else printf(values)
        # A NUL written (`printf '%s\0' ~`) ends a name, as for `xargs -0`; the
        # character itself is the analysis' mark for a run-time value.
        text = None if text is None else text.replace(DYNAMIC, "\n")
    elif name in NAMERS:
        text = _names(name, values)
    elif name in ("cat", "tee"):
        # `tee FILE` writes what it reads on stdout too; `cat FILE` reads a file.
        files = [v for v in values if v != "-" and (name == "cat" or not v.startswith("-"))]
        text = stdin if not files or name == "tee" else None
    elif name in PATHS:
        text = _path_part(name, values)
    elif name in DECODERS or name in DECOMPRESSORS:
        from redline.shell import decoders

        if name in DECODERS:
            text = decoders.decode(name, values, stdin)
        else:
            text = decoders.decompress(name, values, stdin)
    elif name in AWKS:
        from redline.shell import awk_print

        text = awk_print.run(values, stdin)
    else:
        from redline.shell import transforms

        text = transforms.run(name, values, stdin)
    if text is None or DYNAMIC in text or len(text) > MAX_TEXT:
        return None
    return text


def _names(name: str, values: tuple[str, ...]) -> str | None:
    """`ls -d NAME...` prints the names (when they exist: they may not, so this
    is what it prints at most); `compgen -W "WORDS" [PREFIX]` the words that
    start with PREFIX. Globs, other options, and listings of folders: unknown."""
    from redline.shell import paths

    if name == "ls":
        flags = [v for v in values if v.startswith("-") and v != "-"]
        names = [v for v in values if not v.startswith("-") or v == "-"]
        if any(f.strip("-d1aA") for f in flags):
            return None
        if not names:
            # The folder's entries, by name: every name the folder holds.
            return "*\n" if not any("d" in f for f in flags) else ".\n"
        if not any("d" in f for f in flags) and not all(paths.is_glob(v) for v in names):
            return None
        # A glob stands for the names it matches (`ls -d /home/*`: every home).
        return "".join(v + "\n" for v in names)
    if len(values) == 2 and values[0] == "-G":
        return values[1] + "\n"  # the names the glob matches
    if len(values) in (1, 2) and values[0] in _COMPLETES_NAMES:
        prefix = values[1] if len(values) == 2 else ""
        # Every file or folder whose name starts with PREFIX: `compgen -d /` is `/*`.
        return None if paths.is_glob(prefix) else prefix + "*\n"
    if len(values) not in (2, 3) or values[0] != "-W":
        return None
    prefix = values[2] if len(values) == 3 else ""
    return "".join(w + "\n" for w in values[1].split() if w.startswith(prefix))


_COMPLETES_NAMES = frozenset({"-d", "-f"})


def _passwd_entry(values: tuple[str, ...]) -> str | None:
    """`getent passwd NAME`: NAME's entry, its home spelled `~NAME` (the
    judge does not read the machine's table). A name known only at run time
    is left to `pure` (`$USER` is the owner)."""
    if len(values) != 2 or values[0] != "passwd":
        return None
    user = values[1]
    if not user or DYNAMIC in user or any(c in user for c in ":/ \t\n~"):
        return None
    return f"{user}:x:1000:1000::~{user}:/bin/sh\n"


def _path_part(name: str, values: tuple[str, ...]) -> str | None:
    """`dirname PATH...`, `basename PATH [SUFFIX]` as coreutils write them."""
    if not values or any(v.startswith("-") for v in values):
        return None
    import posixpath

    if name == "dirname":
        parts = []
        for value in values:
            stripped = value.rstrip("/") or "/"
            if stripped.startswith("~") and "/" not in stripped:
                parts.append(stripped + "/..")  # a home's parent, wherever the home is
                continue
            head = posixpath.dirname(stripped) if stripped != "/" else "/"
            parts.append((head.rstrip("/") or "/") if head else ".")
        return "\n".join(parts) + "\n"
    if len(values) > 2:
        return None
    if values[0].startswith("~") and "/" not in values[0].rstrip("/"):
        return None  # the home's own name is not known here
    base = posixpath.basename(values[0].rstrip("/")) or ("/" if values[0] else "")
    if any(c in base for c in "*?["):
        return None  # a glob's last part: the names the run finds, not known here
    if len(values) == 2 and base != values[1] and base.endswith(values[1]):
        base = base[: -len(values[1])]
    return base + "\n"


def echo(values: tuple[str, ...]) -> str:
    """bash's builtin `echo`: `-n`, `-e`, `-E` flags, escapes only with `-e`."""
    newline, escapes, k = True, False, 0
    while k < len(values) and len(values[k]) > 1 and values[k][0] == "-":
        flags = values[k][1:]
        if flags.strip("neE"):
            break
        for flag in flags:
            newline = newline and flag != "n"
            escapes = flag == "e" if flag in "eE" else escapes
        k += 1
    text = " ".join(values[k:])
    if escapes:
        text, stopped = echo_escapes(text)
        newline = newline and not stopped
    return text + "\n" if newline else text


def echo_escapes(text: str) -> tuple[str, bool]:
    """`echo -e` and `printf %b` escapes: `\\0NNN` octal, `\\c` stops the output.
    Returns the text and whether `\\c` stopped it."""
    if "\\" not in text:
        return text, False
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        e = text[i + 1]
        if e == "c":
            return "".join(out), True
        if e == "0":
            j = i + 2
            while j < n and j - i < 5 and text[j] in "01234567":
                j += 1
            out.append(chr(int(text[i + 2 : j] or "0", 8) & 0xFF))
            i = j
            continue
        end = i + 2
        if e in "xuU":
            limit = {"x": 2, "u": 4, "U": 8}[e]
            while end < n and end - i - 2 < limit and text[end] in _HEX:
                end += 1
        elif e in "1234567":
            while end < n and end - i < 4 and text[end] in "01234567":
                end += 1
        out.append(decode_ansi_c(text[i:end]))
        i = end
    return "".join(out), False


_HEX = frozenset("0123456789abcdefABCDEF")
_INT_CONVERSIONS = frozenset("diouxX")


def printf(values: tuple[str, ...]) -> str | None:
    """bash's builtin `printf FORMAT ARGS...`; the format is used again while
    arguments remain. `None` for `-v` (it writes a variable, not stdout)."""
    if values and values[0] == "--":
        values = values[1:]
    if not values or values[0].startswith("-v"):
        return None
    return format_text(values[0], list(values[1:]))


def format_text(fmt: str, args: list[str]) -> str | None:
    out: list[str] = []
    for _round in range(64):
        used, stopped = _format_once(fmt, args, out)
        if stopped or used == 0 or not args:
            return "".join(out)
    return None


def _format_once(fmt: str, args: list[str], out: list[str]) -> tuple[int, bool]:
    """One pass of the format over `args` (consumed); returns how many
    arguments it used and whether `\\c` in a `%b` argument stopped the output."""
    used, i, n = 0, 0, len(fmt)
    while i < n:
        c = fmt[i]
        if c == "\\":
            end = i + 2
            if end <= n and fmt[i + 1] in "01234567xuU":
                limit = {"x": 2, "u": 4, "U": 8}.get(fmt[i + 1], 2)
                digits = _HEX if fmt[i + 1] in "xuU" else frozenset("01234567")
                while end < n and end - i - 2 < limit and fmt[end] in digits:
                    end += 1
            out.append(decode_ansi_c(fmt[i:end]))
            i = end
            continue
        if c != "%" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        if fmt[i + 1] == "%":
            out.append("%")
            i += 2
            continue
        j = i + 1
        while j < n and fmt[j] in "-+ #0123456789.":
            j += 1
        if j >= n:
            out.append(fmt[i:])
            return used, False
        spec, conversion = fmt[i + 1 : j], fmt[j]
        i = j + 1
        arg = args.pop(0) if args else ""
        used += 1
        if conversion == "b":
            text, stopped = echo_escapes(arg)
            out.append(text)
            if stopped:
                return used, True
        elif conversion in ("s", "q"):
            if conversion == "q":
                from redline.shell.carriers import quote

                arg = quote(arg)
            out.append(_pad("%" + spec + "s", arg))
        elif conversion == "c":
            out.append(arg[:1])
        elif conversion in _INT_CONVERSIONS:
            out.append(_pad("%" + spec + conversion, _integer(arg)))
        else:
            out.append(DYNAMIC)
    return used, False


def _integer(arg: str) -> int | str:
    text = arg.strip()
    if text[:1] in ("'", '"') and len(text) > 1:
        return ord(text[1])  # `printf %d "'A"`: the character's code
    try:
        return int(text or "0", 0)
    except ValueError:
        return DYNAMIC


def _pad(spec: str, value: int | str) -> str:
    if value == DYNAMIC:
        return DYNAMIC
    try:
        return spec.replace("u", "d") % value
    except (TypeError, ValueError, OverflowError):
        return DYNAMIC
