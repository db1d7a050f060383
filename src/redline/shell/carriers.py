"""Commands that carry a script as data: `sh -c`, `eval`, heredocs... (F-SHELL-3).

Each function here finds the text an invocation will run as shell code, so
the analysis can parse it again with the same rules: quoting is not a bypass.
"""

import re

from redline.fasttuple import NamedTuple
from redline.shell import run_carriers, static_text
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC, Redirect, Word

SHELLS = frozenset(
    {"sh", "bash", "zsh", "ksh", "dash", "ash", "mksh", "yash", "rbash", "fish", "csh",
     "tcsh", "pwsh"}
)  # fmt: skip
SOURCE = frozenset({"source", "."})
# Paths that name the reader's own stdin.
STDIN_PATHS = frozenset({"/dev/stdin", "/proc/self/fd/0", "/dev/fd/0"})
# Interpreters that may run code given inline or on stdin.
INTERPRETERS = frozenset(
    {"python", "pypy", "perl", "ruby", "node", "nodejs", "bun", "deno", "php", "lua", "luajit",
     "rscript", "r", "osascript", "tclsh", "awk", "gawk", "mawk", "nawk", "jshell", "irb"}
)  # fmt: skip
_VERSIONED = lazy_regex(r"^(python|pypy|perl|ruby|lua|php|node)[\d.]*$")


class Carried(NamedTuple):
    """Shell text an invocation runs. `word` is set when the text is exactly
    that word's value, so spans inside it map back to the original command."""

    text: str
    label: str
    word: Word | None = None
    # Positional parameters (`$0`, `$1`...) the carried script sees.
    env: tuple[tuple[str, str], ...] = ()
    remote: bool = False
    # The script's commands read the carrier's stdin; false when the script
    # itself came from stdin (`curl x | sh`), which it then has consumed.
    shares_stdin: bool = True


_FAMILY_PREFIXES = ("python", "pypy", "perl", "ruby", "lua", "php", "node")
CARRIER_NAMES = SHELLS | SOURCE | {"eval", "su", "runuser", "script", "flock"}


_families: dict[str, str | None] = {}


def interpreter_family(name: str) -> str | None:
    # Asked about ten times per invocation by rules and carriers: remembered
    # per name (bounded: a long-lived gate meets endless odd names).
    try:
        return _families[name]
    except KeyError:
        pass
    family: str | None = name if name in INTERPRETERS else None
    if family is None and name.startswith(_FAMILY_PREFIXES):
        match = _VERSIONED.match(name)
        family = match.group(1) if match else None
    if len(_families) < 4096:
        _families[name] = family
    return family


# Per family: the option letters that carry code, and those that take a
# value, so the code is found through bundles (`perl -ne`, `python3 -Ic`,
# `python3 -W ignore -c`, `perl -Mstrict -e`).
CODE_FLAGS = {"python": "c", "pypy": "c", "perl": "eE", "ruby": "e", "node": "ep",
              "nodejs": "ep", "bun": "ep", "php": "r", "lua": "e", "luajit": "e",
              "rscript": "e", "r": "e", "osascript": "e"}  # fmt: skip
VALUE_FLAGS = {"python": "mWXQ", "pypy": "mWXQ", "perl": "IMmx", "ruby": "rICEFxW",
               "node": "r", "nodejs": "r", "bun": "r", "php": "dcfzt", "lua": "l",
               "luajit": "lj", "rscript": "", "r": "", "osascript": "lis"}  # fmt: skip
_LONG_CODE = ("--eval", "--print", "--command")
# Long options that take their value as the next word.
_LONG_VALUES = frozenset({"--require", "--import", "--loader", "--experimental-loader",
                          "--check-hash-based-pycs", "--input-type"})  # fmt: skip
_AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})
_NODES = frozenset({"node", "nodejs", "bun"})
_PYTHONS = frozenset({"python", "pypy"})


