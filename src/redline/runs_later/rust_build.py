"""What a Cargo build script (`build.rs`) runs: Cargo compiles and runs it on
every build, so its deletions and the programs it starts run on the owner's
machine. `std::fs::remove_dir_all(P)` is `rm -rf -- P`, `remove_file(P)` is
`rm -f -- P`, and `Command::new(PROG)` with its `.arg`/`.args` (chained, or
on a variable holding the command) is the argv it runs.

Values are followed through `let` bindings: string literals, the home
(`env::var("HOME")`, `dirs::home_dir()`, `home::home_dir()`: `~`), Cargo's
`OUT_DIR` (under `target/`), `Path::new`/`PathBuf::from`, `.join()` and
`format!`. Anything else is a word that names nothing known.
"""

from __future__ import annotations

from redline.runs_later.code_values import UNKNOWN, argv_line, closing, literal, split_args
from redline.shell.lazy_regex import lazy_regex

TYPE_CHECKING = False  # not `typing`'s: kept off the hook's start (ADR 0004)
if TYPE_CHECKING:
    from typing import Any

# The result adapters after a lookup: `.unwrap()`, `.expect("...")`, `?`...
_ADAPTERS = (
    r"(?:\s*(?:\?|\.(?:unwrap|unwrap_or_default|ok|expect|unwrap_or|unwrap_or_else)"
    r"\((?:[^()]|\([^()]*\))*\)))*"
)
_HOME = lazy_regex(
    r"""(?:std::)?env::var(?:_os)?\(\s*"HOME"\s*\)""" + _ADAPTERS
    + r"""|(?:(?:dirs|dirs_next|home|std::env|env)::)?home_dir\(\s*\)""" + _ADAPTERS
)  # fmt: skip
_CARGO_DIRS = lazy_regex(
    r"""(?:std::)?env::var(?:_os)?\(\s*"(OUT_DIR|CARGO_MANIFEST_DIR)"\s*\)""" + _ADAPTERS
)
_LET = lazy_regex(r"\blet\s+(?:mut\s+)?([A-Za-z_]\w*)\s*(?::[^=;]+)?=\s*")
_DELETE = lazy_regex(r"(?<![\w])(?:(?:std::)?fs::)?(remove_dir_all|remove_dir|remove_file)\s*\(")
_COMMAND = lazy_regex(r"(?<![\w])(?:(?:std::)?process::)?Command::new\s*\(")
_METHOD = lazy_regex(r"\s*\.\s*([A-Za-z_]\w*)\s*\(")
_RECEIVER_CALL = lazy_regex(r"(?<![\w.])([A-Za-z_]\w*)((?:\s*\.\s*[A-Za-z_]\w*\s*\()+)")
_TAIL = lazy_regex(
    r"\.(?:clone|to_string|to_owned|into|as_str|as_path|as_ref|display|to_path_buf|unwrap"
    r"|as_os_str|to_str|to_string_lossy)\(\)\s*\Z|\?\s*\Z"
)
_MAX_DEPTH = 12


def rust_build_commands(text: str) -> list[str]:
    """The shell lines that do what the build script does to the system."""
    text = _HOME.sub('"~"', text)
    text = _CARGO_DIRS.sub(lambda m: '"target/out"' if m.group(1) == "OUT_DIR" else '"."', text)
    values: dict[str, str] = {}
    commands: dict[str, list[str]] = {}  # a variable holding a `Command`: its words so far
    found: list[str] = []
    for statement in _statements(text):
        binding = _LET.match(statement)
        expression = statement[binding.end() :] if binding else statement
        if binding is not None:
            value = _value(expression, values)
            if value is None:
                values.pop(binding.group(1), None)
            else:
                values[binding.group(1)] = value
        for match in _DELETE.finditer(statement):
            end = closing(statement, match.end() - 1)
            args = split_args(statement[match.end() : end]) if end > 0 else []
            path = _value(args[0], values) if args else None
            if path is not None and path != UNKNOWN:
                flags = "-rf" if match.group(1) == "remove_dir_all" else "-f"
                found.append(f"rm {flags} -- " + argv_line([path]))
        for match in _COMMAND.finditer(statement):
            words, _ = _command_words(statement, match.end() - 1, [], values)
            if binding is not None and statement[binding.end() :].lstrip().startswith(
                ("Command::", "std::process::", "process::")
            ):
                commands[binding.group(1)] = words
            found.append(argv_line(words))
        for match in _RECEIVER_CALL.finditer(statement):
            held = commands.get(match.group(1))
            if held is not None:
                words, _ = _command_words(statement, match.start(2), held, values, False)
                commands[match.group(1)] = words
                found.append(argv_line(words))
    return found


