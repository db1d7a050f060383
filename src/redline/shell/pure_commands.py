"""A small evaluator of the pure commands `redline.shell.pure` marks.

It reads one command substitution's text: words with quotes, nested `$(...)`
and backticks, `$PWD`/`$HOME`/`$USER`; commands joined by `;`, `&&` and
`|`. Each command is one of a few whose output the judge can know from the
working directory and static text; anything else makes the whole value
unknown (`None`). The current user's name is `@me` (its home is `~`).
"""

from __future__ import annotations

from collections.abc import Callable

from redline.shell import paths

_ME = "@me"
# Characters of a run-time value inside a word: such a name is not known.
DYNAMIC_PARTS = frozenset("\x00$`")
_VARIABLES = {"HOME": "~", "USER": _ME, "LOGNAME": _ME}
_MAX_DEPTH = 6


class _State:
    def __init__(self, cwd: str | None, tmpdir: str | None = None) -> None:
        self.cwd = cwd
        # `$TMPDIR` when the command cannot have moved it (`/tmp`), else `None`.
        self.tmpdir = tmpdir


def evaluate(text: str, cwd: str | None, depth: int = 0, tmpdir: str | None = None) -> str | None:
    """The output of command text `text` run in `cwd`, or `None`; `tmpdir`:
    where `mktemp` makes its files, when known."""
    if depth > _MAX_DEPTH:
        return None
    state = _State(cwd, tmpdir)
    output = ""
    for sequence in _split(text, (";", "&&", "\n")):
        stdin: str | None = None
        for command in _split(sequence, ("|",)):
            words = _words(command, state.cwd, depth)
            if words is None:
                return None
            if not words:
                continue
            run = _COMMANDS.get(words[0])
            if run is None:
                return None
            stdin = run(words[1:], stdin, state)
            if stdin is None:
                return None
        output += stdin or ""
    return output


def _split(text: str, separators: tuple[str, ...]) -> list[str]:
    """`text` cut at separators outside quotes and nested substitutions."""
    parts: list[str] = []
    level, quote, start, i = 0, "", 0, 0
    while i < len(text):
        char = text[i]
        if quote:
            if char == "\\" and quote == '"':
                i += 1
            elif char == quote:
                quote = ""
        elif char in "'\"`":
            quote = char
        elif char == "\\":
            i += 1
        elif text.startswith("$(", i):
            level += 1
            i += 1
        elif char == ")" and level:
            level -= 1
        elif char == "(" and level:
            level += 1
        elif not level:
            sep = next((s for s in separators if text.startswith(s, i)), None)
            if sep is not None:
                parts.append(text[start:i])
                i += len(sep)
                start = i
                continue
        i += 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _words(command: str, cwd: str | None, depth: int) -> list[str] | None:
    """The command's words after quotes and expansions, or `None`."""
    words: list[str] = []
    current: list[str] = []
    started = False
    i, n = 0, len(command)
    while i < n:
        char = command[i]
        if char in " \t":
            if started:
                words.append("".join(current))
                current, started = [], False
            i += 1
            continue
        started = True
        if char == "'":
            end = command.index("'", i + 1)
            current.append(command[i + 1 : end])
            i = end + 1
        elif char == '"':
            i += 1
            while i < n and command[i] != '"':
                if command[i] == "$":
                    value, i = _dollar(command, i, cwd, depth)
                    if value is None:
                        return None
                    current.append(value)
                    continue
                if command[i] == "\\" and i + 1 < n and command[i + 1] in '"\\$`':
                    i += 1
                current.append(command[i])
                i += 1
            i += 1
        elif char == "$":
            value, i = _dollar(command, i, cwd, depth)
            if value is None:
                return None
            current.append(value)
        elif char == "\\" and i + 1 < n:
            current.append(command[i + 1])
            i += 2
        elif char == "~" and not current and (i + 1 == n or command[i + 1] in "/ \t"):
            current.append("~")
            i += 1
        elif char in "`<>&;|(){}*?[":
            return None  # redirections, globs, backticks: not this evaluator's
        else:
            current.append(char)
            i += 1
    if started:
        words.append("".join(current))
    return words


def _dollar(text: str, i: int, cwd: str | None, depth: int) -> tuple[str | None, int]:
    if text.startswith("$(", i):
        level, j = 0, i + 1
        while j < len(text):
            level += {"(": 1, ")": -1}.get(text[j], 0)
            if level == 0:
                break
            j += 1
        value = evaluate(text[i + 2 : j], cwd, depth + 1)
        return (None if value is None else value.rstrip("\n")), j + 1
    braced = text.startswith("${", i)
    j = i + (2 if braced else 1)
    k = j
    while k < len(text) and (text[k].isalnum() or text[k] == "_"):
        k += 1
    name = text[j:k]
    if braced:
        if not text.startswith("}", k):
            return None, k
        k += 1
    if name in ("PWD",):
        return cwd, k
    return _VARIABLES.get(name), k