def inline_code_value(family: str, values: tuple[str, ...]) -> str | None:
    """The code among an interpreter's arguments: `-c CODE`, `-ne CODE`,
    `-cCODE`, `--eval CODE`, `--eval=CODE`; `None` past the first operand."""
    letters = CODE_FLAGS.get(family, "")
    if not letters:
        return None
    takes = VALUE_FLAGS.get(family, "")
    k = 0
    while k < len(values):
        value = values[k]
        if value == "--" or not value.startswith("-") or value == "-":
            return None
        if value.startswith("--"):
            key, eq, rest = value.partition("=")
            if key in _LONG_CODE and family != "python":
                return rest if eq else (values[k + 1] if k + 1 < len(values) else None)
            k += 2 if key in _LONG_VALUES and not eq else 1
            continue
        for i, letter in enumerate(value[1:], 1):
            if letter in letters:
                # node reads `-pe CODE` as two flags; the others `-eCODE` as code.
                rest = "" if family in _NODES else value[i + 1 :]
                return rest or (values[k + 1] if k + 1 < len(values) else None)
            if letter == "m" and family in _PYTHONS:
                return None  # `python -m mod`: the rest are the module's arguments
            if letter in takes:
                k += 0 if value[i + 1 :] else 1
                break
        k += 1
    return None


def inline_code(inv: Invocation) -> str | None:
    """The code an interpreter is given inline or on stdin, if any."""
    family = interpreter_family(inv.name)
    if family is None:
        return None
    values = inv.values
    code = inline_code_value(family, values)
    if code is not None:
        return code
    if family == "deno":
        return values[1] if len(values) > 1 and values[0] == "eval" else None
    if family in _AWKS:
        # `-f FILE` reads the program from a file; else the first operand is it.
        if any(v == "-f" or v.startswith(("-f", "--file")) for v in values):
            for k, word in enumerate(inv.argv[1:-1], 1):  # `awk -f <(echo PROGRAM)`
                if word.value in ("-f", "--file") and inv.argv[k + 1].raw.startswith("<("):
                    return inv.argv[k + 1].feeds or DYNAMIC
            return None
        return first_operand(values, "Fv")
    operand = first_operand(values, VALUE_FLAGS.get(family, ""))
    if operand is None or operand == "-":
        return inv.stdin_text
    return fed_program(inv, operand)


def fed_program(inv: Invocation, operand: str | None) -> str | None:
    """`python3 <(echo CODE)`: the program is what the substitution prints
    (`DYNAMIC` when that cannot be known here)."""
    if operand is None or not operand.startswith(("/dev/fd/", "/proc/self/fd/")):
        return None
    for word in inv.argv[1:]:
        if word.value == operand and word.raw.startswith("<("):
            return DYNAMIC if word.feeds is None else word.feeds
    if descriptor_number(operand) not in (None, 0):  # `python3 /dev/fd/3 3<<<CODE`
        return descriptor_text(inv, operand)
    return None


_DESCRIPTOR = lazy_regex(r"\A/(?:dev|proc/self)/fd/(\d+)\Z")


def descriptor_number(path: str) -> int | None:
    """3 for `/dev/fd/3` and `/proc/self/fd/3`, 0 for `/dev/stdin`."""
    if path == "/dev/stdin":
        return 0
    match = _DESCRIPTOR.match(path) if "/fd/" in path else None
    return int(match.group(1)) if match else None


def descriptor_text(inv: Invocation, path: str) -> str | None:
    """The text a program reads from the descriptor `path` names: a
    here-string or heredoc on it; `DYNAMIC` when the descriptor is a file or
    is not opened here (the file is read by `script_runs` where it can)."""
    number = descriptor_number(path)
    if number is None:
        return None
    redirect = descriptor_input(inv, number)
    if redirect is None:
        return DYNAMIC if number != 0 else None
    if redirect.op in ("<<<", "<<", "<<-") and redirect.body is not None:
        literal = redirect.body_literal or redirect.op == "<<<"
        body = redirect.body + ("\n" if redirect.op == "<<<" else "")
        return body if literal and DYNAMIC not in body else DYNAMIC
    return None if redirect.op == "<" else DYNAMIC  # `3< FILE`: a script on disk


def descriptor_input(inv: Invocation, number: int) -> Redirect | None:
    """The last redirect that gives `inv` input on descriptor `number`."""
    for redirect in reversed(inv.redirects):
        fd = 0 if redirect.fd is None and redirect.op.startswith("<") else redirect.fd
        if fd == number and redirect.op.startswith("<"):
            return redirect
    return None


def first_operand(values: tuple[str, ...], takes: str) -> str | None:
    k = 0
    while k < len(values):
        value = values[k]
        if value == "--":
            return values[k + 1] if k + 1 < len(values) else None
        if not value.startswith("-") or value == "-":
            return value
        if value.startswith("--"):
            k += 2 if value in _LONG_VALUES else 1
            continue
        for i, letter in enumerate(value[1:], 1):
            if letter in takes:
                k += 0 if value[i + 1 :] else 1
                break
        k += 1
    return None


