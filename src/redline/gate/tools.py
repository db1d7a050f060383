"""The one table of tool names: Hermes, Claude Code, Codex and Gemini CLI
tools, each mapped to an action kind and to where its arguments live (F-GATE-1).

`normalize(call)` turns a `ToolCall` into an `Action`. It never judges: a
missing or relative path is kept as given for the shape checks to refuse.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from types import MappingProxyType

from redline.fasttuple import NamedTuple
from redline.gate.actions import Action, ActionKind, ToolCall
from redline.shell.lazy_regex import lazy_regex

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from typing import Any


K = ActionKind


class ToolSpec(NamedTuple):
    """Where a tool's arguments live. Keys are tried in order.

    `host_cwd`: the host carries the working directory outside the arguments
    (the `cwd` given to `check_tool_call`), so a command without `workdir`
    runs there, and relative paths resolve against it.
    """

    kind: ActionKind
    vocabulary: str
    command: tuple[str, ...] = ()
    workdir: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    patch: tuple[str, ...] = ()
    urls: tuple[str, ...] = ()
    url_texts: tuple[str, ...] = ()
    target: tuple[str, ...] = ()
    texts: tuple[str, ...] = ()
    host_cwd: bool = False
    path_optional: bool = False
    # A file-name pattern a search is limited to (Grep's `glob`).
    name_glob: tuple[str, ...] = ()


def _hermes(kind: ActionKind, **keys: tuple[str, ...]) -> ToolSpec:
    return ToolSpec(kind, "hermes", **keys)  # type: ignore[arg-type]


def _host(
    vocabulary: str, kind: ActionKind, optional: bool = False, **keys: tuple[str, ...]
) -> ToolSpec:
    return ToolSpec(kind, vocabulary, host_cwd=True, path_optional=optional, **keys)


_SHELL_ARGV = ("command", "cmd", "argv")
_CODEX_WORKDIR = ("workdir", "working_directory", "cwd")

TOOLS: Mapping[str, ToolSpec] = MappingProxyType(
    {
        # Hermes (and Gemini CLI, whose `write_file`/`read_file` share the names:
        # both vocabularies want absolute paths, so one strict entry serves both).
        "terminal": _hermes(K.RUN, command=("command",), workdir=("workdir",)),
        "write_file": _hermes(K.WRITE, paths=("path", "file_path"), texts=("content",)),
        "patch": _hermes(K.PATCH, paths=("path",), patch=("patch",), texts=("new_string", "patch")),
        "read_file": _hermes(K.READ, paths=("path", "absolute_path", "file_path")),
        "search_files": _hermes(K.SEARCH, paths=("path",)),
        "process": _hermes(K.PROCESS, command=("data", "input")),
        "process_manage": _hermes(K.PROCESS, command=("data", "input")),
        "web_extract": _hermes(K.FETCH, urls=("urls", "url")),
        "web_search": _hermes(K.WEB_SEARCH),
        "skill_manage": _hermes(
            K.SKILL, texts=("content", "file_content", "old_string", "new_string")
        ),
        "delegate_task": _hermes(K.DELEGATE, texts=("goal", "context", "prompt", "tasks")),
        "cronjob_manage": _hermes(K.SCHEDULE, command=("script",), texts=("prompt",)),
        "cronjob": _hermes(K.SCHEDULE, command=("script",), texts=("prompt",)),
        "send_message": _hermes(
            K.SEND, target=("target", "chat_id", "to", "platform"), texts=("message",)
        ),
        "execute_code": _hermes(K.CODE, texts=("code",)),
        "memory": _hermes(K.MEMORY, texts=("content",)),
        "todo": _hermes(K.PLAN),
        # Claude Code.
        "Bash": _host("claude", K.RUN, command=("command",)),
        "BashOutput": _host("claude", K.PROCESS),
        "KillShell": _host("claude", K.PROCESS),
        "KillBash": _host("claude", K.PROCESS),
        "Write": _host("claude", K.WRITE, paths=("file_path",), texts=("content",)),
        "Edit": _host("claude", K.PATCH, paths=("file_path",), texts=("new_string",)),
        "MultiEdit": _host("claude", K.PATCH, paths=("file_path",), texts=("edits",)),
        "NotebookEdit": _host("claude", K.PATCH, paths=("notebook_path",), texts=("new_source",)),
        "Read": _host("claude", K.READ, paths=("file_path",)),
        "NotebookRead": _host("claude", K.READ, paths=("notebook_path",)),
        "Grep": _host("claude", K.SEARCH, optional=True, paths=("path",), name_glob=("glob",)),
        "Glob": _host("claude", K.LIST, optional=True, paths=("path",)),
        "LS": _host("claude", K.LIST, paths=("path",)),
        "WebFetch": _host("claude", K.FETCH, urls=("url",)),
        "WebSearch": _host("claude", K.WEB_SEARCH),
        "Task": _host("claude", K.DELEGATE, texts=("prompt", "description")),
        "TodoWrite": _host("claude", K.PLAN),
        "ExitPlanMode": _host("claude", K.PLAN),
        # Codex: the shell tool takes an argv list; `apply_patch` takes the patch.
        "shell": _host("codex", K.RUN, command=_SHELL_ARGV, workdir=_CODEX_WORKDIR),
        "local_shell": _host("codex", K.RUN, command=_SHELL_ARGV, workdir=_CODEX_WORKDIR),
        "container.exec": _host("codex", K.RUN, command=_SHELL_ARGV, workdir=_CODEX_WORKDIR),
        "exec_command": _host("codex", K.RUN, command=_SHELL_ARGV, workdir=_CODEX_WORKDIR),
        "shell_command": _host("codex", K.RUN, command=_SHELL_ARGV, workdir=_CODEX_WORKDIR),
        "write_stdin": _host("codex", K.PROCESS, command=("chars", "input")),
        "apply_patch": _host(
            "codex", K.PATCH, patch=("input", "patch", "command"), texts=("input", "patch")
        ),
        "view_image": _host("codex", K.READ, paths=("path",)),
        "update_plan": _host("codex", K.PLAN),
        # Gemini CLI (`write_file` and `read_file` are above).
        "run_shell_command": _host("gemini", K.RUN, command=("command",), workdir=("directory",)),
        "replace": _host("gemini", K.PATCH, paths=("file_path",), texts=("new_string",)),
        "read_many_files": _host("gemini", K.READ, paths=("paths",)),
        "glob": _host("gemini", K.LIST, optional=True, paths=("path",)),
        "search_file_content": _host(
            "gemini", K.SEARCH, optional=True, paths=("path",), name_glob=("include",)
        ),
        "list_directory": _host("gemini", K.LIST, paths=("path",)),
        "web_fetch": _host("gemini", K.FETCH, urls=("url",), url_texts=("prompt",)),
        "google_web_search": _host("gemini", K.WEB_SEARCH),
        "save_memory": _host("gemini", K.MEMORY, texts=("fact",)),
        "write_todos": _host("gemini", K.PLAN),
    }
)

# Families named by prefix: `browser_navigate`, `mcp__github__create_issue`.
PREFIXES: tuple[tuple[str, ToolSpec], ...] = (
    ("browser_", _hermes(K.BROWSE, urls=("url",))),
    ("mcp__", _host("mcp", K.MCP)),
)

# Spellings hosts and model APIs give the same tool: `functions.terminal`,
# `default_api:read_file`, `Terminal`, `bash`.
_NAMESPACE = lazy_regex(r"\A(?:functions|default_api|tools|tool|api)[.:]")


def _fold(tools: Mapping[str, ToolSpec]) -> Mapping[str, ToolSpec]:
    """Lower-cased names, leaving out a spelling two different tools share."""
    folded: dict[str, ToolSpec | None] = {}
    for name, spec in tools.items():
        key = name.lower()
        folded[key] = spec if folded.get(key, spec) == spec else None
    return MappingProxyType({k: v for k, v in folded.items() if v is not None})


_FOLDED: Mapping[str, ToolSpec] = _fold(TOOLS)

_URL = lazy_regex(r"\bhttps?://[^\s<>\"'`)\]]+", re.IGNORECASE)


def lookup(tool: str) -> ToolSpec | None:
    spec = TOOLS.get(tool)
    if spec is not None:
        return spec
    bare = _NAMESPACE.sub("", tool, count=1)
    spec = TOOLS.get(bare) or _FOLDED.get(bare.lower())
    if spec is not None:
        return spec
    for prefix, family in PREFIXES:
        if tool.startswith(prefix) and len(tool) > len(prefix):
            return family
    return None


def known_tool(tool: str) -> bool:
    return lookup(tool) is not None


class _Malformed(ValueError):
    pass


def normalize(call: ToolCall) -> Action:
    """The action a tool call stands for; unknown tools give `ActionKind.UNKNOWN`."""
    spec = lookup(call.tool)
    args = call.args
    if spec is None or spec.kind is K.MCP:
        # Nothing says what these tools do: keep every string they are given,
        # so the never-run checks can see a protected path among them.
        texts = tuple(_flatten(args)) if isinstance(args, Mapping) else ()
        command = workdir = None
        if isinstance(args, Mapping):
            from redline.gate import foreign_commands  # only for these tools: off most hooks' start

            command = foreign_commands.command_text(call.tool, args)
            workdir = foreign_commands.workdir(args) if command else None
        kind, vocabulary = (K.UNKNOWN, "unknown") if spec is None else (K.MCP, spec.vocabulary)
        if workdir and call.cwd and not workdir.startswith(("/", "~")):
            workdir = call.cwd.rstrip("/") + "/" + workdir
        return Action(
            call.tool,
            kind,
            vocabulary,
            command=command,
            workdir=(workdir or call.cwd) if command else None,
            base=call.cwd,
            texts=texts,
        )
    if not isinstance(args, Mapping):
        return Action(
            call.tool,
            spec.kind,
            spec.vocabulary,
            problem=f"arguments must be an object, not {type(args).__name__}",
        )
    try:
        return _read(call, spec, args)
    except _Malformed as error:
        return Action(call.tool, spec.kind, spec.vocabulary, base=call.cwd, problem=str(error))


def _read(call: ToolCall, spec: ToolSpec, args: Mapping[str, Any]) -> Action:
    kind = spec.kind
    command, argv = _command(args, spec.command)
    paths: list[str] = []
    path_key = spec.paths[0] if spec.paths else "path"
    for key in spec.paths:
        if key in args and args[key] is not None:
            paths.extend(_strings_of(args[key], key))
            path_key = key
            break
    patch_texts = [t for key in spec.patch for t in _patch_text(args, key)]
    if argv and argv[0] in ("apply_patch", "applypatch") and len(argv) > 1:
        kind, command, patch_texts = K.PATCH, None, [argv[1]]  # Codex shell running a patch
    if patch_texts and not paths:
        path_key = next((k for k in spec.patch if k in args), "patch")
    if patch_texts:
        from redline.gate.patchfile import patch_paths  # only for a patch (a hook's start)

        for text in patch_texts:
            paths.extend(patch_paths(text))
    workdir, source = _workdir(call, spec, args) if kind is K.RUN else (None, "")
    urls = [u for key in spec.urls if key in args for u in _strings_of(args[key], key)]
    urls += [m.group(0) for key in spec.url_texts for m in _URL.finditer(_text(args.get(key)))]
    target = next((str(args[k]) for k in spec.target if isinstance(args.get(k), str | int)), None)
    texts = tuple(t for key in spec.texts for t in _flatten(args.get(key)))
    name_glob = next((args[k] for k in spec.name_glob if isinstance(args.get(k), str)), None)
    return Action(
        tool=call.tool,
        kind=kind,
        vocabulary=spec.vocabulary,
        command=command,
        workdir=workdir,
        workdir_source=source,
        paths=tuple(paths),
        path_key=path_key,
        urls=tuple(urls),
        target=target,
        texts=texts,
        base=workdir if kind is K.RUN else (call.cwd if spec.host_cwd else None),
        relative_ok=spec.host_cwd,
        path_optional=spec.path_optional,
        name_glob=name_glob or None,
    )


def _command(args: Mapping[str, Any], keys: tuple[str, ...]) -> tuple[str | None, list[str]]:
    for key in keys:
        value = args.get(key)
        if value is None:
            continue
        if isinstance(value, str):
            return value, []
        if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
            import shlex  # only for an argv list (Codex): off most hooks' start

            argv = [str(v) for v in value]
            return shlex.join(argv), argv
        raise _Malformed(f"`{key}` must be a string or a list of strings")
    return None, []


def _workdir(call: ToolCall, spec: ToolSpec, args: Mapping[str, Any]) -> tuple[str | None, str]:
    for key in spec.workdir:
        value = args.get(key)
        if value is None or value == "":
            continue
        if not isinstance(value, str):
            raise _Malformed(f"`{key}` must be a string")
        if spec.host_cwd and call.cwd and not value.startswith(("/", "~")):
            return call.cwd.rstrip("/") + "/" + value, key  # relative to the project root
        return value, key
    if spec.host_cwd and call.cwd:
        return call.cwd, "cwd"
    return None, ""


def _patch_text(args: Mapping[str, Any], key: str) -> Iterator[str]:
    value = args.get(key)
    if isinstance(value, str):
        yield value
    elif isinstance(value, list | tuple) and value and value[0] in ("apply_patch", "applypatch"):
        yield from (v for v in value[1:] if isinstance(v, str))


def _strings_of(value: Any, key: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return [str(v) for v in value]
    raise _Malformed(f"`{key}` must be a string or a list of strings")


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _flatten(value: Any, depth: int = 0) -> Iterator[str]:
    """Every string inside a value (lists and objects included), bounded."""
    if depth > 8:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _flatten(item, depth + 1)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _flatten(item, depth + 1)
