"""Commands carried in option values and program scripts (F-SHELL-3).

`tar --to-command=CMD`, `tar -I CMD`, `rsync -e CMD`, `zip -TT CMD`,
`vim -c '!CMD'`, `gdb -ex 'shell CMD'`, `ssh -o ProxyCommand=CMD`,
`man -P CMD`, `tcpdump -z CMD`, sed's `e CMD`, `parallel 'CMD {}' ::: ARGS`,
`mysql -e 'system CMD'`, `psql -c '\\! CMD'`, `sqlite3 db '.shell CMD'`, `less +'!CMD'`,
`sort --compress-program=CMD`, `rg --pre CMD`, `npx -c CMD`, `make --eval='t:; CMD'`:
each hands CMD to a shell. The analysis parses CMD again, so the rules judge
the command that runs, not the option that carries it.
"""

import re
from collections.abc import Callable, Iterator

from redline.fasttuple import NamedTuple
from redline.shell import longopts
from redline.shell.carriers import quote
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC, Word
from redline.shell.wrappers import WRAPPERS, skip_options


class Embedded(NamedTuple):
    label: str
    script: str
    # The command runs on the other machine (`rsync --rsync-path=CMD`).
    remote: bool = False


def _value(option: str, text: str) -> str | None:
    if option == "--checkpoint-action":
        # `--checkpoint-action=exec=CMD`: only the `exec` action runs a command.
        key, eq, command = text.partition("=")
        return command if eq and key == "exec" else None
    return text


_SSH_KEYS = frozenset({"proxycommand", "localcommand", "knownhostscommand"})


def _ssh_option(option: str, text: str) -> str | None:
    """`-o ProxyCommand=CMD`, `-o 'ProxyCommand CMD'`."""
    match = re.match(r"\s*([A-Za-z]+)\s*(?:=\s*|\s+)(.*)", text, re.DOTALL)
    if match is None or match.group(1).lower() not in _SSH_KEYS:
        return None
    command = match.group(2)
    return None if command.lower() == "none" else command


# An ex command that runs a shell: `!CMD`, `:silent !CMD`, `r !CMD`, `w !CMD`.
_EX_BANG = lazy_regex(
    r"^[\s:]*(?:sil(?:ent)?!?\s*)?(?:[%.$\d,]*\s*)?(?:r(?:ead)?|w(?:rite)?)?\s*!(.*)"
)
_EX_CALL = lazy_regex(r"""\b(?:system|systemlist|jobstart|termopen)\s*\(\s*(['"])(.*?)\1""")


def _ex_command(option: str, text: str) -> str | None:
    match = _EX_BANG.match(text)
    if match is not None:
        return match.group(1)
    call = _EX_CALL.search(text)
    return call.group(2) if call is not None else None


def _gdb_command(option: str, text: str) -> str | None:
    match = re.match(r"\s*(?:shell\s+|!)(.*)", text, re.DOTALL)
    return match.group(1) if match is not None else None


# A database client's shell escape inside the SQL it is given: mysql's and
# mariadb's `system CMD` / `\! CMD`, psql's `\! CMD`, each to the end of its line.
_CLIENT_SHELL = lazy_regex(r"(?:^|[;\n])\s*(?:system[ \t]+|\\!\s*)([^\n]*)", re.IGNORECASE)
_PSQL_SHELL = lazy_regex(r"(?:^|\n)\s*\\!\s*([^\n]*)")


_SQLITE_SHELL = lazy_regex(r"\s*\.(?:shell|system)[ \t]+([^\n]*)")


def _client_shell(option: str, text: str) -> str | None:
    match = _CLIENT_SHELL.search(text)
    return match.group(1) if match is not None else None


def _psql_shell(option: str, text: str) -> str | None:
    match = _PSQL_SHELL.search(text)
    return match.group(1) if match is not None else None


def _make_recipe(option: str, text: str) -> str | None:
    """`make --eval='all:; CMD'`: the recipe after a rule's `;`."""
    _, sep, recipe = text.partition(";")
    return recipe if sep else None


class _Spec(NamedTuple):
    # Short option letters whose value carries a command, and the other
    # letters that take a value (so a bundle is read right).
    short: str = ""
    short_values: str = ""
    # Long options (after abbreviation) whose value carries a command.
    long: frozenset[str] = frozenset()
    # Options spelled whole, with their value as the next word (`zip -TT`, `gdb -ex`).
    whole: frozenset[str] = frozenset()
    # The command in an option's value, if it runs one.
    read: Callable[[str, str], str | None] = _value
    remote_long: frozenset[str] = frozenset()
    # Letters whose value is optional and only ever attached (`mysql -pSECRET`, `-p`).
    attached_only: str = ""


