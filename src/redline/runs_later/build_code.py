"""The commands of build files in Ruby, Groovy/Kotlin, XML and TOML that a
tool runs on the next build, test or install: a `Rakefile` (`sh`, `system`,
backticks, `%x()`, `FileUtils.rm_rf`), a `Gemfile` (Ruby bundler evaluates),
Gradle's `commandLine`/`.execute()`/`delete`, Maven's exec and antrun plugins
and Cargo's runners and rustc wrappers (CMake has its own reader,
`cmake_lists`). Each reader spells the owner's home as `~` (`Dir.home`,
`System.getProperty("user.home")`, `${user.home}`) and an unknown value as a
word (`code_values.UNKNOWN`).
"""

from __future__ import annotations

from redline.runs_later.code_values import (
    STRING,
    UNKNOWN,
    argv_line,
    closing,
    literal,
    split_args,
)
from redline.shell.lazy_regex import lazy_regex

TYPE_CHECKING = False  # not `typing`'s: kept off the hook's start (ADR 0004)
if TYPE_CHECKING:
    from typing import Any

# -- Ruby ---------------------------------------------------------------------

_RUBY_HOME = (
    r"""Dir\.home(?:\(\s*\))?|ENV\[\s*['"]HOME['"]\s*\]|ENV\.fetch\(\s*['"]HOME['"][^)]*\)"""
    r"""|File\.expand_path\(\s*['"]~['"]\s*\)|Etc\.getpwuid(?:\([^)]*\))?\.dir|Gem\.user_home"""
)
_RUBY_HOME_CODE = lazy_regex(_RUBY_HOME)
_RUBY_INTERPOLATION = lazy_regex(r"#\{([^{}]*)\}")
_RUBY_HOME_ONLY = lazy_regex(r"\s*(?:" + _RUBY_HOME + r")\s*")
# `sh "cmd"`, `system("cmd")`, `Kernel.exec 'a', 'b'`, `IO.popen(...)`, `Open3.capture2(...)`.
_RUBY_CALL = lazy_regex(
    r"(?<![\w.:@$])(?:(?:Kernel|Process|IO|Open3)\.)?"
    r"(sh|system|exec|spawn|safe_system|popen|popen3|capture2|capture2e|capture3)\b"
    r"[ \t]*(\(|(?=[\"'%]))"
)
_RUBY_DELETE = lazy_regex(
    r"(?<![\w.:@$])(?:FileUtils\.)?(rm_rf|rm_r|rmtree|remove_dir|remove_entry(?:_secure)?|rm_f"
    r"|rm|safe_unlink)\b[ \t]*(\()?"
)
_RUBY_RUNS = lazy_regex(r"`([^`\n]*)`|%x\(([^)\n]*)\)|%x\{([^}\n]*)\}|%x\[([^\]\n]*)\]")
_TREE = frozenset({"rm_rf", "rm_r", "rmtree", "remove_dir", "remove_entry", "remove_entry_secure"})


def ruby_commands(text: str) -> list[str]:
    """What Ruby build code runs: shell calls (rake's `sh` too), backticks,
    `%x()` and FileUtils' deletions, one statement per line."""
    if "#{" in text:
        text = _RUBY_INTERPOLATION.sub(_ruby_interpolated, text)
    text = _RUBY_HOME_CODE.sub('"~"', text)
    found: list[str] = []
    for line in _statements(text):
        for match in _RUBY_CALL.finditer(line):
            words = _literals(line[match.end() :], match.group(2) == "(")
            if words and words[0] != UNKNOWN:
                found.append(words[0] if len(words) == 1 else argv_line(words))
        for match in _RUBY_DELETE.finditer(line):
            bracketed = match.group(2) is not None
            words = [w for w in _literals(line[match.end() :], bracketed) if w != UNKNOWN]
            if words:
                flags = "-rf" if match.group(1) in _TREE else "-f"
                found.append(f"rm {flags} -- " + argv_line(words))
        for match in _RUBY_RUNS.finditer(line):
            found.append(next(g for g in match.groups() if g is not None))
    return [f for f in found if f.strip()]


def _ruby_interpolated(match: Any) -> str:
    return "~" if _RUBY_HOME_ONLY.fullmatch(match.group(1)) else UNKNOWN


def _statements(text: str) -> list[str]:
    """Lines, a line ending in `,` or `\\` joined with the next (one call's arguments)."""
    lines: list[str] = []
    pending = ""
    for line in text.split("\n"):
        stripped = line.split(" #", 1)[0].rstrip() if not line.lstrip().startswith("#") else ""
        pending = f"{pending} {stripped.strip()}" if pending else stripped
        if pending.endswith((",", "\\")):
            pending = pending.rstrip("\\")
            continue
        if pending.strip():
            lines.append(pending)
        pending = ""
    if pending.strip():
        lines.append(pending)
    return lines


