"""What `find` acts on: its starting points, and whether tests narrow them."""

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
    """What `{}` stands for: the root itself, or unknown files under it."""
    if narrowed(argv):
        return root.rstrip("/") + "/" + DYNAMIC
    return root