_VIM = _Spec("c", "SoOpTuiwWrt", frozenset({"cmd"}), read=_ex_command)
_GDB = frozenset({"-ex", "--ex", "-eval-command", "--eval-command", "-iex", "--iex",
                  "-init-eval-command", "--init-eval-command"})  # fmt: skip
_TAR_COMMANDS = (
    "to-command use-compress-program rsh-command info-script new-volume-script checkpoint-action"
)
_REMOTE = frozenset({"rsync-path"})
_SSH = _Spec("o", "BbcDEeFIiJLlmOpQRSWw", read=_ssh_option)

_SPECS: dict[str, _Spec] = {
    "tar": _Spec("IF", "fCTXbgKLNVH", frozenset(_TAR_COMMANDS.split())),
    "rsync": _Spec("e", "fBTM", frozenset({"rsh", "rsync-path"}), remote_long=_REMOTE),
    "zip": _Spec(whole=frozenset({"-TT", "--unzip-command"})),
    "man": _Spec("P", "MmSseLCRE", frozenset({"pager"})),
    "tcpdump": _Spec("z", "BcCDEFGiMmrsTVwWyZ", frozenset({"postrotate-command"})),
    "gdb": _Spec(whole=_GDB, read=_gdb_command),
    "ssh": _SSH,
    "scp": _SSH,
    "sftp": _SSH,
    "autossh": _SSH,
    **dict.fromkeys(("vi", "vim", "nvim", "view", "vimdiff", "gvim", "ex"), _VIM),
    **dict.fromkeys(
        ("mysql", "mariadb"),
        _Spec("e", "uhPDSBOX", frozenset({"execute"}), read=_client_shell, attached_only="p"),
    ),
    "psql": _Spec("c", "dhpUfoLvPTF", frozenset({"command"}), read=_psql_shell),
    "sort": _Spec("", "kTStoy", frozenset({"compress-program"})),
    "rg": _Spec("", "efgmAtTBCEMj", frozenset({"pre", "hostname-bin"})),
    "ag": _Spec("", "AGBCgmp", frozenset({"pager"})),
    **dict.fromkeys(("npx", "npm"), _Spec("c", "p", frozenset({"call"}))),
    **dict.fromkeys(
        ("make", "gmake"), _Spec("E", "CfIjlOoW", frozenset({"eval"}), read=_make_recipe)
    ),
}
SPEC_NAMES = frozenset(_SPECS)


def scripts(inv: Invocation) -> list[Embedded]:
    name = inv.name
    if name == "sed":
        return [Embedded("sed e", s) for s in _sed_commands(inv)]
    if name == "parallel":
        return [Embedded("parallel", s) for s in parallel_scripts(inv.argv)]
    if name in ("sqlite3", "sqlite"):  # `sqlite3 db '.shell CMD'`, `-cmd '.system CMD'`
        dots = (_SQLITE_SHELL.match(v) for v in inv.values)
        return [Embedded(f"{name} .shell", m.group(1)) for m in dots if m is not None]
    if name == "less":  # `less +'!CMD' f`: a less command run at start
        return [Embedded("less +!", v[2:]) for v in inv.values if v.startswith("+!")]
    spec = _SPECS.get(name)
    if spec is None:
        return []
    found: list[Embedded] = []
    for option, value in _option_values(name, spec, inv.values):
        script = spec.read(option, value)
        if script and script.strip():
            found.append(Embedded(f"{name} {option}", script, option[2:] in spec.remote_long))
    if spec.read is _ex_command:  # `vim +'!CMD'`
        for value in inv.values:
            if value.startswith("+") and (script := _ex_command("+", value[1:])):
                found.append(Embedded(f"{name} +", script))
    return found