def _literals(rest: str, bracketed: bool) -> list[str]:
    """The argument values of a call whose arguments start `rest`: literals
    as themselves, `%w[...]` and arrays spread, anything else `UNKNOWN`."""
    if bracketed:
        end = closing("(" + rest, 0)
        rest = rest[: end - 1] if end > 0 else rest
    else:
        rest = _bare_end(rest)
    words: list[str] = []
    for arg in split_args(rest):
        if arg.startswith("{") or arg.startswith(":") or "=>" in arg or arg.endswith(":"):
            continue  # an environment hash, a symbol, options (`verbose: false`)
        if arg.startswith("%w"):
            words.extend(arg[3:-1].split())
        elif arg.startswith("[") and arg.endswith("]"):
            words.extend(literal(a) or UNKNOWN for a in split_args(arg[1:-1]))
        else:
            words.append(literal(arg) or UNKNOWN)
    return words


def _bare_end(rest: str) -> str:
    """A call without brackets ends at a block (`do`, `{`), `;`, `if`/`unless`."""
    for stop in (" do", " {", ";", " if ", " unless "):
        at = _outside_strings(rest, stop)
        if at >= 0:
            rest = rest[:at]
    return rest


def _outside_strings(text: str, needle: str) -> int:
    k = 0
    while k < len(text):
        if text[k] in "\"'":
            match = STRING.match(text, k)
            if match is not None:
                k = match.end()
                continue
        if text.startswith(needle, k):
            return k
        k += 1
    return -1


# -- Gradle (Groovy and Kotlin) --------------------------------------------------

_JVM_HOME = (
    r"""System\.getProperty\(\s*['"]user\.home['"]\s*\)|System\.getenv\(\s*['"]HOME['"]\s*\)"""
    r"""|System\.getenv\(\)\[\s*['"]HOME['"]\s*\]"""
)
_JVM_HOME_CODE = lazy_regex(_JVM_HOME)
_JVM_INTERPOLATION = lazy_regex(r"\$\{([^{}]*)\}")
_JVM_HOME_ONLY = lazy_regex(r"\s*(?:" + _JVM_HOME + r")\s*")
_GRADLE_ARGV = lazy_regex(r"(?<![\w.])(?:commandLine|args)\b\s*(?:=\s*)?(\(|(?=[\"'\[]|listOf))")
_GRADLE_EXECUTABLE = lazy_regex(r"(?<![\w.])executable\b\s*(?:=\s*)?\(?\s*(\"[^\"\n]*\"|'[^'\n]*')")
_GRADLE_EXECUTE = lazy_regex(
    r"(\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|\[[^\]\n]*\])\s*\.execute\("
)
_GRADLE_DELETE = lazy_regex(
    r"(?<![\w])(?:project\.)?delete\b\s*\(?\s*(?:file\(|new\s+File\(|File\()?\s*(\"[^\"\n]*\"|'[^'\n]*')"
)


def gradle_commands(text: str) -> list[str]:
    """`commandLine`/`executable` with `args` of Exec tasks, `"cmd".execute()`, `delete`."""
    if "${" in text:
        text = _JVM_INTERPOLATION.sub(_jvm_interpolated, text)
    text = _JVM_HOME_CODE.sub('"~"', text)
    found: list[str] = []
    program: str | None = None
    marks = [(m.start(), False, m) for m in _GRADLE_ARGV.finditer(text)]
    marks += [(m.start(), True, m) for m in _GRADLE_EXECUTABLE.finditer(text)]
    for _, is_program, match in sorted(marks, key=lambda mark: mark[0]):
        if is_program:
            program = literal(match.group(1))
            continue
        line = _statements(text[match.end() :])[:1]
        if match.group(1) == "(":
            end = closing(text, match.end() - 1)
            inner = text[match.end() : end] if end > 0 else ""
        else:
            inner = line[0] if line else ""
        words = _literals(inner.strip().removeprefix("listOf(").removesuffix(")"), False)
        if text[match.start() : match.start() + 4] == "args":
            if program is not None:
                found.append(argv_line([program, *words]))
                program = None
        elif words:
            found.append(argv_line(words))
    if program is not None:
        found.append(argv_line([program]))
    for match in _GRADLE_EXECUTE.finditer(text):
        value = match.group(1)
        if value.startswith("["):
            found.append(argv_line([literal(a) or UNKNOWN for a in split_args(value[1:-1])]))
        else:
            found.append(literal(value) or "")
    for match in _GRADLE_DELETE.finditer(text):
        path = literal(match.group(1))
        if path:
            found.append("rm -rf -- " + argv_line([path]))
    return [f for f in found if f.strip()]


