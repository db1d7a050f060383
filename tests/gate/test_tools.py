"""One table maps every host's tool names to actions (F-GATE-1)."""

from __future__ import annotations

from typing import Any

import pytest

from redline.gate.actions import Action, ActionKind, ToolCall
from redline.gate.patchfile import patch_paths
from redline.gate.tools import TOOLS, lookup, normalize

K = ActionKind
PATCH = """*** Begin Patch
*** Add File: /srv/app/new.py
+print(1)
*** Update File: src/app.py
*** Move to: src/main.py
@@
-a
+b
*** Delete File: /srv/app/old.py
*** End Patch
"""


def test_patch_paths_names_every_file_a_patch_touches() -> None:
    assert patch_paths(PATCH) == ("/srv/app/new.py", "src/app.py", "src/main.py", "/srv/app/old.py")


def test_patch_paths_reads_unified_diffs() -> None:
    diff = "--- a/src/x.py\n+++ b/src/x.py\n@@ -1 +1 @@\n-a\n+b\n--- /dev/null\n+++ b/new.txt\n"
    assert patch_paths(diff) == ("src/x.py", "new.txt")


@pytest.mark.parametrize(
    ("call", "action"),
    [
        (
            ToolCall("terminal", {"command": "ls", "workdir": "/srv"}),
            Action(
                "terminal",
                K.RUN,
                "hermes",
                command="ls",
                workdir="/srv",
                workdir_source="workdir",
                base="/srv",
            ),
        ),
        (
            ToolCall("Bash", {"command": "ls"}, cwd="/srv"),
            Action(
                "Bash",
                K.RUN,
                "claude",
                command="ls",
                workdir="/srv",
                workdir_source="cwd",
                base="/srv",
                relative_ok=True,
            ),
        ),
        (
            ToolCall("shell", {"command": ["bash", "-lc", "echo 'a b'"], "workdir": "/w"}),
            Action(
                "shell",
                K.RUN,
                "codex",
                command="bash -lc 'echo '\"'\"'a b'\"'\"''",
                workdir="/w",
                workdir_source="workdir",
                base="/w",
                relative_ok=True,
            ),
        ),
        (
            ToolCall("run_shell_command", {"command": "make", "directory": "sub"}, cwd="/p"),
            Action(
                "run_shell_command",
                K.RUN,
                "gemini",
                command="make",
                workdir="/p/sub",
                workdir_source="directory",
                base="/p/sub",
                relative_ok=True,
            ),
        ),
        (
            ToolCall("Write", {"file_path": "/srv/a.txt", "content": "hi"}, cwd="/srv"),
            Action(
                "Write",
                K.WRITE,
                "claude",
                paths=("/srv/a.txt",),
                path_key="file_path",
                texts=("hi",),
                base="/srv",
                relative_ok=True,
            ),
        ),
        (
            ToolCall("apply_patch", {"input": PATCH}, cwd="/srv/app"),
            Action(
                "apply_patch",
                K.PATCH,
                "codex",
                paths=("/srv/app/new.py", "src/app.py", "src/main.py", "/srv/app/old.py"),
                path_key="input",
                texts=(PATCH,),
                base="/srv/app",
                relative_ok=True,
            ),
        ),
        (
            ToolCall("patch", {"mode": "patch", "patch": PATCH}),
            Action(
                "patch",
                K.PATCH,
                "hermes",
                paths=("/srv/app/new.py", "src/app.py", "src/main.py", "/srv/app/old.py"),
                path_key="patch",
                texts=(PATCH,),
            ),
        ),
        (
            ToolCall("read_many_files", {"paths": ["a.md", "/b.md"]}, cwd="/p"),
            Action(
                "read_many_files",
                K.READ,
                "gemini",
                paths=("a.md", "/b.md"),
                path_key="paths",
                base="/p",
                relative_ok=True,
            ),
        ),
        (
            ToolCall("web_fetch", {"prompt": "summarise https://example.com/a and http://x.org"}),
            Action(
                "web_fetch",
                K.FETCH,
                "gemini",
                urls=("https://example.com/a", "http://x.org"),
                relative_ok=True,
            ),
        ),
        (
            ToolCall("send_message", {"target": "telegram:42", "message": "done"}),
            Action("send_message", K.SEND, "hermes", target="telegram:42", texts=("done",)),
        ),
        (
            ToolCall("Grep", {"pattern": "x"}, cwd="/p"),
            Action("Grep", K.SEARCH, "claude", base="/p", relative_ok=True, path_optional=True),
        ),
    ],
    ids=lambda v: v.tool if isinstance(v, ToolCall | Action) else "",
)
def test_normalize(call: ToolCall, action: Action) -> None:
    assert normalize(call) == action


def test_codex_shell_running_apply_patch_is_a_patch() -> None:
    action = normalize(ToolCall("shell", {"command": ["apply_patch", PATCH]}, cwd="/srv/app"))
    assert (action.kind, action.command, action.paths[0]) == (K.PATCH, None, "/srv/app/new.py")


@pytest.mark.parametrize(
    ("tool", "kind"),
    [
        ("browser_navigate", K.BROWSE),
        ("mcp__github__create_issue", K.MCP),
        ("execute_code", K.CODE),
        ("cronjob_manage", K.SCHEDULE),
        ("delegate_task", K.DELEGATE),
        ("skill_manage", K.SKILL),
        ("process", K.PROCESS),
        ("web_extract", K.FETCH),
        ("Edit", K.PATCH),
        ("MultiEdit", K.PATCH),
        ("NotebookEdit", K.PATCH),
        ("Read", K.READ),
        ("Glob", K.LIST),
        ("WebFetch", K.FETCH),
        ("replace", K.PATCH),
        ("glob", K.LIST),
        ("search_file_content", K.SEARCH),
        ("list_directory", K.LIST),
        ("google_web_search", K.WEB_SEARCH),
        ("save_memory", K.MEMORY),
        ("search_files", K.SEARCH),
    ],
)
def test_every_vocabulary_maps_to_a_kind(tool: str, kind: ActionKind) -> None:
    assert normalize(ToolCall(tool, {})).kind is kind


def test_unknown_tool_is_unknown() -> None:
    assert normalize(ToolCall("frobnicate", {"x": 1}, cwd="/p")) == Action(
        "frobnicate", K.UNKNOWN, "unknown", base="/p"
    )


@pytest.mark.parametrize(
    ("tool", "args", "problem"),
    [
        ("terminal", {"command": 42}, "`command` must be a string or a list of strings"),
        ("Write", {"file_path": ["/a", 3]}, "`file_path` must be a string or a list of strings"),
        ("terminal", {"command": "ls", "workdir": 7}, "`workdir` must be a string"),
        ("terminal", "ls", "arguments must be an object, not str"),
    ],
)
def test_unreadable_arguments_are_a_problem(tool: str, args: Any, problem: str) -> None:
    assert normalize(ToolCall(tool, args)).problem == problem


def test_table_names_are_unique_and_known() -> None:
    assert all(lookup(name) is spec for name, spec in TOOLS.items())
    assert lookup("browser_") is None and lookup("mcp__") is None
