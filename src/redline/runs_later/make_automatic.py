"""Make's automatic variables, from the rule a recipe belongs to.

`$@` is the target the recipe runs for (each target of a rule with many,
one run each), `$<` the first prerequisite, `$^` the prerequisites without
repeats, `$+` with them, `$?` those newer than the target (any of them),
`$|` the order-only ones, `$*` the stem; `$(@D)`, `$(<F)`... their folder
and file parts. A target or prerequisite that *is* a place (`$(HOME):`,
`all: ~/.ssh/id_rsa`) is then seen where the recipe uses it.
"""

from __future__ import annotations

from redline.fasttuple import NamedTuple
from redline.shell.lazy_regex import lazy_regex

# Targets past this many run the recipe too: the rest are one run's words.
_MOST_TARGETS = 8


class Rule(NamedTuple):
    """What a recipe's automatic variables are made of (expanded words)."""

    targets: tuple[str, ...]
    prerequisites: tuple[str, ...]
    order_only: tuple[str, ...]


# The automatic variables, and the mark each stands for in a line expanded once.
NAMES = tuple(f"{base}{part}" for base in "@<^+?|*%" for part in ("", "D", "F"))
MARKS = {name: f"\x01{name}\x01" for name in NAMES}
_MARK = lazy_regex("\x01([^\x01]{1,2})\x01")
# A recipe line outside any rule: its automatic variables are a word.
NO_RULE = Rule(("target",), ("target",), ())


def marked(texts: list[str]) -> frozenset[str]:
    """The automatic variables whose marks `texts` holds."""
    return frozenset(m for t in texts if "\x01" in t for m in _MARK.findall(t))


def unmarked(texts: list[str], rule: Rule, names: frozenset[str]) -> list[str]:
    """`texts` for each run of the rule, the marks replaced by its values."""
    if not texts:
        return texts
    pieces = [_pieces(t) for t in texts]
    found: list[str] = []
    for scope in scopes(rule, names):
        for parts in pieces:
            found.append("".join(p if k % 2 == 0 else scope[p] for k, p in enumerate(parts)))
    return list(dict.fromkeys(found))


def _pieces(text: str) -> list[str]:
    """A marked text split at its marks: text, name, text, name... text."""
    found = _SPLITS.get(text)
    if found is None:
        if len(_SPLITS) > 512:
            _SPLITS.clear()
        found = _SPLITS[text] = _MARK.split(text)
    return found


# The splits of the marked lines of the makefile being read (its recipes'
# lines repeat from rule to rule).
_SPLITS: dict[str, list[str]] = {}


def scopes(rule: Rule, names: frozenset[str]) -> list[dict[str, str]]:
    """One binding of the automatic variables `names` per run of the recipe."""
    if len(rule.targets) == 1:
        target = rule.targets[0]
        return [{name: _value(name, target, rule) for name in names}]
    targets = list(dict.fromkeys(rule.targets)) or [""]
    if len(targets) > _MOST_TARGETS:
        targets = [*targets[: _MOST_TARGETS - 1], " ".join(targets[_MOST_TARGETS - 1 :])]
    return [{name: _value(name, target, rule) for name in names} for target in targets]


def _value(name: str, target: str, rule: Rule) -> str:
    base, part = name[0], name[1:]
    prerequisites = rule.prerequisites
    if base == "@":
        value = target
    elif base == "<":
        value = prerequisites[0] if prerequisites else ""
    elif base in "^?":
        value = " ".join(dict.fromkeys(prerequisites))
    elif base == "+":
        value = " ".join(prerequisites)
    elif base == "|":
        value = " ".join(dict.fromkeys(rule.order_only))
    elif base == "*":
        value = _stem(target)
    else:
        value = ""
    if part == "D":
        return " ".join(_folder(w) for w in value.split())
    if part == "F":
        return " ".join(w.rstrip("/").rsplit("/", 1)[-1] for w in value.split())
    return value


def _folder(word: str) -> str:
    """`$(@D)`: the folder part without its trailing slash, `.` for none."""
    head, slash, _ = word.rpartition("/")
    return (head or "/") if slash else "."


def _stem(target: str) -> str:
    """`$*`: a pattern rule's stem is the goal's (not in the file: the
    pattern's `%` stays); else the target less its suffix."""
    if "%" in target:
        return "%"
    head, dot, suffix = target.rpartition(".")
    return head if dot and head and "/" not in suffix else target
