"""`redline check --record`: every verdict is in the approval log, or it is a deny."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from redline.cli import exitcodes
from redline.cli.main import main

UNAVAILABLE_REPAIR = (
    "check that its directory exists and is writable and the disk is not full, "
    "or point `--store`/`REDLINE_STORE` at another log"
)


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A gate home of its own (the log is made there), the shipped policy."""
    home = tmp_path / "redline"
    monkeypatch.setenv("REDLINE_HOME", str(home))
    monkeypatch.setenv("HOME", "/home/me")
    for name in ("REDLINE_POLICY", "REDLINE_STORE", "HERMES_HOME"):
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def broken_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`$REDLINE_HOME` is a file: no log can be made under it."""
    path = tmp_path / "not-a-directory"
    path.write_text("x")
    monkeypatch.setenv("REDLINE_HOME", str(path))
    return path


def logged(capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    capsys.readouterr()
    assert main(["log", "show", "--json"]) == exitcodes.ALLOW
    lines = capsys.readouterr().out.splitlines()
    return [json.loads(line) for line in lines]


def summary(entry: dict[str, object]) -> tuple[object, ...]:
    keys = ("kind", "session", "context", "agent", "tool", "args", "verdict", "rules", "code")
    return tuple(entry[key] for key in keys)


def test_single_verdicts_are_recorded_and_the_log_verifies(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["check", "--record", "rm -rf /", "--cwd", "/srv"]) == exitcodes.DENY
    assert main(["check", "--record", "--json", "ls"]) == exitcodes.ALLOW
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["verdict"] == "allow"
    args = '{"command": "git push --force origin main", "workdir": "/srv"}'
    code = main(["check", "--record", "--tool", "terminal", "--args", args, "--session", "s1"])
    assert code == exitcodes.ASK
    assert [summary(entry) for entry in logged(capsys)] == [
        # A command line is judged as a hook's terminal call: in a context, in a directory.
        ("decision", None, "interactive", "cli", "command",
         {"command": "rm -rf /", "cwd": "/srv"}, "deny", ["fs.delete-root"], None),
        ("decision", None, "interactive", "cli", "command",
         {"command": "ls", "cwd": os.getcwd()}, "allow", [], None),
        ("decision", "s1", "interactive", "cli", "terminal",
         {"command": "git push --force origin main", "workdir": "/srv"}, "ask",
         ["vcs.push-force"], None),
    ]  # fmt: skip
    capsys.readouterr()
    assert main(["log", "verify"]) == exitcodes.ALLOW


def test_batch_lines_are_recorded_in_order(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [
        {"command": "ls -la", "cwd": "/srv"},
        {"tool": "Read", "args": {"file_path": "/srv/a"}, "cwd": "/srv", "session": "b"},
        "not an object",
    ]
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(json.dumps(x) + "\n" for x in lines)))
    assert main(["check", "--batch", "--record"]) == exitcodes.ALLOW
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["verdict"] for line in out] == ["allow", "allow", "deny"]
    assert [summary(entry) for entry in logged(capsys)] == [
        ("decision", None, "interactive", "cli", "command",
         {"command": "ls -la", "cwd": "/srv"}, "allow", [], None),
        ("decision", "b", "interactive", "cli", "Read", {"file_path": "/srv/a"}, "allow", [],
         None),
    ]  # fmt: skip
    assert main(["log", "verify"]) == exitcodes.ALLOW


def test_without_record_nothing_is_written(home: Path) -> None:
    assert main(["check", "ls"]) == exitcodes.ALLOW
    assert not home.exists()


def test_an_unwritable_log_turns_the_verdict_into_a_deny(
    broken_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", "--record", "--json", "ls"]) == exitcodes.DENY
    out = json.loads(capsys.readouterr().out)
    assert (out["verdict"], out["code"], out["repair"]) == (
        "deny",
        "log-unavailable",
        UNAVAILABLE_REPAIR,
    )
    assert str(out["reason"]).startswith(
        f"the approval log cannot be written: approval log `{broken_home}/log.sqlite3` "
        "cannot be used"
    )


def test_an_unwritable_log_is_named_with_its_repair_for_a_person(
    broken_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = '{"file_path": "/srv/a"}'
    assert main(["check", "--record", "--tool", "Read", "--args", args]) == exitcodes.DENY
    text = capsys.readouterr().out.splitlines()
    assert text[0].startswith("DENY [log-unavailable]: the approval log cannot be written: ")
    assert str(broken_home) in text[0]
    assert text[1:] == [f"  repair: {UNAVAILABLE_REPAIR}"]


def test_an_unwritable_log_denies_every_batch_line(
    broken_home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    batch = '{"command": "ls"}\n{"tool": "Read", "args": {"file_path": "/srv/a"}}\n'
    monkeypatch.setattr("sys.stdin", io.StringIO(batch))
    assert main(["check", "--batch", "--record"]) == exitcodes.ALLOW
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(line["verdict"], line["code"]) for line in out] == [
        ("deny", "log-unavailable"),
        ("deny", "log-unavailable"),
    ]
