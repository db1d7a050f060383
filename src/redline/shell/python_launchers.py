"""Python's launcher modules, which run another module or script as
`__main__` (a program that runs another program): `python -m runpy MOD`,
`python -m cProfile -m MOD`, `python -m pdb script.py`, `python -m coverage
run -m MOD`, `python -m trace --module MOD`. Each is told again as the
plain run (`python -m MOD ARGS`, `python script.py ARGS`), which the rest
of the analysis and the gate judge: redline's own CLI, a script read from
disk.
"""

from __future__ import annotations

from redline.fasttuple import NamedTuple
from redline.shell.model import Word


class Launcher(NamedTuple):
    """How a launcher module is called: a verb it needs first (`coverage
    run`), its options that take a value, and those that name a module."""

    verb: str = ""
    values: frozenset[str] = frozenset()
    module_options: tuple[str, ...] = ("-m",)
    # The first operand is a module, not a script (`runpy`).
    module_operand: bool = False


def _l(verb: str = "", values: str = "", modules: str = "-m", module: bool = False) -> Launcher:
    return Launcher(verb, frozenset(values.split()), tuple(modules.split()), module)


LAUNCHERS: dict[str, Launcher] = {
    "runpy": _l(modules="", module=True),
    "cProfile": _l(values="-o -s --outfile --sort"),
    "profile": _l(values="-o -s --outfile --sort"),
    "pdb": _l(values="-c --command"),
    "trace": _l(values="-f --file -C --coverdir --ignore-module --ignore-dir",
                modules="--module"),
    "coverage": _l("run", "--rcfile --source --include --omit --context --data-file "
                          "--concurrency --debug", "-m --module"),
    "memray": _l("run", "-o --output --aggregate --native --follow-fork"),
    "pyinstrument": _l(values="-o --outfile -r --renderer -i --interval -p --render-option "
                              "--from-path"),
    "viztracer": _l(values="-o --output_file --tracer_entries --max_stack_depth",
                    modules="-m --module"),
    "scalene": _l(values="--outfile --profile-only --profile-exclude --cpu-sampling-rate"),
    "pudb": _l(), "ipdb": _l(values="-c --command"), "debugpy": _l(values="--listen --connect"),
}  # fmt: skip


def launched(module: str, rest: tuple[Word, ...], python: Word) -> tuple[Word, ...] | None:
    """The plain run a launcher module's arguments `rest` stand for: the
    python word, then `-m MOD ARGS` or `SCRIPT ARGS`; `None` if unknown."""
    launcher = LAUNCHERS.get(module)
    if launcher is None:
        return None
    k = 0
    if launcher.verb:
        while k < len(rest) and rest[k].value.startswith("-"):
            k += 1
        if k >= len(rest) or rest[k].value != launcher.verb:
            return None
        k += 1
    while k < len(rest):
        word = rest[k]
        value = word.value
        name, eq, attached = value.partition("=")
        if name in launcher.module_options:
            target = attached if eq else (rest[k + 1].value if k + 1 < len(rest) else "")
            after = rest[k + 1 :] if eq else rest[k + 2 :]
            return (python, word._replace(value="-m"), word._replace(value=target), *after)
        if value.startswith("-m") and len(value) > 2 and "-m" in launcher.module_options:
            named = word._replace(value=value[2:])  # `-mredline`
            return (python, word._replace(value="-m"), named, *rest[k + 1 :])
        if value == "--":
            k += 1
            break
        if not value.startswith("-") or value == "-":
            break
        k += 2 if name in launcher.values and not eq else 1
    if k >= len(rest):
        return None
    if launcher.module_operand:
        return (python, rest[k]._replace(value="-m"), *rest[k:])
    return (python, *rest[k:])


def zipapp_entry(rest: tuple[Word, ...], python: Word) -> tuple[Word, ...] | None:
    """`python -m zipapp DIR -m redline.cli.main:main -o a.pyz`: the archive's
    `__main__` imports and calls the gate's module, told as the code it
    writes (`python -c 'import redline.cli.main; ...'`); other entry points
    are the project's own, and `None`."""
    for k, word in enumerate(rest):
        name, eq, attached = word.value.partition("=")
        if name in ("-m", "--main"):
            entry = attached if eq else (rest[k + 1].value if k + 1 < len(rest) else "")
            module, _, function = entry.partition(":")
            if module.split(".", 1)[0] != "redline":
                return None
            code = f"import {module}; {module}.{function or 'main'}()"
            return (python, word._replace(value="-c"), word._replace(value=code))
    return None


# `python -m timeit`'s options (getopt: short letters bundle, long names may
# be shortened), and those that take a value (`-s SETUP` is code too).
_TIMEIT_LONG = ("number", "repeat", "setup", "unit", "process", "verbose", "help")
_TIMEIT_VALUED = "nrsu"


def timeit_code(rest: tuple[Word, ...], python: Word) -> tuple[Word, ...] | None:
    """`python -m timeit [-s SETUP] STATEMENT...` runs SETUP and the
    statements as Python: told as `python -c CODE`. Options end at the first
    statement (getopt), after which every word is a statement."""
    code: list[str] = []
    k = 0
    while k < len(rest):
        value = rest[k].value
        k += 1
        if value == "--" or not value.startswith("-") or value == "-":
            code.extend(w.value for w in rest[k - (value != "--") :])
            break
        if value.startswith("--"):  # `--setup=X`, `--set X`: a unique prefix
            name, eq, given = value[2:].partition("=")
            full = [o for o in _TIMEIT_LONG if o.startswith(name)] if name else []
            if len(full) == 1 and full[0][0] in _TIMEIT_VALUED:
                if not eq:
                    given = rest[k].value if k < len(rest) else ""
                    k += 1
                if full[0] == "setup":
                    code.append(given)
            continue
        for i, letter in enumerate(value[1:], 1):  # `-vs CODE`, `-sCODE`, `-n100`
            if letter in _TIMEIT_VALUED:
                given = value[i + 1 :]
                if not given:
                    given = rest[k].value if k < len(rest) else ""
                    k += 1
                if letter == "s":
                    code.append(given)
                break
    if not code:
        return None
    word = rest[0]
    return (python, word._replace(value="-c"), word._replace(value="\n".join(code)))
