"""`redline check --tool`, tool lines in `--batch`, `--policy`; `redline policy`."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from redline.cli import exitcodes
from redline.cli.main import main

DENY_SENDS = "version: 1\nrules:\n  - {id: no-sends, verdict: deny, match: {tool: send_message}}\n"


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A gate home of its own, and no configured policy: the shipped one is used."""
    monkeypatch.setenv("REDLINE_HOME", str(tmp_path / "redline"))
    monkeypatch.setenv("HOME", "/home/me")
    monkeypatch.delenv("REDLINE_POLICY", raising=False)
    monkeypatch.delenv("HERMES_HOME", raising=False)
    return tmp_path


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object]]:
    code = main(["check", "--json", *argv])
    return code, json.loads(capsys.readouterr().out)


def test_tool_call_verdicts_and_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run_json(
        capsys, "--tool", "Read", "--args", '{"file_path": "/srv/a"}', "--cwd", "/srv"
    )
    assert (code, out["verdict"]) == (exitcodes.ALLOW, "allow")
    code, out = run_json(
        capsys,
        "--tool",
        "terminal",
        "--args",
        '{"command": "git push --force origin main", "workdir": "/srv"}',
    )
    assert (code, out["verdict"], out["rules"], out["context"]) == (
        exitcodes.ASK,
        "ask",
        ["vcs.push-force"],
        "interactive",
    )
    code, out = run_json(capsys, "--tool", "execute_code", "--args", '{"code": "1"}')
    assert (code, out["code"], out["repair"]) == (
        exitcodes.DENY,
        "execute-code-unbound",
        "run the same work through `terminal` with an absolute `workdir`",
    )


def test_context_and_session_options(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run_json(
        capsys,
        "--tool",
        "terminal",
        "--context",
        "cron",
        "--session",
        "j1",
        "--args",
        '{"command": "git push -f origin main", "workdir": "/srv"}',
    )
    assert (code, out["code"], out["context"]) == (exitcodes.DENY, "no-approver", "cron")


def test_human_output_names_code_and_repair(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "check",
            "--tool",
            "write_file",
            "--args",
            '{"path": "/home/me/.hermes/config.yaml", "content": "x"}',
        ]
    )
    assert code == exitcodes.DENY
    assert capsys.readouterr().out.splitlines() == [
        "DENY (hard line) [never-run]: never runs: changing the gate itself (its config, hooks, "
        "policy or allowlists): `~/.hermes/config.yaml` is the Hermes config",
        "  rule never-run.gate-config [hardline]: never runs: changing the gate itself (its "
        "config, hooks, policy or allowlists): `~/.hermes/config.yaml` is the Hermes config",
        "  repair: leave the gate's config, hooks and allowlists to the owner; ask them to make "
        "the change",
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tool", "Read", "--args", "{nope"], "error: `--args` is not JSON"),
        (["--tool", "Read", "--args", "[1]"], "error: `--args` must be a JSON object"),
    ],
)
def test_bad_args_are_a_usage_error(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert main(["check", *args]) == exitcodes.USAGE
    assert capsys.readouterr().err.startswith(message)


def test_policy_option(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    policy = tmp_path / "p.yaml"
    policy.write_text(DENY_SENDS)
    code, out = run_json(
        capsys,
        "--policy",
        str(policy),
        "--tool",
        "send_message",
        "--args",
        '{"target": "t", "message": "m"}',
    )
    assert (code, out["code"]) == (exitcodes.DENY, "policy-deny")
    code, out = run_json(capsys, "--policy", str(policy), "--cwd", "/srv", "ls -la")
    assert (code, out["verdict"]) == (exitcodes.ALLOW, "allow")


def test_a_broken_policy_stops_check(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    policy = tmp_path / "p.yaml"
    policy.write_text("version: 1\ndefault: alow\n")
    assert main(["check", "--policy", str(policy), "--tool", "Read", "--args", "{}"]) == (
        exitcodes.POLICY_FAILED
    )
    assert capsys.readouterr().err.splitlines() == [
        "error: the gate cannot start",
        f"{policy}:2: error: `default` must be `allow`, `ask` or `deny`, not `alow`",
        "  help: did you mean `allow`?",
    ]


def test_batch_takes_tool_lines_and_command_lines(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [
        {"tool": "Read", "args": {"file_path": "/home/me/.ssh/id_rsa"}, "cwd": "/srv"},
        {"command": "git push --force origin main"},
        {"tool": "terminal", "args": {"command": "ls"}, "session": "s1", "context": "gateway"},
        {"tool": "Read", "args": [1]},
        {"tool": "Read", "args": {}, "context": "cronn"},
    ]
    stdin = io.StringIO("".join(json.dumps(line) + "\n" for line in lines))
    monkeypatch.setattr("sys.stdin", stdin)
    assert main(["check", "--batch"]) == exitcodes.ALLOW
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(o["verdict"], o.get("code"), o.get("error")) for o in out] == [
        ("deny", "never-run", None),
        ("ask", None, None),
        ("deny", "unsupported-execution-context", None),
        ("deny", None, 'line 4: "args" must be a JSON object'),
        ("deny", None, "line 5: unknown context `cronn`; did you mean `cron`?"),
    ]
    assert out[2]["context"] == "gateway"


def test_policy_lint_and_test(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["policy", "lint"]) == exitcodes.ALLOW
    assert capsys.readouterr().out.strip().endswith("ok (2 rules, 13 examples)")
    assert main(["policy", "test"]) == exitcodes.ALLOW
    assert capsys.readouterr().out.strip().endswith("13 examples, 0 failed")
    bad = tmp_path / "bad.yaml"
    bad.write_text("version: 1\nrules:\n  - {id: a, verdict: ask, match: {tool: Bsh}}\n")
    assert main(["policy", "lint", str(bad)]) == exitcodes.POLICY_FAILED
    assert capsys.readouterr().out.splitlines() == [
        f"{bad}:3: error: unknown tool `Bsh`",
        "  help: did you mean `Bash`?",
        f"{bad}: the policy cannot be loaded",
    ]


def test_policy_test_reports_failing_examples_as_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(
        "version: 1\nrules:\n  - id: no-sends\n    verdict: deny\n    match: {tool: send_message}\n"
        "    examples: [{tool: send_message, args: {}, expect: allow}]\n"
    )
    assert main(["policy", "test", "--json", str(path)]) == exitcodes.POLICY_FAILED
    out = json.loads(capsys.readouterr().out)
    assert (out["ok"], out["examples"]) == (
        False,
        [
            {
                "rule": "no-sends",
                "line": 6,
                "tool": "send_message",
                "expect": "allow",
                "got": "deny",
                "code": "policy-deny",
                "passed": False,
            },
        ],
    )
    assert out["issues"][0]["message"] == (
        "example for rule `no-sends` expects allow, but the policy gives deny (policy-deny)"
    )


def test_policy_without_an_action_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["policy"]) == exitcodes.USAGE