def _pwd(args: list[str], stdin: str | None, state: _State) -> str | None:
    return None if state.cwd is None else state.cwd + "\n"


def _cd(args: list[str], stdin: str | None, state: _State) -> str | None:
    operands = [a for a in args if not a.startswith("-")] or ["~"]
    target = paths.normalize(operands[0], state.cwd)
    if target is None or not target.startswith(("/", "~")):
        return None
    state.cwd = target
    return ""


def _dirname(args: list[str], stdin: str | None, state: _State) -> str | None:
    operands = [a for a in args if not a.startswith("-")]
    return "".join(_dir_of(a) + "\n" for a in operands) if operands else None


def _dir_of(path: str) -> str:
    stripped = path.rstrip("/")
    if stripped == "~":
        return "~/.."  # the home's parent, wherever the home is
    if not stripped:
        return "/" if path else "."
    head, slash, _ = stripped.rpartition("/")
    return (head.rstrip("/") or "/") if slash else "."


def _basename(args: list[str], stdin: str | None, state: _State) -> str | None:
    operands = [a for a in args if not a.startswith("-")]
    if not operands:
        return None
    name = operands[0].rstrip("/").rsplit("/", 1)[-1] or "/"
    if len(operands) == 2 and name.endswith(operands[1]) and name != operands[1]:
        name = name[: -len(operands[1])]
    return name + "\n"


def _realpath(args: list[str], stdin: str | None, state: _State) -> str | None:
    """`realpath X`, `readlink -f X`: the normal path (links are not known here)."""
    operands = [a for a in args if not a.startswith("-")]
    if len(operands) != 1:
        return None
    normal = paths.normalize(operands[0], state.cwd)
    return None if normal is None or not normal.startswith(("/", "~")) else normal + "\n"


def _readlink(args: list[str], stdin: str | None, state: _State) -> str | None:
    if not any(a in ("-f", "-e", "-m", "--canonicalize") for a in args):
        return None
    return _realpath(args, stdin, state)


def _echo(args: list[str], stdin: str | None, state: _State) -> str | None:
    newline = "\n"
    while args and args[0] in ("-n", "-e", "-E"):
        newline = "" if args[0] == "-n" else newline
        args = args[1:]
    return " ".join(args) + newline


def _printf(args: list[str], stdin: str | None, state: _State) -> str | None:
    if not args or "%" in args[0].replace("%s", ""):
        return None
    text = args[0].replace("\\n", "\n")
    for value in args[1:]:
        text = text.replace("%s", value, 1)
    return text.replace("%s", "")


def _whoami(args: list[str], stdin: str | None, state: _State) -> str | None:
    return _ME + "\n"


def _id(args: list[str], stdin: str | None, state: _State) -> str | None:
    flags = "".join(a.lstrip("-") for a in args if a.startswith("-"))
    return _ME + "\n" if "u" in flags and "n" in flags else None


def _getent(args: list[str], stdin: str | None, state: _State) -> str | None:
    if len(args) == 2 and args[0] == "passwd" and args[1] == _ME:
        return f"{_ME}:x:1000:1000::~:/bin/sh\n"
    return None


def _git(args: list[str], stdin: str | None, state: _State) -> str | None:
    """`git rev-parse --show-toplevel`: taken as the working directory (the
    judge cannot look for `.git` upward; at a root it is exact)."""
    if args == ["rev-parse", "--show-toplevel"] and state.cwd is not None:
        return state.cwd + "\n"
    return None


def _cut(args: list[str], stdin: str | None, state: _State) -> str | None:
    delimiter, fields = "\t", ""
    k = 0
    while k < len(args):
        arg = args[k]
        if arg in ("-d", "-f") and k + 1 < len(args):
            value = args[k + 1]
            k += 1
        elif arg.startswith(("-d", "-f")) and len(arg) > 2:
            value = arg[2:]
        else:
            return None
        if arg.startswith("-d"):
            delimiter = value
        else:
            fields = value
        k += 1
    if stdin is None or not fields or len(delimiter) != 1:
        return None
    wanted = _field_numbers(fields)
    lines = [
        delimiter.join(p for n, p in enumerate(line.split(delimiter), 1) if n in wanted)
        for line in stdin.rstrip("\n").split("\n")
    ]
    return "\n".join(lines) + "\n"


def _field_numbers(spec: str) -> set[int]:
    wanted: set[int] = set()
    for part in spec.split(","):
        low, dash, high = part.partition("-")
        first = int(low) if low else 1
        last = (int(high) if high else 64) if dash else first
        wanted.update(range(first, min(last, 64) + 1))
    return wanted


