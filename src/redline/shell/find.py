"""What `find` and `fd` act on: their starting points, whether tests narrow
them, and the command `fd -x` runs on each match."""

from __future__ import annotations

from redline.shell.model import DYNAMIC, Word

# Tests that pick files by name or path: with one of these, `find / ... -delete`
# deletes the matching files, not the whole tree.
_NAME_TESTS = frozenset(
    {"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
     "-lname", "-ilname", "-inum", "-samefile", "-links", "-empty"}
)  # fmt: skip
_MATCH_ALL = frozenset({"*", "*.*", ".*", "/*", "*/*", "**"})


def roots(argv: tuple[Word, ...]) -> tuple[Word, ...]:
    """The starting points: the operands before the first expression."""
    found: list[Word] = []
    for word in argv[1:]:
        if word.value.startswith(("-", "(", "!")):
            break
        found.append(word)
    return tuple(found)


def narrowed(argv: tuple[Word, ...]) -> bool:
    """Some test selects files by name or path (and not one matching everything)."""
    values = [w.value for w in argv]
    for k, value in enumerate(values[:-1]):
        if value in _NAME_TESTS and (value == "-empty" or values[k + 1] not in _MATCH_ALL):
            return True
    return "-empty" in values


def standing_for_found(root: str, argv: tuple[Word, ...]) -> str:
    """What `{}` stands for: the root itself, or unknown files under it; one
    level down, the name a lone `-name` test gives (`find / -maxdepth 1 -name
    etc` finds `/etc`; a pattern stands for the names it matches there)."""
    if narrowed(argv):
        name = _one_level_name(argv)
        return root.rstrip("/") + "/" + (DYNAMIC if name is None else name)
    return root


def _one_level_name(argv: tuple[Word, ...]) -> str | None:
    values = [w.value for w in argv]
    try:
        depth = values[values.index("-maxdepth") + 1]
    except (ValueError, IndexError):
        return None
    tests = [k for k, v in enumerate(values) if v in _NAME_TESTS]
    if depth != "1" or len(tests) != 1 or values[tests[0]] != "-name":
        return None
    if any(v in ("-o", "-or", "!", "-not", ",", "-prune") for v in values):
        return None
    name = values[tests[0] + 1] if tests[0] + 1 < len(values) else ""
    return name if name and "/" not in name and DYNAMIC not in name else None


# Labels of the commands a finder runs on what it finds (`find -exec`, `fd -x`).
FOUND_BY = ("find ", "fd ")
# The label of the command `xargs` runs on what `find` printed (`find ~ | xargs rm`).
PRINTED = "find -print"
FD_NAMES = frozenset({"fd", "fdfind"})
_FD_EXEC = frozenset({"-x", "--exec", "-X", "--exec-batch"})
# `fd` options that take a value, and the ones that filter what it finds.
_FD_VALUES = frozenset(
    {"-e", "--extension", "-t", "--type", "-E", "--exclude", "-d", "--max-depth", "--min-depth",
     "--exact-depth", "-S", "--size", "--changed-within", "--changed-before", "-o", "--owner",
     "-c", "--color", "-j", "--threads", "--max-results", "--base-directory", "--path-separator",
     "--search-path", "--ignore-file", "--format", "--batch-size", "--and"}
)  # fmt: skip
_FD_FILTERS = frozenset(
    {"-e", "--extension", "-t", "--type", "-E", "--exclude", "-S", "--size", "--changed-within",
     "--changed-before", "-o", "--owner", "--and", "-g", "--glob"}
)  # fmt: skip
_FD_MATCH_ALL = frozenset({".", "", "^", ".*", "*"})
_FD_PLACEHOLDERS = ("{//}", "{/.}", "{/}", "{.}", "{}")


def fd_exec(argv: tuple[Word, ...]) -> list[tuple[str, tuple[Word, ...]]]:
    """`fd [pattern] [path...] -x CMD`: each command `-x`/`-X` runs, as its
    option and argv, with the placeholders standing for what is found."""
    runs: list[tuple[str, tuple[Word, ...]]] = []
    operands: list[str] = []
    filtered = False
    k, n = 1, len(argv)
    while k < n:
        value = argv[k].value
        if value in _FD_EXEC:
            end = k + 1
            while end < n and argv[end].value != ";":
                end += 1
            runs.append((value, argv[k + 1 : end]))
            k = end + 1
            continue
        key = value.partition("=")[0]
        filtered = filtered or key in _FD_FILTERS
        if key == "--search-path" and "=" in value:
            operands.append(value.partition("=")[2])
        elif value in _FD_VALUES:
            if value == "--search-path" and k + 1 < n:
                operands.append(argv[k + 1].value)
            k += 1
        elif not value.startswith("-") or value == "-":
            operands.append(value)
        k += 1
    pattern, roots = (operands[0], operands[1:]) if operands else ("", [])
    narrowed_fd = filtered or pattern not in _FD_MATCH_ALL
    found = [r.rstrip("/") + "/" + DYNAMIC if narrowed_fd else r for r in roots or ["."]]
    return [(flag, _stand_in(inner, found)) for flag, inner in runs if inner]


def _stand_in(inner: tuple[Word, ...], found: list[str]) -> tuple[Word, ...]:
    words: list[Word] = []
    for word in inner:
        if "{" not in word.value:
            words.append(word)
            continue
        for path in found:
            value = word.value
            for placeholder in _FD_PLACEHOLDERS:
                value = value.replace(placeholder, path)
            words.append(word._replace(value=value))
    return tuple(words)


# What makes `find` do something other than print the names (or print them elsewhere).
_ACTIONS = frozenset(
    {"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf",
     "-printf", "-ls", "-fls", "-quit"}
)  # fmt: skip


def printed(argv: tuple[Word, ...]) -> tuple[str, ...] | None:
    """What `find` writes on a pipe, stood for as `{}` is: every file under each
    root (`find ~ -type f`), or unknown ones under it when narrowed by name.
    `None` when it runs actions instead of printing."""
    if any(w.value in _ACTIONS for w in argv[1:]):
        return None
    starts = roots(argv) or (Word(".", argv[0].span, "."),)
    return tuple(standing_for_found(root.value, argv) for root in starts)


def fed_words(
    inner: tuple[Word, ...], found: tuple[str, ...], replace: str | None
) -> tuple[Word, ...]:
    """`find ~ | xargs rm -f`: the command as it runs on the found files
    (appended, or in place of `-I`'s string)."""
    if replace and any(replace in w.value for w in inner):
        return tuple(
            w._replace(value=w.value.replace(replace, f)) if replace in w.value else w
            for w in inner
            for f in (found if replace in w.value else found[:1])
        )
    span = inner[-1].span
    return (*inner, *(Word(f, span, f) for f in found))