def _jvm_interpolated(match: Any) -> str:
    return "~" if _JVM_HOME_ONLY.fullmatch(match.group(1)) else UNKNOWN


# -- Maven ----------------------------------------------------------------------------

_MAVEN_CONFIGURATION = lazy_regex(r"<configuration\b[^>]*>(.*?)</configuration>", flags=16)
_MAVEN_EXECUTABLE = lazy_regex(r"<executable>\s*([^<]*?)\s*</executable>")
_MAVEN_ARGUMENT = lazy_regex(r"<argument>\s*([^<]*?)\s*</argument>")
_MAVEN_LINE = lazy_regex(r"<commandlineArgs>\s*([^<]*?)\s*</commandlineArgs>")
_ANT_EXEC = lazy_regex(r"<exec\b([^>]*?)(?:/>|>(.*?)</exec>)", flags=16)
_ANT_ATTRIBUTE = lazy_regex(
    r"""\b(executable|command|dir|file|value|line)\s*=\s*(?:"([^"]*)"|'([^']*)')"""
)
_ANT_ARG = lazy_regex(r"<arg\b([^>]*)/?>")
_ANT_DELETE = lazy_regex(r"<delete\b([^>]*)>")
_MAVEN_PROPERTY = lazy_regex(r"\$\{([^}]*)\}")
_XML_ENTITIES = {"&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&apos;": "'"}


def maven_commands(text: str) -> list[str]:
    """The exec plugin's `<executable>` with its `<argument>`s or
    `<commandlineArgs>`, and antrun's `<exec>` and `<delete>` tasks."""
    text = _MAVEN_PROPERTY.sub(_maven_property, text)
    for entity, char in _XML_ENTITIES.items():
        text = text.replace(entity, char) if entity in text else text
    found: list[str] = []
    for block in _MAVEN_CONFIGURATION.finditer(text):
        body = block.group(1)
        executable = _MAVEN_EXECUTABLE.search(body)
        if executable is not None:
            words = [executable.group(1), *(m.group(1) for m in _MAVEN_ARGUMENT.finditer(body))]
            line = _MAVEN_LINE.search(body)
            command = argv_line(words)
            found.append(f"{command} {line.group(1)}" if line else command)
    for task in _ANT_EXEC.finditer(text):
        attributes = _attributes(task.group(1))
        words = [attributes.get("executable") or attributes.get("command") or ""]
        line_parts: list[str] = []
        for arg in _ANT_ARG.finditer(task.group(2) or ""):
            given = _attributes(arg.group(1))
            if "line" in given:
                line_parts.append(given["line"])
            else:
                words.append(given.get("value") or given.get("file") or given.get("dir") or "")
        command = argv_line([w for w in words if w])
        found.append(" ".join([command, *line_parts]) if command else "")
    for task in _ANT_DELETE.finditer(text):
        attributes = _attributes(task.group(1))
        target = attributes.get("dir") or attributes.get("file")
        if target:
            found.append("rm -rf -- " + argv_line([target]))
    return [f for f in found if f.strip()]


def _maven_property(match: Any) -> str:
    return "~" if match.group(1) in ("user.home", "env.HOME") else UNKNOWN


def _attributes(text: str) -> dict[str, str]:
    return {
        m.group(1): m.group(2) if m.group(2) is not None else m.group(3)
        for m in _ANT_ATTRIBUTE.finditer(text)
    }


# -- Cargo ---------------------------------------------------------------------------

_CARGO_WRAPPERS = ("rustc-wrapper", "rustc-workspace-wrapper")


def cargo_config_commands(text: str) -> list[str] | None:
    """Programs Cargo runs: each target's `runner` (on `cargo run`/`test`,
    with the binary after it) and the rustc wrappers (on every build).
    `[alias]` entries name Cargo's own subcommands, never a shell command."""
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    found: list[str] = []
    targets = data.get("target")
    for table in targets.values() if isinstance(targets, dict) else ():
        if isinstance(table, dict):
            found.extend(_cargo_program(table.get("runner")))
    build = data.get("build")
    if isinstance(build, dict):
        for key in _CARGO_WRAPPERS:
            found.extend(_cargo_program(build.get(key)))
    return found


def _cargo_program(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return [argv_line([str(v) for v in value])]
    if isinstance(value, dict):  # `{ path = "...", args = [...] }`
        path, args = value.get("path"), value.get("args")
        if isinstance(path, str):
            extra = [str(a) for a in args] if isinstance(args, list) else []
            return [argv_line([path, *extra])]
    return []
