"""Programs whose operands or options are a command they run (F-SHELL-2):
`entr`, `watchexec`, `perf stat`, `valgrind`, `hyperfine`, `pueue add`,
`ip netns exec`, `capsh --`, `cmake -E rm`, `expect -c 'spawn ...'`,
`lftp -c '!...'`, `apt-get -o ...::Pre-Invoke::=CMD`, `crontab -`, `at -f`,
`make -f -` and `$(shell ...)`, terminals' `-e`. Part of the table in
`run_carrier_table`.
"""

from collections.abc import Callable

from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC
from redline.shell.run_options import Run, skip_options
from redline.shell.run_options import option_scripts as _option_scripts
from redline.shell.run_options import script as _script


def terminal(inv: Invocation) -> list[Run]:
    """`xterm -e CMD ARGS`, `gnome-terminal -- CMD`, `kitty CMD`."""
    argv = inv.argv
    for k, word in enumerate(argv[1:], 1):
        if word.value in ("-e", "-x", "--", "--command", "--execute"):
            rest = argv[k + 1 :]
            if len(rest) == 1:
                return _script(f"{inv.name} {word.value}", rest[0].value)
            return [Run(f"{inv.name} {word.value}", argv=rest)] if rest else []
    return []


# -- runners of commands ----------------------------------------------------

# Programs whose operands from the first one are a command to run, with
# the options (spelled whole) that take a value.
ARGV_RUNNERS: dict[str, frozenset[str]] = {
    "entr": frozenset(),
    "valgrind": frozenset(),
    "dbus-launch": frozenset({"--config-file", "--autolaunch"}),
    "tsp": frozenset({"-L", "-D", "-W", "-N", "-E"}),
    "dtach": frozenset({"-c", "-A", "-n", "-e", "-r"}),
    "abduco": frozenset({"-c", "-A", "-n", "-e"}),
    "watchexec": frozenset(
        {
            "-e",
            "--exts",
            "-w",
            "--watch",
            "-i",
            "--ignore",
            "-d",
            "--debounce",
            "-s",
            "--signal",
            "--shell",
            "-f",
            "--filter",
            "-E",
            "--env",
            "--workdir",
            "--project-origin",
        }
    ),
}
_PERF_VALUES = frozenset(
    {
        "-e",
        "--event",
        "-o",
        "--output",
        "-p",
        "--pid",
        "-r",
        "--repeat",
        "-C",
        "--cpu",
        "-G",
        "--cgroup",
        "-t",
        "--tid",
        "-x",
        "-F",
        "-c",
    }
)
_HYPERFINE_VALUES = frozenset(
    {
        "-w",
        "--warmup",
        "-m",
        "--min-runs",
        "-M",
        "--max-runs",
        "-r",
        "--runs",
        "-S",
        "--shell",
        "-n",
        "--command-name",
        "--style",
        "-u",
        "--time-unit",
        "--export-json",
        "--export-csv",
        "--export-markdown",
        "--export-asciidoc",
        "-o",
        "--output",
        "-L",
        "--parameter-list",
        "-P",
        "--parameter-scan",
    }
)
_HYPERFINE_SCRIPTS = frozenset({"-p", "--prepare", "-c", "--cleanup", "-s", "--setup",
                                "--conclude"})  # fmt: skip


def argv_runner(inv: Invocation) -> list[Run]:
    argv = inv.argv
    start = 1
    if inv.name == "perf":
        if len(argv) < 2 or argv[1].value not in ("stat", "record", "trace", "ftrace", "c2c"):
            return []
        start, takes = 2, _PERF_VALUES
    else:
        takes = ARGV_RUNNERS[inv.name]
    if inv.name in ("dtach", "abduco"):
        takes = frozenset()
        start = 3 if len(argv) > 2 and argv[1].value in ("-c", "-A", "-n") else len(argv)
    k = skip_options(argv, start, takes)
    if inv.name == "entr" and "-s" in inv.values[:k]:
        return _script("entr -s", " ".join(w.value for w in argv[k:]))
    rest = argv[k:]
    if inv.name == "watchexec" and len(rest) == 1:
        return _script("watchexec", rest[0].value)
    return [Run(inv.name, argv=rest)] if rest else []


def hyperfine(inv: Invocation) -> list[Run]:
    argv, found, k = inv.argv, [], 1
    while k < len(argv):
        value = argv[k].value
        if value in _HYPERFINE_SCRIPTS and k + 1 < len(argv):
            found += _script(f"hyperfine {value}", argv[k + 1].value)
            k += 2
        elif value in _HYPERFINE_VALUES:
            k += 2
        else:
            if not value.startswith("-"):
                found += _script("hyperfine", value)
            k += 1
    return found


def pueue(inv: Invocation) -> list[Run]:
    argv = inv.argv
    if len(argv) < 3 or argv[1].value != "add":
        return []
    k = skip_options(argv, 2, frozenset({"-w", "--working-directory", "-d", "--delay", "-g",
                                           "--group", "-a", "--after", "-l", "--label",
                                           "-o", "--priority"}))  # fmt: skip
    return _script("pueue add", " ".join(w.value for w in argv[k:]))


def ip(inv: Invocation) -> list[Run]:
    values = inv.values
    for k in range(len(values) - 2):
        if values[k] in ("netns", "vrf") and values[k + 1] == "exec":
            return [Run(f"ip {values[k]} exec", argv=inv.argv[k + 4 :])]
    return []


