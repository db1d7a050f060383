"""Command substitutions the judge can evaluate (issue 18 family 5).

`$(pwd)`, `$(dirname "$PWD")`, `$(cd ..; pwd)`, `$(getent passwd $USER |
cut -d: -f6)`, `$(git rev-parse --show-toplevel)`: pure commands whose output
depends only on the working directory and static text. The parser does not
know the working directory, so it marks such a substitution (`marker`); the
analysis, which follows `cd`, replaces the mark by the value (`resolve`) or,
when it cannot be known, by the plain run-time mark (`DYNAMIC`) as before.
A target built from them is then judged as its value: a "workspace root"
that is the home directory is the home directory.
"""

from __future__ import annotations

from redline.shell.model import DYNAMIC, SimpleCommand, Word

_OPEN, _CLOSE = "\x01", "\x02"
# Blanks inside a mark would split an unquoted value into words: kept apart.
_HIDE = str.maketrans({" ": "\x03", "\t": "\x04", "\n": "\x05"})
_SHOW = str.maketrans({"\x03": " ", "\x04": "\t", "\x05": "\n"})
# The first words of a command substitution worth marking.
HEADS = frozenset({"pwd", "cd", "dirname", "basename", "realpath", "readlink", "echo", "printf",
                   "getent", "whoami", "id", "logname", "git", "builtin", "command",
                   "mktemp"})  # fmt: skip
_MAX_TEXT = 512


def marker(inner: str) -> str:
    """What the parser puts for `$(inner)`: a mark the analysis can evaluate
    when `inner` may be pure, else the plain run-time mark."""
    head = inner.lstrip(" \t\n(").split(None, 1)[:1]
    if not head or head[0].rstrip(";") not in HEADS or len(inner) > _MAX_TEXT:
        return DYNAMIC
    if _OPEN in inner or _CLOSE in inner or DYNAMIC in inner:
        return DYNAMIC
    return DYNAMIC + _OPEN + inner.translate(_HIDE) + _CLOSE


def here_marker() -> str:
    """`$PWD`: the working directory, as `$(pwd)`."""
    return DYNAMIC + _OPEN + "pwd" + _CLOSE


def only_marks(value: str) -> bool:
    """Every run-time part of `value` is a mark (`ROOT=$(pwd)` keeps it)."""
    return value.count(DYNAMIC) == value.count(DYNAMIC + _OPEN)


def tmpdir_of(text: str) -> str | None:
    """`$TMPDIR` for the commands of `text`: `/tmp` when none of them may set
    it (any spelling of the name in the line makes it unknown)."""
    return None if "TMPDIR" in text else "/tmp"  # noqa: S108 - a name compared, not a file made


def may_mark(text: str) -> bool:
    """A cheap test: could the parser have marked anything in `text`?"""
    return "$(" in text or "`" in text or "PWD" in text


def resolve_command(
    cmd: SimpleCommand, cwd: str | None, tmpdir: str | None = None
) -> SimpleCommand:
    """The command with the marks in its words, redirect targets and
    assignments replaced by their values in `cwd` (`tmpdir`: `$TMPDIR`, when known)."""

    def word(w: Word) -> Word:
        return w._replace(value=resolve(w.value, cwd, True, tmpdir)) if _OPEN in w.value else w

    def plain(w: Word) -> Word:
        return w._replace(value=resolve(w.value, None, False)) if _OPEN in w.value else w

    if not any(_OPEN in w.value for w in (*cmd.words, *cmd.assignments)) and not any(
        r.target is not None and _OPEN in r.target.value for r in cmd.redirects
    ):
        return cmd
    # A program named by a substitution stays computed (`$(echo rm) x` is
    # judged as a computed command, as before).
    return cmd._replace(
        words=tuple(plain(w) for w in cmd.words[:1]) + tuple(word(w) for w in cmd.words[1:]),
        assignments=tuple(word(w) for w in cmd.assignments),
        redirects=tuple(
            r if r.target is None else r._replace(target=word(r.target)) for r in cmd.redirects
        ),
    )


def resolve(value: str, cwd: str | None, known: bool = True, tmpdir: str | None = None) -> str:
    """`value` with each mark replaced by the substitution's output (its
    trailing newlines dropped), or by `DYNAMIC` where it cannot be known
    (or is not to be: `known` false)."""
    if _OPEN not in value:
        return value
    out: list[str] = []
    i = 0
    while True:
        start = value.find(DYNAMIC + _OPEN, i)
        if start < 0:
            out.append(value[i:])
            break
        end = value.find(_CLOSE, start)
        if end < 0:
            out.append(value[i:])
            break
        out.append(value[i:start])
        inner = value[start + 2 : end].translate(_SHOW)
        out.append(_output(inner, cwd, tmpdir) if known else DYNAMIC)
        i = end + 1
    return "".join(out)


def _output(inner: str, cwd: str | None, tmpdir: str | None) -> str:
    from redline.shell.pure_commands import evaluate

    try:
        result = evaluate(inner, cwd, 0, tmpdir)
    except (ValueError, IndexError):  # text the small evaluator does not read
        result = None
    if result is None:
        return DYNAMIC
    result = result.rstrip("\n")
    # An output with blanks or none would split or vanish: not a path to judge.
    if not result or any(c in result for c in " \t\n") or "@me" in result:
        return DYNAMIC
    return result