def _sed(args: list[str], stdin: str | None, state: _State) -> str | None:
    """`sed 's/OLD/NEW/[g]'` on its input (a literal or simple pattern)."""
    import re

    scripts = [a for a in args if a != "-e"]
    if stdin is None or len(scripts) != 1 or scripts[0][:1] != "s" or len(scripts[0]) < 4:
        return None
    script = scripts[0]
    parts = _unescaped_split(script[2:], script[1])
    if len(parts) != 3 or parts[2] not in ("", "g"):
        return None
    try:
        pattern = re.compile(parts[0])
    except re.error:
        return None
    count = 0 if parts[2] == "g" else 1
    replacement = parts[1].replace("\\", "\\\\")
    lines = [pattern.sub(replacement, line, count=count) for line in stdin.rstrip("\n").split("\n")]
    return "\n".join(lines) + "\n"


def _unescaped_split(text: str, delimiter: str) -> list[str]:
    """`text` cut at each `delimiter` not escaped; `\\DELIMITER` is the character."""
    parts, current, i = [], [], 0
    while i < len(text):
        if text[i] == "\\" and text[i + 1 : i + 2] == delimiter:
            current.append(delimiter)
            i += 2
            continue
        if text[i] == delimiter:
            parts.append("".join(current))
            current = []
        else:
            current.append(text[i])
        i += 1
    parts.append("".join(current))
    return parts


def _awk(args: list[str], stdin: str | None, state: _State) -> str | None:
    """`awk -F SEP '{print $N}'` and prints of fields and string literals."""
    import re

    separator = None
    program = None
    k = 0
    while k < len(args):
        arg = args[k]
        if arg == "-F" and k + 1 < len(args):
            separator, k = args[k + 1], k + 2
            continue
        if arg.startswith("-F"):
            separator = arg[2:]
        elif program is None:
            program = arg
        else:
            return None
        k += 1
    match = re.fullmatch(r"\s*\{\s*print\s+((?:\$\d+|\"[^\"]*\"|\s)+);?\s*\}\s*", program or "")
    if stdin is None or match is None:
        return None
    items = re.findall(r"\$(\d+)|\"([^\"]*)\"", match.group(1))
    lines = []
    for line in stdin.rstrip("\n").split("\n"):
        fields = line.split(separator) if separator else line.split()
        out = [
            (fields[int(n) - 1] if 0 < int(n) <= len(fields) else "") if n else literal
            for n, literal in items
        ]
        lines.append("".join(out))
    return "\n".join(lines) + "\n"


def _mktemp(args: list[str], stdin: str | None, state: _State) -> str | None:
    """A fresh name. Its directory is the one spelled (`-p DIR`,
    `--tmpdir=DIR`, a template with a directory), else `$TMPDIR`: known
    (`/tmp`) only when no command of the line may have moved it (else
    `"$(mktemp -d)/.."` is anywhere). A bare template without `-t` is made in
    the working directory by GNU's, under `$TMPDIR` by BSD's: not known."""
    where: str | None = None
    template = ""
    under_tmp = False
    values = iter(args)
    for arg in values:
        if arg in ("-p", "--tmpdir"):
            where = next(values, None)
            if where is None:
                return None
        elif arg.startswith("--tmpdir="):
            where = arg.partition("=")[2]
        elif arg.startswith("-") and set(arg[1:]) <= set("dqut") and arg != "-":
            under_tmp = under_tmp or "t" in arg
            continue
        elif arg.startswith("-") or template:
            return None  # unknown options: unread
        else:
            template = arg
    if where is None and (under_tmp or not template) and "/" not in template:
        where = state.tmpdir
        if where is None:
            return None  # under a `$TMPDIR` the line may have moved
    name = template or "tmp.XXXXXXXXXX"
    if where is not None:
        name = where.rstrip("/") + "/" + name.rsplit("/", 1)[-1]
    elif "/" not in name:
        return None  # a bare template: see above
    if DYNAMIC_PARTS & set(name) or not name.startswith(("/", "./", "../", "~")):
        return None
    path = paths.normalize(name, state.cwd)
    return None if path is None else path + "\n"


def _builtin(args: list[str], stdin: str | None, state: _State) -> str | None:
    run = _COMMANDS.get(args[0]) if args and args[0] in ("pwd", "cd", "echo") else None
    return None if run is None else run(args[1:], stdin, state)


_Command = Callable[[list[str], "str | None", _State], "str | None"]
_COMMANDS: dict[str, _Command] = {
    "pwd": _pwd, "cd": _cd, "dirname": _dirname, "basename": _basename, "realpath": _realpath,
    "readlink": _readlink, "echo": _echo, "printf": _printf, "whoami": _whoami, "id": _id,
    "logname": _whoami, "getent": _getent, "git": _git, "cut": _cut, "sed": _sed, "awk": _awk,
    "builtin": _builtin, "command": _builtin, "mktemp": _mktemp,
}  # fmt: skip