# Environment variables whose value a program runs as a command: git's and
# ssh's helpers, pagers, editors, less's input filters, bash's prompt hook.
ENV_COMMANDS = frozenset(
    {"GIT_SSH_COMMAND", "GIT_SSH", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR",
     "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "GIT_PROXY_COMMAND", "SSH_ASKPASS", "SUDO_ASKPASS",
     "PAGER", "MANPAGER", "SYSTEMD_PAGER", "PSQL_PAGER", "EDITOR", "VISUAL", "FCEDIT",
     "SVN_EDITOR", "HGEDITOR", "KUBE_EDITOR", "LESSOPEN", "LESSCLOSE", "BROWSER",
     "PROMPT_COMMAND", "RSYNC_RSH", "CVS_RSH"}
)  # fmt: skip


# Variables bash expands, substitutions included, on its own: the next shell's
# startup file, and the prompts (`PS4` before each command under `set -x`).
_EXPANDED = frozenset({"BASH_ENV", "ENV", "PS0", "PS1", "PS2", "PS3", "PS4"})


def env_command(assignment: str) -> str | None:
    """The command in `NAME=VALUE` when NAME is one a program runs
    (`GIT_SSH_COMMAND=CMD`, `LESSOPEN='|CMD %s'`); `None` otherwise."""
    name, eq, value = assignment.partition("=")
    unknown = DYNAMIC in value and name in ("BASH_ENV", "ENV", "PS4")
    if name in _EXPANDED and ("$(" in value or "`" in value or unknown):
        # The next shell expands it (a prompt: before each traced or read command): its
        # substitutions run.
        return ": " + value
    if name.startswith("BASH_FUNC_") and value.startswith("()"):
        return name[10:].split("%")[0] + value  # a function exported to the next bash
    if not eq or not value.strip():
        return None
    if name not in ENV_COMMANDS:
        return run_carriers.env_command(name, value)
    return value.lstrip("|").strip() if name.startswith("LESS") else value


def carried_scripts(inv: Invocation) -> list[Carried]:
    name = inv.name
    if name not in CARRIER_NAMES and interpreter_family(name) is None:
        return []
    if name in SHELLS:
        return _shell(inv)
    if name == "eval":
        return _joined(inv.argv[1:], "eval")
    if name in ("su", "runuser", "script", "flock"):
        return _dash_c(inv)
    if name in SOURCE:
        operands = inv.options.operands
        target = operands[0].value if operands else ""
        if operands and operands[0].feeds is not None:  # `source <(echo CMD)`
            return [Carried(operands[0].feeds, name + " <(...)")]
        if (target in STDIN_PATHS or target == "-") and inv.stdin_text is not None:
            return [Carried(inv.stdin_text, name + " /dev/stdin", shares_stdin=False)]
        return []
    if interpreter_family(name) is not None:
        code = inline_code(inv)
        return [] if code is None else _shell_in_code(code, name)
    return []


def shell_options(values: tuple[str, ...]) -> tuple[str, int]:
    """How a shell takes its script from `values` (its arguments): `"c"` for
    `-c`, `"s"` for `-s`, `""` from a file or stdin; and the index of its
    first operand. `-o NAME` takes a value also in a bundle (`-euxo pipefail`)."""
    mode, k, n = "", 0, len(values)
    while k < n:
        value = values[k]
        if value == "--":
            return mode, k + 1
        if value in ("--rcfile", "--init-file"):
            k += 2
            continue
        if value.startswith("--"):
            k += 1
            continue
        if not value.startswith(("-", "+")) or value in ("-", "+"):
            break
        letters = value[1:]
        if "c" in letters:
            mode = "c"
        elif "s" in letters and not mode:
            mode = "s"
        k += 1 + letters.count("o") + letters.count("O")
    return mode, k


