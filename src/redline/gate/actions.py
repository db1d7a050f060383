"""What a tool call would do, whatever the agent calls the tool (F-GATE-1).

A `ToolCall` is what the agent sent; an `Action` is what it means: run a
command in a directory, read or write paths, fetch URLs, send a message...
Values given by the agent are kept as given (`workdir`, `paths`); the shape
checks and the engine normalise them.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from types import MappingProxyType

from redline.fasttuple import NamedTuple

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from typing import Any


class ActionKind(enum.StrEnum):
    RUN = "run"  # a shell command line, with its working directory
    READ = "read"  # read files
    WRITE = "write"  # create or replace files
    PATCH = "patch"  # edit files in place
    SEARCH = "search"  # search inside files
    LIST = "list"  # list names of files (no contents)
    FETCH = "fetch"  # fetch URLs
    WEB_SEARCH = "web-search"  # ask a search engine
    BROWSE = "browse"  # drive a browser
    SEND = "send"  # send a message to someone
    DELEGATE = "delegate"  # hand work to a sub-agent
    SCHEDULE = "schedule"  # create or change a scheduled job
    SKILL = "skill"  # create or change a skill
    PROCESS = "process"  # read from or write to a running process
    CODE = "code"  # run code the gate cannot see into
    MEMORY = "memory"  # save a fact to the agent's memory
    PLAN = "plan"  # update the agent's own plan or todo list
    MCP = "mcp"  # a tool served by an MCP server
    UNKNOWN = "unknown"  # a tool the table does not know


# Kinds that act on files and so need absolute paths (F-GATE-2).
FILE_KINDS = frozenset(
    {ActionKind.READ, ActionKind.WRITE, ActionKind.PATCH, ActionKind.SEARCH, ActionKind.LIST}
)
# Kinds that change files.
WRITE_KINDS = frozenset({ActionKind.WRITE, ActionKind.PATCH})


class ToolCall(NamedTuple):
    """A tool call as the agent's host reports it.

    `cwd` is the working directory when the host carries it outside the
    arguments (Claude Code, Codex, Gemini CLI hooks); `context` and `session`
    override the ones set in `redline.gate.context` for this call.
    """

    tool: str
    args: Mapping[str, Any] = MappingProxyType({})
    cwd: str | None = None
    context: str | None = None
    session: str | None = None


class Action(NamedTuple):
    """One tool call, normalised.

    `command` is the shell text to judge (a command, process input, a job's
    script). `workdir` is where a command runs, `None` when not given.
    `paths` are file paths as given; `texts` are free texts that can carry
    code or instructions (inline code, written content, a sub-agent's goal).
    `problem` names arguments that could not be read (`malformed-call`).
    """

    tool: str
    kind: ActionKind
    vocabulary: str
    command: str | None = None
    workdir: str | None = None
    # Where `workdir` came from: the arguments (`workdir`) or the host (`cwd`).
    workdir_source: str = ""
    paths: tuple[str, ...] = ()
    path_key: str = "path"
    urls: tuple[str, ...] = ()
    target: str | None = None
    texts: tuple[str, ...] = ()
    problem: str | None = None
    # The host's working directory, used to resolve relative paths where the
    # host's vocabulary allows them.
    base: str | None = None
    # The arguments allow relative paths (resolved against `base`).
    relative_ok: bool = False
    # A file-tool path argument that is optional and defaults to `base`.
    path_optional: bool = False
    # The file names a search is limited to (`glob: ".env*"`): it reads those.
    name_glob: str | None = None

    @property
    def is_file_tool(self) -> bool:
        return self.kind in FILE_KINDS