def _statements(text: str) -> list[str]:
    """The text cut at top-level `;`, `{` and `}` (strings and brackets kept whole)."""
    parts: list[str] = []
    depth, start, k = 0, 0, 0
    while k < len(text):
        char = text[k]
        if char in "\"'r":
            from redline.runs_later.code_values import STRING

            match = STRING.match(text, k) if char != "'" else None
            if match is not None and (char != "r" or text[k + 1 : k + 2] in ('"', "#")):
                k = match.end()
                continue
        if char == "/" and text.startswith("//", k):
            newline = text.find("\n", k)
            k = len(text) if newline < 0 else newline
            continue
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char in ";{}" and depth <= 0:
            parts.append(text[start:k].strip())
            start = k + 1
        k += 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def _command_words(
    text: str, at: int, words: list[str], values: dict[str, str], first: bool = True
) -> tuple[list[str], int]:
    """The words of `Command::new(P)` at `at` (its `(`), and the `.arg()`/
    `.args()` chained after it; `.current_dir(D)` runs it in D."""
    words = list(words)
    k = at
    if first:
        end = closing(text, at)
        args = split_args(text[at + 1 : end]) if end > 0 else []
        words.append((_value(args[0], values) if args else None) or UNKNOWN)
        k = end + 1 if end > 0 else len(text)
    while True:
        match = _METHOD.match(text, k)
        if match is None:
            return words, k
        end = closing(text, match.end() - 1)
        if end < 0:
            return words, len(text)
        inner = text[match.end() : end]
        if match.group(1) == "arg":
            words.append(_value(inner, values) or UNKNOWN)
        elif match.group(1) == "args":
            words.extend(_list(inner, values))
        elif match.group(1) == "current_dir" and words:
            directory = _value(inner, values) or UNKNOWN
            words = ["sh", "-c", f"cd {argv_line([directory])} && {argv_line(words)}"]
        k = end + 1


def _list(text: str, values: dict[str, str]) -> list[str]:
    text = text.strip().lstrip("&").strip()
    text = text.removeprefix("vec!").strip()
    if text.endswith(".iter()"):
        text = text[: -len(".iter()")]
    if not (text.startswith("[") and text.endswith("]")):
        return [UNKNOWN]
    return [_value(item, values) or UNKNOWN for item in split_args(text[1:-1])]


def _value(expression: str, values: dict[str, str], depth: int = 0) -> str | None:
    """The string a Rust expression holds, when the reader can know it."""
    text = expression.strip().rstrip(";").strip()
    while text.startswith(("&", "*")):
        text = text[1:].strip()
    text = text.removeprefix("mut ").strip()
    if depth > _MAX_DEPTH or not text:
        return None
    tail = _TAIL.search(text)
    while tail is not None:
        text = text[: tail.start()].strip()
        tail = _TAIL.search(text)
    known = literal(text)
    if known is not None:
        return known
    if text.isidentifier():
        return values.get(text)
    if not text.endswith(")"):
        return None
    opening = _opening(text)
    if opening <= 0:
        return None
    head, args = text[:opening].strip(), split_args(text[opening + 1 : -1])
    if head.endswith(".join") and args:
        base, more = (
            _value(head[: -len(".join")], values, depth + 1),
            _value(args[0], values, depth + 1),
        )
        if base is None or more is None:
            return None
        return more if more.startswith(("/", "~")) else base.rstrip("/") + "/" + more
    if head.rsplit("::", 1)[-1] in ("from", "new") and head.split("::")[-2:-1] in (
        ["PathBuf"], ["Path"], ["String"], ["OsString"], ["OsStr"],
    ) and args:  # fmt: skip
        return _value(args[0], values, depth + 1)
    if head == "format!" and args:
        return _format(args, values, depth)
    return None


def _opening(text: str) -> int:
    """Where the bracket that closes at the end of `text` opens."""
    level = 0
    for k in range(len(text) - 1, -1, -1):
        char = text[k]
        if char == ")":
            level += 1
        elif char == "(":
            level -= 1
            if level == 0:
                return k
    return -1


def _format(args: list[str], values: dict[str, str], depth: int) -> str | None:
    template = literal(args[0])
    if template is None:
        return None
    given = [_value(a, values, depth + 1) for a in args[1:]]
    out: list[str] = []
    k = n = 0
    while k < len(template):
        if template.startswith("{{", k) or template.startswith("}}", k):
            out.append(template[k])
            k += 2
            continue
        if template[k] == "{":
            end = template.find("}", k)
            name = template[k + 1 : end].split(":", 1)[0] if end > 0 else ""
            if name.isidentifier():
                value: Any = values.get(name)
            else:
                value = given[n] if n < len(given) else None
                n += 1
            out.append(UNKNOWN if value is None else str(value))
            k = end + 1 if end > 0 else len(template)
            continue
        out.append(template[k])
        k += 1
    return "".join(out)
