"""`redline check rm -rf /` judges the words it was given; a broken policy,
given or configured, stops every path of `redline check` (exit 6, `file:line`)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from redline.cli import exitcodes
from redline.cli.checkargs import normalize
from redline.cli.main import main

YAML_ERROR = "version: 1\nrules: [\n"
VALIDATION_ERROR = "version: 1\ndefault: alow\n"


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "redline"
    home.mkdir()
    monkeypatch.setenv("REDLINE_HOME", str(home))
    monkeypatch.setenv("HOME", "/home/me")
    monkeypatch.delenv("REDLINE_POLICY", raising=False)
    monkeypatch.delenv("HERMES_HOME", raising=False)
    return home


@pytest.mark.parametrize(
    ("argv", "normalized"),
    [
        (["rm", "-rf", "/"], ["--", "rm -rf /"]),
        (
            ["--json", "rm", "-rf", "/", "--cwd", "/srv"],
            ["--json", "--cwd", "/srv", "--", "rm -rf /"],
        ),
        (["echo", "a b", "--force"], ["--", "echo 'a b' --force"]),
        (["rm -rf build", "--cwd=/srv"], ["--cwd=/srv", "--", "rm -rf build"]),
        (["git", "log", "--jso"], ["--", "git log --jso"]),
        (["--", "ls", "--json"], ["--", "ls --json"]),
        (["--cw", "/srv", "ls"], ["--cw", "/srv", "--", "ls"]),
        (["--policy", "p.yaml", "--tool", "Read"], ["--policy", "p.yaml", "--tool", "Read"]),
        (["ls", "-h"], ["--", "ls -h"]),
        (["-h"], ["-h"]),
    ],
)
def test_normalize_puts_the_joined_command_last(argv: list[str], normalized: list[str]) -> None:
    assert normalize(argv) == normalized


def test_an_unquoted_command_is_judged_as_its_joined_words(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["check", "--json", "rm", "-rf", "/"]) == exitcodes.DENY
    out = json.loads(capsys.readouterr().out)
    assert (out["verdict"], out["rules"], out["hardline"]) == ("deny", ["fs.delete-root"], True)
    assert main(["check", "rm", "-rf", "/", "--json"]) == exitcodes.DENY
    assert json.loads(capsys.readouterr().out)["rules"] == ["fs.delete-root"]
    assert main(["check", "git", "push", "--force", "origin", "main"]) == exitcodes.ASK
    assert capsys.readouterr().out.splitlines()[:3] == [
        "ASK: force push: rewrites the remote branch's history",
        "  rule vcs.push-force [dangerous]: force push: rewrites the remote branch's history",
        "    git push --force origin main",
    ]


def test_options_before_the_command_still_work(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    policy = tmp_path / "p.yaml"
    policy.write_text("version: 1\nrules:\n  - {id: no-ls, verdict: deny, match: {tool: Bash}}\n")
    assert main(["check", "--policy", str(policy), "--cwd", "/srv", "ls", "-la"]) == (
        exitcodes.DENY
    )
    assert "policy" in capsys.readouterr().out.lower()
    args = '{"file_path": "/srv/a"}'
    assert main(["check", "--tool", "Read", "--args", args, "--cwd", "/srv"]) == exitcodes.ALLOW
    capsys.readouterr()


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (
            YAML_ERROR,
            3,
            "error: invalid yaml: did not find expected node content\n"
            "  help: fix the yaml syntax on or just before this line",
        ),
        (
            VALIDATION_ERROR,
            2,
            "error: `default` must be `allow`, `ask` or `deny`, not `alow`\n"
            "  help: did you mean `allow`?",
        ),
    ],
)
@pytest.mark.parametrize("where", ["home", "environ", "option"])
@pytest.mark.parametrize(
    "argv",
    [["ls"], ["rm", "-rf", "/"], ["--json", "ls"], ["--record", "ls"], ["--batch"]],
)
def test_a_broken_policy_stops_every_path(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    home: Path,
    tmp_path: Path,
    text: str,
    line: int,
    message: str,
    where: str,
    argv: list[str],
) -> None:
    policy = home / "policy.yaml" if where == "home" else tmp_path / "broken.yaml"
    policy.write_text(text)
    if where == "environ":
        monkeypatch.setenv("REDLINE_POLICY", str(policy))
    given = ["--policy", str(policy)] if where == "option" else []
    monkeypatch.setattr("sys.stdin", io.StringIO('{"command": "ls"}\n'))
    assert main(["check", *given, *argv]) == exitcodes.POLICY_FAILED
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"error: the gate cannot start\n{policy}:{line}: {message}\n"
    assert not (home / "log.sqlite3").exists()  # nothing was judged, so nothing recorded


def test_a_configured_policy_judges_command_lines(
    capsys: pytest.CaptureFixture[str], home: Path
) -> None:
    (home / "policy.yaml").write_text(
        "version: 1\nrules:\n  - {id: no-bash, verdict: deny, match: {tool: Bash}}\n"
    )
    assert main(["check", "--json", "ls"]) == exitcodes.DENY
    assert json.loads(capsys.readouterr().out)["code"] == "policy-deny"
