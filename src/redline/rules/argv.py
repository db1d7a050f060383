"""Reading a program's own options when the generic reading is not enough:
options that take a value (`-c SQL`, `-cSQL`, `--command SQL`,
`--command=SQL`), and subcommands that come after global options
(`git -C dir push`, `systemctl --user stop x`), and abbreviated long options
(`git push --forc`, `psql --comm SQL`) for programs that accept them."""

from collections.abc import Iterable, Sequence

from redline.fasttuple import NamedTuple


class Args(NamedTuple):
    """Flags as written (`-f`, `--force`), operands in order, and the values
    of options that take one, keyed the same way."""

    flags: frozenset[str]
    operands: tuple[str, ...]
    values: tuple[tuple[str, str], ...]
    # Words left unread after `stop_at_operand` ended the reading.
    rest: tuple[str, ...] = ()

    def has(self, *names: str) -> bool:
        return any(name in self.flags for name in names)

    def value(self, *names: str) -> tuple[str, ...]:
        return tuple(v for k, v in self.values if k in names)


def parse(
    words: Sequence[str],
    short_values: str = "",
    long_values: Iterable[str] = (),
    *,
    stop_at_operand: bool = False,
    long_names: Iterable[str] = (),
) -> Args:
    """Read `words` (the arguments, without the program name).

    `short_values` are the letters and `long_values` the long names (without
    dashes) of options that take a value. With `stop_at_operand`, reading
    ends at the first operand, which is returned with everything after it in
    `rest` (for global options before a subcommand).

    `long_names` are the program's other long options, for programs whose
    parser takes any unambiguous prefix (getopt_long, git): given them, a
    prefix is read as the one option it abbreviates, so `--forc` is `--force`
    and `--comm SQL` takes its value. An exact name always wins; a prefix of
    several is kept as written (the program refuses it).
    """
    takes_long = frozenset(long_values)
    known = takes_long.union(long_names) if long_names else None
    flags: set[str] = set()
    operands: list[str] = []
    values: list[tuple[str, str]] = []
    k, n = 0, len(words)
    while k < n:
        word = words[k]
        k += 1
        if word == "--":
            operands.extend(words[k:])
            break
        if not word.startswith("-") or word == "-":
            if stop_at_operand:
                return Args(frozenset(flags), (), tuple(values), tuple(words[k - 1 :]))
            operands.append(word)
        elif word.startswith("--"):
            name, eq, value = word[2:].partition("=")
            if known is not None and name not in known:
                # An ambiguous prefix (git refuses it) counts as each option
                # it could be: a rule never misses `--forc` for `--force`.
                names = _unabbreviate(name, known)
                name = names[0]
                flags.update("--" + n for n in names)
            flags.add("--" + name)
            if eq:
                values.append(("--" + name, value))
            elif name in takes_long and k < n:
                values.append(("--" + name, words[k]))
                k += 1
        else:
            for i, letter in enumerate(word[1:], 1):
                flags.add("-" + letter)
                if letter in short_values:
                    attached = word[i + 1 :]
                    if attached:
                        values.append(("-" + letter, attached))
                    elif k < n:
                        values.append(("-" + letter, words[k]))
                        k += 1
                    break
    return Args(frozenset(flags), tuple(operands), tuple(values))


def _unabbreviate(prefix: str, known: frozenset[str]) -> tuple[str, ...]:
    if not prefix:
        return (prefix,)
    matches = sorted(name for name in known if name.startswith(prefix))
    return tuple(matches) or (prefix,)