def _shell(inv: Invocation) -> list[Carried]:
    argv = inv.argv
    mode, k = shell_options(inv.values)
    operands = argv[k + 1 :]
    if mode == "c":
        if not operands:
            return []
        script = operands[0]
        given = operands[1:10]
        env = (
            *((str(i), w.value) for i, w in enumerate(given)),
            ("#", str(max(len(given) - 1, 0))),
        )
        return [Carried(script.value, f"{inv.name} -c", script, env)]
    if operands[:1] and operands[0].value == "-":
        operands = operands[1:]  # `bash -`: a lone `-` ends the options
    elif operands[:1] and operands[0].value in STDIN_PATHS:  # `bash /dev/stdin`
        operands = operands[1:] if inv.stdin_text is not None else operands
    if operands and operands[0].feeds is not None:  # `bash <(echo CMD)`
        return [Carried(operands[0].feeds, f"{inv.name} <(...)")]
    if operands and descriptor_number(operands[0].value) is not None:  # `bash /dev/fd/3 3<<<CMD`
        text = descriptor_text(inv, operands[0].value)
        return [Carried(text, f"{inv.name} {operands[0].value}")] if text is not None else []
    if (not operands or mode == "s") and inv.stdin_text is not None:
        return [Carried(inv.stdin_text, f"{inv.name} reading stdin", shares_stdin=False)]
    return []


def _joined(words: tuple[Word, ...], label: str) -> list[Carried]:
    if not words:
        return []
    if len(words) == 1:
        return [Carried(words[0].value, label, words[0])]
    return [Carried(" ".join(w.value for w in words), label)]


# Options that take a value in `su`, `runuser`, `script` and `flock`.
_DASH_C_VALUES = {"su": "sgGw", "runuser": "ugGsw", "script": "EIOBTm", "flock": "wE"}


def _dash_c(inv: Invocation) -> list[Carried]:
    """`su -c CMD`, bundled (`su -lc CMD`, `script -qc CMD`) or long (`--command=CMD`)."""
    argv = inv.argv
    takes = _DASH_C_VALUES.get(inv.name, "")
    for k, word in enumerate(argv[1:], 1):
        value = word.value
        if value == "--command" and k + 1 < len(argv):
            return [Carried(argv[k + 1].value, f"{inv.name} -c", argv[k + 1])]
        if value.startswith("--command="):
            return [Carried(value[len("--command=") :], f"{inv.name} -c")]
        if not value.startswith("-") or value.startswith("--"):
            continue
        for i, letter in enumerate(value[1:], 1):
            if letter == "c":
                if value[i + 1 :]:
                    return [Carried(value[i + 1 :], f"{inv.name} -c")]
                if k + 1 < len(argv):
                    return [Carried(argv[k + 1].value, f"{inv.name} -c", argv[k + 1])]
                return []
            if letter in takes:
                break
    return []


# A call that hands a string to the system shell, in the common interpreters
# (`\bNAME\s*\(`): each name's first letter is common, its `(` rarer, so the
# scan runs over the code reversed, from each `(` back (`_call_ends`).
_SYSTEM_CALLS = ("system", "popen", "popen2", "popen3", "check_output", "check_call", "call",
                 "run", "spawn", "spawnSync", "exec", "execSync", "execFileSync", "Popen",
                 "getoutput", "getstatusoutput", "shell_exec", "passthru", "proc_open",
                 "capture2", "capture3", "spawn_command", "Command", "system2",
                 "os.execute")  # fmt: skip
_SYSTEM_CALL_REVERSED = lazy_regex(
    r"\(\s*(?:" + "|".join(re.escape(name[::-1]) for name in _SYSTEM_CALLS) + r")\b"
)
_TCL_EXEC = lazy_regex(r"(?:^|[\[;{])\s*exec\s+([^\]\n;}]+)", flags=8)  # re.MULTILINE
_BACKTICKS = lazy_regex(r"`([^`]*)`|\bqx\s*[{(\[/](.*?)[})\]/]|%x[{(\[](.*?)[})\]]")
_BARE_CALL = lazy_regex(r"\b(?:system|exec|spawn)\s+(?=[\"'])")
_STRING = lazy_regex(r"\"((?:[^\"\\]|\\.)*)\"|'((?:[^'\\]|\\.)*)'")


def shell_in_code(code: str, name: str) -> list[Carried]:
    """Shell commands code in `name`'s language hands to the system shell
    (a script file's code is judged as the same code given inline)."""
    return _shell_in_code(code, name)


def _call_ends(code: str) -> list[int]:
    """Where each call of `_SYSTEM_CALLS` opens its arguments (just past its
    `(`), in order. Matches never overlap: each ends at its own `(`."""
    size = len(code)
    return [size - m.start() for m in reversed(list(_SYSTEM_CALL_REVERSED.finditer(code[::-1])))]


def _closing(code: str, start: int) -> int:
    """Just past the `)` that closes a `(` open before `start` (every paren
    counts, in strings too), or the end of `code`: a hop from `)` to `)`."""
    depth, at = 1, start
    while True:
        close = code.find(")", at)
        if close < 0:
            return len(code)
        depth += code.count("(", at, close) - 1
        at = close + 1
        if depth <= 0:
            return at


