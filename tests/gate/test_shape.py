"""Calls the gate cannot judge are refused, naming their repair (F-GATE-2).

The texts are what agents are promised: `terminal` needs an absolute
`workdir`, file tools an absolute `path` starting with `/`, and
`execute_code` is always refused in favour of `terminal`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from redline.decision import Decision, Verdict

CheckFn = Callable[..., Decision]
AGAIN = " and call again once"
TERMINAL_REPAIR = (
    "pass `workdir` as an absolute path (for example the Hermes home directory)" + AGAIN
)


def refusal(code: str, reason: str, repair: str) -> Decision:
    return Decision(Verdict.DENY, reason=reason, repair=repair, code=code, context="interactive")


@pytest.mark.parametrize(
    ("args", "got"),
    [
        ({"command": "ls"}, "none"),
        ({"command": "ls", "workdir": "proj"}, "`proj`"),
        ({"command": "ls", "workdir": "~/proj"}, "`~/proj`"),
        ({"command": "ls", "workdir": ""}, "none"),
    ],
)
def test_terminal_needs_an_absolute_workdir(check: CheckFn, args: dict[str, Any], got: str) -> None:
    assert check("terminal", args) == refusal(
        "unsupported-execution-context",
        f"`terminal` needs `workdir` as an absolute path; got {got}",
        TERMINAL_REPAIR,
    )


def test_terminal_takes_its_workdir_from_its_arguments_not_the_host(check: CheckFn) -> None:
    # Hermes carries the directory in `workdir`; a host `cwd` does not stand in.
    decision = check("terminal", {"command": "ls"}, cwd="/srv")
    assert decision.code == "unsupported-execution-context"


def test_host_vocabularies_carry_the_directory_in_cwd(check: CheckFn) -> None:
    assert check("Bash", {"command": "ls"}, cwd="/srv").verdict is Verdict.ALLOW
    assert check("Bash", {"command": "ls"}) == refusal(
        "unsupported-execution-context",
        "`Bash` needs an absolute working directory; got none",
        "pass the working directory as an absolute path (the hook's `cwd`)" + AGAIN,
    )


@pytest.mark.parametrize("tool", ["write_file", "patch", "read_file", "search_files"])
@pytest.mark.parametrize("path", ["notes.txt", "./notes.txt", "~/notes.txt"])
def test_file_tools_need_an_absolute_path(check: CheckFn, tool: str, path: str) -> None:
    assert check(tool, {"path": path, "content": "x"}, cwd="/srv") == refusal(
        "unsupported-execution-context",
        f"`{tool}` needs `path` as an absolute path starting with `/`; got `{path}`",
        "give `path` as an absolute path starting with `/`" + AGAIN,
    )


@pytest.mark.parametrize("tool", ["write_file", "read_file", "search_files"])
def test_file_tools_refuse_a_missing_path(check: CheckFn, tool: str) -> None:
    assert check(tool, {"content": "x", "pattern": "x"}) == refusal(
        "unsupported-execution-context",
        f"`{tool}` needs `path` as an absolute path; got none",
        "give `path` as an absolute path starting with `/`" + AGAIN,
    )


def test_a_patch_with_relative_files_names_its_repair(check: CheckFn) -> None:
    patch = "*** Begin Patch\n*** Update File: src/x.py\n*** End Patch\n"
    assert check("patch", {"mode": "patch", "patch": patch}) == refusal(
        "unsupported-execution-context",
        "`patch` needs `patch` as an absolute path starting with `/`; got `src/x.py`",
        "name every file in the patch by an absolute path starting with `/`" + AGAIN,
    )


def test_host_tools_resolve_relative_paths_against_cwd(check: CheckFn) -> None:
    assert check("Read", {"file_path": "README.md"}, cwd="/srv").verdict is Verdict.ALLOW
    assert check("Grep", {"pattern": "x"}, cwd="/srv").verdict is Verdict.ALLOW
    assert check("Grep", {"pattern": "x"}).code == "unsupported-execution-context"


def test_execute_code_is_always_refused(check: CheckFn) -> None:
    expected = refusal(
        "execute-code-unbound",
        "`execute_code` is always refused: the gate cannot see what the code would do",
        "run the same work through `terminal` with an absolute `workdir`",
    )
    assert check("execute_code", {"code": "print(1)"}) == expected
    assert check("execute_code", {}, context="cron") == Decision(
        Verdict.DENY,
        reason=expected.reason,
        repair=expected.repair,
        code="execute-code-unbound",
        context="cron",
    )


def test_unreadable_arguments_are_refused(check: CheckFn) -> None:
    assert check("terminal", {"command": ["ls", 1], "workdir": "/srv"}) == refusal(
        "malformed-call",
        "`terminal` call cannot be read: `command` must be a string or a list of strings",
        "send the arguments the tool's schema asks for" + AGAIN,
    )
    assert check("terminal", {"workdir": "/srv"}) == refusal(
        "malformed-call",
        "`terminal` call has no command to run",
        "pass the command line to run as `command`" + AGAIN,
    )
