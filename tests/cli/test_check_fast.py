"""`redline check` reads its common command lines without argparse, to the
same values argparse gives; the package loads its parts on first use."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import redline
from redline.cli.checkargs import fast_args, normalize
from redline.cli.main import build_parser

SAME = [
    ["ls"],
    ["rm -rf build", "--cwd", "/srv"],
    ["--json", "ls", "--cwd=/srv"],
    ["--cwd", "", "ls"],
    ["--record", "--batch"],
    ["ls", "pwd"],
    ["rm", "-rf", "/", "--json"],
    ["--", "-rf"],
    ["--tool", "Read", "--args", '{"file_path": "/x"}', "--context", "cron", "--session", "s"],
    ["--policy", "p.yaml", "--tool=Write", "--args={}", "--json", "--record"],
    ["--cwd", "/a", "--cwd", "/b", "ls"],
    [],
    [""],
]
LEFT_TO_ARGPARSE = [
    ["-h"],
    ["--help"],
    ["--reco", "ls"],
    ["--cwd"],
    ["--cwd", "--json", "ls"],
    ["--json=yes", "ls"],
    ["--args", "-1", "--tool", "Read"],
    ["-x"],
]


@pytest.mark.parametrize("argv", SAME)
def test_fast_args_match_argparse(argv: list[str]) -> None:
    parsed = vars(build_parser(only="check").parse_args(["check", *normalize(argv)]))
    del parsed["handler"]
    fast = fast_args(normalize(argv))
    assert fast is not None
    assert vars(fast) == parsed


@pytest.mark.parametrize("argv", LEFT_TO_ARGPARSE)
def test_anything_unusual_is_left_to_argparse(argv: list[str]) -> None:
    assert fast_args(normalize(argv)) is None


def test_public_names_load_on_first_use() -> None:
    from redline.command import check_command
    from redline.decision import Decision
    from redline.gatekeeper import check_tool_call

    assert (redline.check_command, redline.Decision, redline.check_tool_call) == (
        check_command,
        Decision,
        check_tool_call,
    )
    with pytest.raises(AttributeError, match="no attribute `nothing`"):
        _ = redline.nothing


@pytest.mark.parametrize(
    ("words", "gate"),
    # `redline check ls` judges what a hook would, through the gate; `--rules-only` does not.
    [(["check", "ls"], True), (["check", "--rules-only", "ls"], False)],
)
def test_check_and_hook_start_without_argparse(
    tmp_path: Path, words: list[str], gate: bool
) -> None:
    """What `redline check ls` and `import redline` load, in a fresh process."""
    code = (
        "import sys, redline; light = 'redline.command' not in sys.modules; "
        f"from redline.cli.main import main; code = main({words!r}); "
        "print(light, code, 'argparse' in sys.modules, 'redline.gatekeeper' in sys.modules)"
    )
    env = {"REDLINE_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    ).stdout
    assert out.splitlines()[-1] == f"True 0 False {gate}"


HOOK_PAYLOADS = {
    "claude-code": {"hook_event_name": "PreToolUse", "tool_name": "Bash"},
    "codex": {"hook_event_name": "PreToolUse", "tool_name": "Bash"},
    "gemini": {"hook_event_name": "BeforeTool", "tool_name": "run_shell_command"},
    "hermes": {"hook_event_name": "pre_tool_call", "tool_name": "terminal"},
}


@pytest.mark.parametrize("host", [*HOOK_PAYLOADS, "generic"])
def test_a_hook_process_loads_no_typing_runpy_dataclasses_or_pathlib(
    tmp_path: Path, host: str
) -> None:
    """ADR 0004: what a hook's start leaves out, in the installed form."""
    import json

    from redline.hooks.install import hook_argv

    command = {"command": "ls -la | grep x", "workdir": "/tmp"}
    if host == "generic":
        body: dict[str, object] = {"tool": "terminal", "args": command, "session": "s"}
    else:
        body = {"session_id": "s", "cwd": "/tmp", **HOOK_PAYLOADS[host], "tool_input": command}
    payload = json.dumps(body)
    env = {"REDLINE_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    for _ in range(2):  # the first call in a new home also builds the policy cache
        done = subprocess.run(
            [sys.executable, "-X", "importtime", *hook_argv(host)[1:]],
            input=payload,
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-2000:]
    loaded = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert "redline.gatekeeper" in loaded  # the hook did judge the call
    left_out = {
        "typing",
        "runpy",
        "dataclasses",
        "pathlib",
        "argparse",
        "contextlib",
        "zlib",
        "shlex",
        "hashlib",
        "site",  # `python -S`: the installed command puts back only the paths it needs
        "threading",
        "json",  # `redline.jsoncodec` calls its C parser and encoder (ADR 0011)
        # An everyday command loads no module it would not run: the general
        # parser (the fast path reads it), nor the judges of other programs.
        "redline.shell.parser",
        "redline.shell.kill_targets",
        "redline.gate.agent_launch",
        "redline.gate.code_trees",
        "redline.gate.processes",
        "redline.gate.patchfile",
        "redline.gate.script_memo",
        "redline.rules.harmless",
    }
    assert loaded & left_out == set()


@pytest.mark.parametrize(
    ("command", "judged_by", "left_out"),
    [
        # `npm` may write a file that runs later: it writes none, so no file format loads.
        (
            "cd src && git status --short | grep -v '^??' > c.txt; npm test 2>&1 | tail -5",
            "redline.rules.later",
            {"redline.runs_later.judge", "redline.runs_later.formats", "redline.rules.cloud"},
        ),
        # An asked call's rule id is read from the catalogue's index: no other family loads.
        ("git push --force origin main", "redline.rules.vcs", {"redline.rules.cloud"}),
    ],
)
def test_a_hook_loads_only_what_its_command_needs(
    tmp_path: Path, command: str, judged_by: str, left_out: set[str]
) -> None:
    import json

    from redline.hooks.install import hook_argv

    body = {"session_id": "s", "cwd": "/tmp", **HOOK_PAYLOADS["claude-code"]}
    payload = json.dumps({**body, "tool_input": {"command": command}})
    env = {"REDLINE_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    for _ in range(2):  # the first call in a new home also builds the policy cache
        done = subprocess.run(
            [sys.executable, "-X", "importtime", *hook_argv("claude-code")[1:]],
            input=payload,
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-2000:]
    loaded = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert judged_by in loaded
    assert loaded & left_out == set()