def _call_carries(inside: str, label: str) -> list[Carried]:
    """The commands a call of `_SYSTEM_CALLS` runs, given what its parentheses hold."""
    strings = [_unescape(a if a or not b else b) for a, b in _STRING.findall(inside)]
    if not strings:
        return []
    if inside.lstrip().startswith(("[", "(")) or len(strings) > 1:
        return [Carried(" ".join(quote(s) for s in strings), label), Carried(strings[0], label)]
    return [Carried(strings[0], label)]


def _shell_in_code(code: str, name: str) -> list[Carried]:
    """Shell commands an interpreter's code hands to the system shell."""
    found: list[Carried] = []
    label = f"{name} inline code"
    if "HOME" in code or "home" in code or "~" in code:
        from redline.shell.code_home import home_spelled, joined

        code = joined(home_spelled(code))
    if name == "tclsh":  # `exec rm -rf ~`: Tcl's words are the command's
        found.extend(Carried(m[1], label) for m in _TCL_EXEC.finditer(code))
    # Each distinct call's arguments read once: a module repeats the same few calls.
    read: dict[str, list[Carried]] = {}
    for start in _call_ends(code):
        inside = code[start : _closing(code, start)]
        carried = read.get(inside)
        if carried is None:
            carried = read[inside] = _call_carries(inside, label)
        found.extend(carried)
    if name.startswith(("perl", "ruby")):  # `system "cmd"`: a call without parentheses
        for match in _BARE_CALL.finditer(code):
            end = code.find(";", match.end())
            strings = _STRING.findall(code[match.end() : len(code) if end == -1 else end])
            texts = [_unescape(a if a or not b else b) for a, b in strings]
            if len(texts) > 1:
                found.append(Carried(" ".join(quote(t) for t in texts), label))
            found.extend(Carried(t, label) for t in texts[:1])
    from redline.shell.code_sinks import code_sinks  # only when a call carries code

    found.extend(Carried(text, label) for text in code_sinks(code, name).commands)
    if name.endswith("awk"):
        found.extend(Carried(text, label) for text in _awk_pipes(code))
    if name.startswith(("perl", "ruby", "php")) or name.endswith("awk"):
        for match in _BACKTICKS.finditer(code):
            text = next((g for g in match.groups() if g), "")
            if text:
                found.append(Carried(text, label))
    return found


# awk runs a command for `print ... | "CMD"` and `"CMD" | getline`.
_AWK_PRINT_PIPE = lazy_regex(
    r"\bprintf?\b((?:[^|;}\n\"]|\"(?:[^\"\\]|\\.)*\")*)\|\s*\"((?:[^\"\\]|\\.)*)\""
)
_AWK_GETLINE = lazy_regex(r"\"((?:[^\"\\]|\\.)*)\"\s*\|\s*getline\b")


def _awk_pipes(code: str) -> list[str]:
    """Commands awk code runs; what it prints into a shell is a script, known
    only when it prints static strings."""
    found = [_unescape(m.group(1)) for m in _AWK_GETLINE.finditer(code)]
    for match in _AWK_PRINT_PIPE.finditer(code):
        command = _unescape(match.group(2))
        found.append(command)
        if command.split(" ", 1)[0].rsplit("/", 1)[-1] not in SHELLS:
            continue
        printed = match.group(1).strip()
        strings = [_unescape(a if a or not b else b) for a, b in _STRING.findall(printed)]
        static = strings and not _STRING.sub("", printed).replace(",", "").strip()
        found.append(" ".join(strings) if static else DYNAMIC)
    return found


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text) if "\\" in text else text


# A word the shell reads as it is: letters and digits of any script (`\w`
# is `str.isalnum` or `_`) and a few marks.
_PLAIN_WORD = lazy_regex(r"[\w\-./=:,+%@]+")


def quote(text: str) -> str:
    if _PLAIN_WORD.fullmatch(text):
        return text
    return "'" + text.replace("'", "'\\''") + "'"


def static_output(inv: Invocation) -> str | None:
    """What a command that only turns static text into text writes (`echo`,
    `printf`, `cat` of a heredoc, decoders, transforms), when it is static."""
    if inv.name not in static_text.PRODUCERS:
        return None
    return static_text.output(inv.name, inv.values, inv.stdin_text)