def capsh(inv: Invocation) -> list[Run]:
    """`capsh ... -- ARGS` runs `bash ARGS`; `capsh --shell=/bin/x -- ARGS` too."""
    argv = inv.argv
    for k, word in enumerate(argv[1:], 1):
        if word.value == "--":
            return [Run("capsh --", argv=(word._replace(value="bash"), *argv[k + 1 :]))]
    return []


def cmake(inv: Invocation) -> list[Run]:
    """`cmake -E rm -rf PATH`, `cmake -E remove_directory PATH`: cmake's own `rm`."""
    argv = inv.argv
    if len(argv) < 3 or argv[1].value != "-E":
        return []
    tool, rest = argv[2].value, argv[3:]
    if tool == "rm":
        return [Run("cmake -E rm", argv=(argv[2], *rest))]
    if tool in ("remove_directory", "remove"):
        flags = "-rf" if tool == "remove_directory" else "-f"
        return [Run(f"cmake -E {tool}", argv=(argv[2]._replace(value="rm"),
                                              argv[2]._replace(value=flags), *rest))]  # fmt: skip
    return []


_EXPECT_SPAWN = lazy_regex(r"(?:^|[;\n{\[])\s*(?:spawn|exec|system)\s+([^;\n\]}]+)")


def expect(inv: Invocation) -> list[Run]:
    runs = _option_scripts(inv, "expect", (), "c")
    return [Run(r.label, script=m.group(1)) for r in runs
            for m in _EXPECT_SPAWN.finditer(r.script or "")]  # fmt: skip


def lftp(inv: Invocation) -> list[Run]:
    runs = _option_scripts(inv, "lftp", (), "ce")
    return [Run(r.label, script=m.group(1)) for r in runs
            for m in _LFTP_BANG.finditer(r.script or "")]  # fmt: skip


_LFTP_BANG = lazy_regex(r"(?:^|[;\n])\s*!([^;\n]+)")


def apt(inv: Invocation) -> list[Run]:
    """`apt-get -o 'APT::Update::Pre-Invoke::=CMD'`, `-o Dpkg::Post-Invoke=CMD`."""
    found: list[Run] = []
    values = inv.values
    for k, value in enumerate(values):
        setting = ""
        if value in ("-o", "--option") and k + 1 < len(values):
            setting = values[k + 1]
        elif value.startswith("-o") and not value.startswith("--"):
            setting = value[2:]
        elif value.startswith("--option="):
            setting = value.partition("=")[2]
        key, _, command = setting.partition("=")
        if "invoke" in key.lower() or "pre-install-pkgs" in key.lower():
            found += _script(f"{inv.name} -o {key}", command)
    return found


def crontab(inv: Invocation) -> list[Run]:
    """`crontab -` with known lines: each line's command runs later."""
    if "-" not in inv.values or inv.stdin_text is None:
        return []
    found: list[Run] = []
    for line in inv.stdin_text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" in line.split(" ", 1)[0]:
            continue
        fields = line.split(None, 1 if line.startswith("@") else 5)
        found += _script("crontab entry", fields[-1] if len(fields) > 1 else "")
    return found


def at(inv: Invocation) -> list[Run]:
    return [Run(f"{inv.name} -f", script=DYNAMIC)] if "-f" in inv.values else []


_MAKE_SHELL = lazy_regex(r"\$[({]shell\s+([^)}]*)[)}]")


def make_scripts(inv: Invocation) -> list[Run]:
    """`$(shell CMD)` in `make --eval=TEXT`, and a makefile read from stdin."""
    texts = [r.script or "" for r in _option_scripts(inv, "make", ("eval",), "E")]
    found = [
        Run("make $(shell)", script=m.group(1)) for t in texts for m in _MAKE_SHELL.finditer(t)
    ]
    values = inv.values
    pairs = zip(values, (*values[1:], ""), strict=False)  # `make` alone: no values
    if not any(a == "-f" and b == "-" for a, b in pairs) and "--file=-" not in values:
        return found
    makefile = inv.stdin_text
    if makefile is None:
        return [*found, Run("make -f -", script=DYNAMIC)]
    found += [Run("make $(shell)", script=m.group(1)) for m in _MAKE_SHELL.finditer(makefile)]
    for line in makefile.splitlines():
        if line.startswith("\t"):
            found += _script("make -f - recipe", line.strip().lstrip("@-+"))
        elif ";" in line and ":" in line.partition(";")[0]:
            found += _script("make -f - recipe", line.partition(";")[2])
    return found


FINDERS: dict[str, Callable[[Invocation], list[Run]]] = {
    "hyperfine": hyperfine, "pueue": pueue, "ip": ip, "capsh": capsh, "cmake": cmake,
    "expect": expect, "lftp": lftp, "apt-get": apt, "apt": apt, "aptitude": apt,
    "crontab": crontab, "at": at, "batch": at, "make": make_scripts, "gmake": make_scripts,
    "perf": argv_runner, **dict.fromkeys(ARGV_RUNNERS, argv_runner),
    **dict.fromkeys(("xterm", "uxterm", "urxvt", "rxvt", "konsole", "alacritty", "kitty",
                     "gnome-terminal", "kgx", "xfce4-terminal", "terminator", "tilix",
                     "mate-terminal", "lxterminal", "st", "foot", "wezterm"), terminal),
}  # fmt: skip
