"""The command line's own edges: `--version`, a mistyped subcommand, the one
table of exit codes, and `redline hook AGENT --help`."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from redline.cli import exitcodes
from redline.cli.main import main

README = Path(__file__).resolve().parents[2] / "README.md"


def test_version_comes_from_the_package_metadata(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert (exit_.value.code, capsys.readouterr().out) == (0, f"redline {version('redline')}\n")


@pytest.mark.parametrize(
    ("word", "message"),
    [
        ("aprove", "redline: unknown command `aprove`; did you mean `approve`?"),
        ("chek", "redline: unknown command `chek`; did you mean `check`?"),
        ("unistall", "redline: unknown command `unistall`; did you mean `uninstall`?"),
        ("zzz", "redline: unknown command `zzz`; see `redline --help`"),
    ],
)
def test_a_mistyped_subcommand_suggests_the_right_one(
    capsys: pytest.CaptureFixture[str], word: str, message: str
) -> None:
    assert main([word, "x"]) == exitcodes.USAGE
    assert capsys.readouterr() == ("", message + "\n")


def readme_table() -> list[tuple[int, str]]:
    section = README.read_text().split("## Exit codes\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\d+)` \| (.+?) \|$", section, re.MULTILINE)
    return [(int(code), meaning) for code, meaning in rows]


def test_the_readme_table_is_exitcodes_table() -> None:
    assert readme_table() == list(exitcodes.TABLE)


def test_help_shows_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert out.split("exit codes:\n", 1)[1] == "".join(
        f"  {code}  {meaning}\n" for code, meaning in exitcodes.TABLE
    )


@pytest.mark.parametrize("argv", [["hook", "claude-code", "--help"], ["hook", "-h"]])
def test_hook_help_prints_help(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    out, err = capsys.readouterr()
    assert (exit_.value.code, err) == (0, "")
    assert out.startswith("usage: redline hook [-h]")
    assert "redline blocked this call" not in out


HOOK = [sys.executable, "-I", "-c", "import redline.__main__ as m; m.run()", "hook"]
SAMPLE = {
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "ls"},
    "session_id": "s",
    "cwd": "/",
}


@pytest.mark.parametrize(
    ("argv", "code", "blocked"),
    [
        (["claude-code", "--help"], 0, False),
        (["--help"], 0, False),
        (["claude-code", "--help", "--service"], 2, True),
        (["claude-code", "junk"], 2, True),
        (["nope", "--help"], 2, True),
        (["claude-code", "-h", "-h"], 2, True),
    ],
)
def test_only_a_plain_help_request_escapes_the_hook(
    tmp_path: Path, argv: list[str], code: int, blocked: bool
) -> None:
    """In the installed form too; any other unknown word still blocks."""
    done = subprocess.run(
        [*HOOK, *argv],
        input=json.dumps(SAMPLE),
        capture_output=True,
        text=True,
        env={"REDLINE_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
        check=False,
        timeout=60,
    )
    assert (done.returncode, "redline blocked this call" in done.stderr) == (code, blocked)
    assert done.stdout.startswith("usage: redline hook") == (not blocked)
