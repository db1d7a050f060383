"""The shell command inside a call to a tool the gate does not know (an MCP
server's `run_command`, a host's `execute_command`, a plugin's `bash`), so
that it is judged as the same command typed into a terminal, hard lines
included (issue 13, family 11).

Where the command is: a key that names one (`command`, `cmd`, `script`,
`shell`...) holding text or an argv list (`{"command": "rm", "args": ["-rf",
"/"]}` is `rm -rf /`), `run` steps, nested objects; `code` given to a tool
named for an interpreter (`mcp__python__run {"code": ...}` is `python3 -c
...`); SQL given to a tool named for a database (`psql -c ...`). Text under
other keys (`query`, `message`, `content`) is never read as a command.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from redline.shell.lazy_regex import lazy_regex

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from typing import Any

# Keys whose text is a shell command line.
_COMMAND_KEYS = frozenset({"command", "cmd", "script", "shell", "shell_command", "bash", "sh",
                           "command_line", "commandline", "cmdline", "run", "exec", "execute",
                           "shellcommand", "bash_command", "terminal_command"})  # fmt: skip
# Keys whose list holds command lines, one each.
_COMMAND_LISTS = frozenset({"commands", "cmds", "scripts", "lines", "steps"})
# Keys a tool named for running things (`mcp__x__shell`) takes its command in.
_RUN_INPUTS = frozenset({"input", "text", "line", "code"})
# Keys whose list is an argv, after the program a command key names.
_ARGV_KEYS = ("args", "argv", "arguments")
# Keys that name the program of an argv.
_PROGRAM_KEYS = ("program", "executable", "binary", "file")
_WORKDIR_KEYS = ("cwd", "workdir", "working_directory", "workingDirectory", "directory", "dir")
# Tool names that run what they are given: an argv list alone is a command.
_RUNS = lazy_regex(r"(?i)(?:exec|run|shell|bash|terminal|command|cmd|spawn|process|sh\b)")
_INTERPRETERS = (
    (lazy_regex(r"(?i)python|ipython|jupyter"), "python3 -c"),
    (lazy_regex(r"(?i)node|javascript|\bjs\b|_js|js_|deno|typescript"), "node -e"),
    (lazy_regex(r"(?i)ruby"), "ruby -e"),
    (lazy_regex(r"(?i)perl"), "perl -e"),
    (lazy_regex(r"(?i)php"), "php -r"),
    (lazy_regex(r"(?i)bash|shell|terminal|\bsh\b|_sh\b|zsh"), ""),
)
_CODE_KEYS = ("code", "source", "script", "program", "snippet")
_DATABASE = lazy_regex(
    r"(?i)sql|postgres|\bpg|_pg|mysql|maria|sqlite|database|\bdb|_db|supabase|neon"
)
_SQL_KEYS = ("sql", "query", "statement", "statements", "sql_query")
_MAX_DEPTH = 6


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _argv(words: list[str]) -> str:
    return " ".join(_quote(w) if w == "" or not _plain(w) else w for w in words)


_PLAIN = lazy_regex(r"\A[\w@%+=:,./-]+\Z")


def _plain(word: str) -> bool:
    return bool(_PLAIN.match(word))


def _strings(value: Any) -> list[str] | None:
    if isinstance(value, list | tuple) and value and all(isinstance(v, str) for v in value):
        return [str(v) for v in value]
    return None


def _commands(args: Mapping[str, Any], tool_runs: bool, depth: int = 0) -> Iterator[str]:
    if depth > _MAX_DEPTH:
        return
    lowered = {str(k).lower(): v for k, v in args.items()}
    argv = next((a for k in _ARGV_KEYS if (a := _strings(lowered.get(k))) is not None), None)
    program = next((lowered[k] for k in _PROGRAM_KEYS if isinstance(lowered.get(k), str)), None)
    for key, value in lowered.items():
        if key in _COMMAND_LISTS and (lines := _strings(value)) is not None:
            yield from lines  # `{"commands": ["cd x", "make"]}`: one command each
            continue
        if key in _COMMAND_KEYS or (tool_runs and key in _RUN_INPUTS):
            if isinstance(value, str) and value.strip():
                # `{"command": "rm", "args": ["-rf", "/"]}`: the program and its argv.
                yield _argv([value, *argv]) if argv and _plain(value) else value
            elif (words := _strings(value)) is not None:
                yield _argv(words) if len(words) > 1 or _plain(words[0]) else words[0]
        if isinstance(value, Mapping):
            yield from _commands(value, tool_runs, depth + 1)
        elif isinstance(value, list | tuple):
            for item in value[:64]:
                if isinstance(item, Mapping):
                    yield from _commands(item, tool_runs, depth + 1)
    if argv and not any(k in lowered for k in _COMMAND_KEYS):
        if program is not None:
            yield _argv([program, *argv])
        elif tool_runs and depth == 0:
            yield _argv(argv)


def command_text(tool: str, args: Mapping[str, Any]) -> str | None:
    """The shell command a call to an unknown or MCP tool would run, as one
    command line (several found are joined with `;`); `None` if none."""
    found = list(dict.fromkeys(_commands(args, bool(_RUNS.search(tool)))))
    lowered = {str(k).lower(): v for k, v in args.items()}
    for pattern, prefix in _INTERPRETERS:
        if pattern.search(tool):
            for key in _CODE_KEYS:
                code = lowered.get(key)
                if isinstance(code, str) and code.strip():
                    # `{"script": ...}` to a Python tool is Python, not shell text.
                    found = [f for f in found if f != code]
                    found.append(f"{prefix} {_quote(code)}" if prefix else code)
            break
    if _DATABASE.search(tool):
        for key in _SQL_KEYS:
            sql = lowered.get(key)
            if isinstance(sql, str) and sql.strip():
                found.append(f"psql -c {_quote(sql)}")
    if not found:
        return None
    return found[0] if len(found) == 1 else "\n".join(found)


def workdir(args: Mapping[str, Any]) -> str | None:
    """The directory an unknown tool's command runs in, if the call says."""
    for key in _WORKDIR_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value:
            return value
    return None
