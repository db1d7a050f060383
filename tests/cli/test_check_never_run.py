"""`redline check CMD` (a command line, no policy loaded) judges the never-run
kinds as the hooks do: the agent's own ways to answer or stop the gate."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from redline.cli import exitcodes
from redline.cli.main import main


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("REDLINE_HOME", str(tmp_path / "redline"))
    monkeypatch.setenv("HOME", "/home/me")
    monkeypatch.delenv("REDLINE_POLICY", raising=False)
    return tmp_path


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("redline approve abc", "never-run.self-approval"),
        ("python -m redline approve x", "never-run.self-approval"),
        ("curl -X POST http://127.0.0.1:8787/api/held/1/approve", "never-run.self-approval"),
        ("exec 3<>/dev/tcp/localhost/8787", "never-run.self-approval"),
        ("fuser -k 8787/tcp", "never-run.gate-process"),
        ("gdb -p 1234", "never-run.gate-process"),
        ("systemctl --user stop redline", "never-run.gate-process"),
        ("echo '{}' > ~/.claude/settings.json", "never-run.gate-config"),
    ],
)
def test_a_command_line_is_judged_for_the_never_run_kinds(
    capsys: pytest.CaptureFixture[str], command: str, rule: str
) -> None:
    code = main(["check", "--json", command])
    out = json.loads(capsys.readouterr().out)
    assert (code, out["verdict"], out["code"], out["rules"]) == (
        exitcodes.DENY,
        "deny",
        "never-run",
        [rule],
    )


@pytest.mark.parametrize(
    "command", ["redline check 'redline approve abc'", "ls", "curl http://127.0.0.1:3000/"]
)
def test_look_alikes_stay_allowed(capsys: pytest.CaptureFixture[str], command: str) -> None:
    assert main(["check", command]) == exitcodes.ALLOW
    capsys.readouterr()


def test_a_batch_line_is_judged_the_same(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [{"command": "redline pending"}, {"command": "redline log show"}]
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(json.dumps(x) + "\n" for x in lines)))
    main(["check", "--batch"])
    verdicts = [json.loads(x)["verdict"] for x in capsys.readouterr().out.splitlines()]
    assert verdicts == ["deny", "allow"]


@pytest.mark.parametrize(
    ("command", "hook", "rules_only"),
    [
        # One verdict everywhere (issue 13, family 12): what the hook would say.
        ("cat ~/.ssh/id_rsa", "deny", "ask"),  # the catalogue alone: secret.file-shown
        ("rm -rf /", "deny", "deny"),
        ("git push --force origin main", "ask", "ask"),
        ("ls -la", "allow", "allow"),
    ],
)
def test_check_gives_the_hooks_verdict_and_rules_only_the_bare_one(
    capsys: pytest.CaptureFixture[str], command: str, hook: str, rules_only: str
) -> None:
    from redline.cli.check import judge_tool_line
    from redline.gatekeeper import Gate

    main(["check", "--json", "--cwd", "/srv", command])
    given = json.loads(capsys.readouterr().out)["verdict"]
    gate = Gate.from_environ()
    expected = judge_tool_line({"tool": "Bash", "args": {"command": command}, "cwd": "/srv"}, gate)
    main(["check", "--json", "--rules-only", command])
    bare = json.loads(capsys.readouterr().out)["verdict"]
    assert (given, str(expected.verdict), bare) == (hook, hook, rules_only)