def _option_values(name: str, spec: _Spec, values: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    k, n = 0, len(values)
    while k < n:
        value = values[k]
        following = values[k + 1] if k + 1 < n else None
        k += 1
        if value == "--":
            return
        if value in spec.whole or value.partition("=")[0] in spec.whole:
            key, eq, attached = value.partition("=")
            if eq:
                yield key, attached
            elif following is not None:
                yield value, following
                k += 1
            continue
        if value.startswith("--"):
            key, eq, attached = value[2:].partition("=")
            key = longopts.resolve(name, key)
            if key in spec.long:
                if eq:
                    yield "--" + key, attached
                elif following is not None:
                    yield "--" + key, following
                    k += 1
            continue
        if not value.startswith("-") or value == "-":
            continue
        for i, letter in enumerate(value[1:], 1):
            if letter in spec.attached_only:
                break  # the rest of the word is its value; the next word is not
            if letter in spec.short or letter in spec.short_values:
                rest = value[i + 1 :]
                if not rest and following is not None:
                    rest = following
                    k += 1
                if letter in spec.short:
                    yield "-" + letter, rest
                break


# sed's `e CMD` command, after an optional address: it runs CMD (to the end
# of the line) with `sh`.
_SED_E = lazy_regex(
    r"(?:^|[;\n{}])\s*(?:(?:\d+|\$|/(?:[^/\\\n]|\\.)*/)(?:\s*,\s*(?:\d+|\$|/(?:[^/\\\n]|\\.)*/))?)?"
    r"\s*!?\s*e[ \t]+([^\n]+)"
)
_SED_VALUES = frozenset({"-e", "--expression", "-f", "--file", "-l", "--line-length"})


def _sed_commands(inv: Invocation) -> list[str]:
    return [m.group(1) for p in sed_programs(inv) for m in _SED_E.finditer(p)]


def sed_programs(inv: Invocation) -> list[str]:
    """The sed programs `inv` is given inline (`-e P`, `--expression=P`, or its first operand)."""
    values = inv.values
    programs: list[str] = []
    given = False
    k = 0
    while k < len(values):
        value = values[k]
        if value in ("-e", "--expression") and k + 1 < len(values):
            programs.append(values[k + 1])
            given = True
        elif value.startswith("--expression="):
            programs.append(value.partition("=")[2])
            given = True
        elif value.startswith("-e") and not value.startswith("--") and len(value) > 2:
            programs.append(value[2:])
            given = True
        elif value in ("-f", "--file") or value.startswith(("--file=", "-f")):
            given = True  # the program is in a file
        if value in _SED_VALUES:
            k += 1
        k += 1
    if not given:
        operands = [v for v in values if not v.startswith("-")]
        programs.extend(operands[:1])
    return programs


# GNU parallel: argument lists follow `:::`; the command line is the words
# before them (run by a shell), or each argument when there are none.
_ARG_SEPARATORS = frozenset({":::", ":::+"})
_FILE_SEPARATORS = frozenset({"::::", "::::+"})
_PLACEHOLDER = lazy_regex(r"\{(?:\d+)?(?:\.|/|//|/\.)?\}")
MAX_PARALLEL_ARGS = 16


def parallel_command(argv: tuple[Word, ...]) -> tuple[int, int] | None:
    """Where `parallel`'s command starts and ends when `:::` lists its
    arguments; `None` when they come on stdin or from files."""
    ends = [k for k, w in enumerate(argv) if w.value in _ARG_SEPARATORS]
    if not ends or any(w.value in _FILE_SEPARATORS for w in argv):
        return None
    start = skip_options("parallel", WRAPPERS["parallel"], argv, 1)
    return (ends[0], ends[0]) if start is None else (min(start, ends[0]), ends[0])


def parallel_scripts(argv: tuple[Word, ...]) -> list[str]:
    found = parallel_command(argv)
    if found is None:
        return []
    start, end = found
    template = " ".join(w.value for w in argv[start:end])
    groups: list[list[str]] = []
    for word in argv[end:]:
        if word.value in _ARG_SEPARATORS:
            groups.append([])
        elif groups:
            groups[-1].append(word.value)
    first = groups[0][:MAX_PARALLEL_ARGS] if groups else []
    others = [g[0] if g else "" for g in groups[1:]]
    scripts: list[str] = []
    for arg in first:
        args = [arg, *others]
        if not template:
            scripts.append(" ".join(args))
        elif _PLACEHOLDER.search(template):
            scripts.append(_PLACEHOLDER.sub(_Replacement(args), template))
        else:
            scripts.append(template + " " + " ".join(quote(a) for a in args))
    return scripts


class _Replacement:
    """`{}`, `{.}`, `{2}`...: the argument, quoted as parallel quotes it."""

    def __init__(self, args: list[str]) -> None:
        self.args = args

    def __call__(self, match: re.Match[str]) -> str:
        digits = match.group(0).strip("{}./")
        index = int(digits) - 1 if digits.isdigit() else 0
        value = self.args[index] if 0 <= index < len(self.args) else DYNAMIC
        return quote(value) if DYNAMIC not in value else value
