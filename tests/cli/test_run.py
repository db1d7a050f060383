"""`redline run`: the judge comes first (a deny or an unanswered ask runs
nothing), the policy's `enforce` and `env.pass` hold, and each run's
enforcement level is in the log."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from redline.cli import exitcodes
from redline.cli.main import main
from redline.cli.run import REFUSED
from redline.decision import Verdict
from redline.sandbox import run as sandbox_run
from redline.sandbox import spawn
from redline.sandbox.level import NONE, Level, probe

BEST = probe().name


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "redline"
    monkeypatch.setenv("REDLINE_HOME", str(home))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for name in ("REDLINE_POLICY", "REDLINE_STORE", "HERMES_HOME"):
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    return path


@pytest.fixture
def policy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], None]:
    """The owner's policy: the shipped one plus `text`."""

    def write(text: str) -> None:
        path = tmp_path / "policy.yaml"
        default = Path(__file__).parents[2] / "src/redline/policy/default.yaml"
        path.write_text(default.read_text() + text)
        monkeypatch.setenv("REDLINE_POLICY", str(path))

    return write


def logged(capsys: pytest.CaptureFixture[str]) -> list[tuple[object, ...]]:
    capsys.readouterr()
    assert main(["log", "show", "--json"]) == exitcodes.ALLOW
    entries = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    return [(e["agent"], e["tool"], e["args"], e["verdict"], e["code"]) for e in entries]


def test_an_allowed_command_runs_and_its_level_is_logged(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--cwd", str(ws), "--", "sh", "-c", "echo hi > out"]) == 0
    assert (ws / "out").read_text() == "hi\n"
    assert logged(capsys) == [
        ("run", "Bash", {"command": "sh -c 'echo hi > out'", "enforcement": BEST, "cwd": str(ws)},
         "allow", None),
    ]  # fmt: skip


def test_the_command_exit_status_is_redlines(ws: Path) -> None:
    assert main(["run", "--cwd", str(ws), "--shell", "exit 42"]) == 42


def test_a_deny_is_not_run(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--cwd", str(ws), "--shell", "touch ran; rm -rf /"]) == REFUSED
    assert not (ws / "ran").exists()
    err = capsys.readouterr().err
    assert err.splitlines()[:2] == [
        "redline: not run",
        "DENY (hard line): recursive delete of the root filesystem",
    ]


def test_an_ask_without_the_service_is_refused_with_the_reason(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["run", "--cwd", str(ws), "--shell", "touch ran; git push --force origin main"])
    assert code == REFUSED
    assert not (ws / "ran").exists()
    err = capsys.readouterr().err
    assert "DENY [ask-needs-service]: this command needs the owner's approval" in err
    assert "repair: run it with `redline run --service`" in err
    assert logged(capsys)[0][3:] == ("deny", "ask-needs-service")


def test_enforce_required_without_a_sandbox_refuses_with_the_repair(
    ws: Path,
    policy: Callable[[str], None],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    policy("enforce: required\n")

    def no_kernel(force: str | None = None) -> Level:
        return Level(NONE, "no kernel here")

    monkeypatch.setattr(sandbox_run, "probe", no_kernel)
    monkeypatch.setattr(spawn, "probe", no_kernel)  # a run finds the level before judging
    assert main(["run", "--cwd", str(ws), "--", "touch", "ran"]) == REFUSED
    assert not (ws / "ran").exists()
    err = capsys.readouterr().err
    assert (
        "DENY [sandbox-unavailable]: the policy requires a kernel sandbox and none is "
        "available: no kernel here" in err
    )
    assert "repair: install redline with pip on Linux" in err


def test_enforce_required_with_a_sandbox_runs(ws: Path, policy: Callable[[str], None]) -> None:
    policy("enforce: required\n")
    assert main(["run", "--cwd", str(ws), "--", "touch", "ran"]) == 0
    assert (ws / "ran").exists()


def test_enforce_off_runs_without_a_sandbox_and_the_log_says_so(
    ws: Path, policy: Callable[[str], None], capsys: pytest.CaptureFixture[str]
) -> None:
    policy("enforce: off\n")
    assert main(["run", "--cwd", str(ws), "--", "touch", "ran"]) == 0
    assert logged(capsys)[0][2] == {"command": "touch ran", "enforcement": "none", "cwd": str(ws)}


def test_the_passthrough_list_passes_names_but_never_a_platform_key(
    ws: Path,
    policy: Callable[[str], None],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("DEPLOY_TOKEN", "canary-deploy")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-canary-0123456789abcdef")
    policy("env: {pass: [DEPLOY_TOKEN, OPENAI_API_KEY]}\n")
    script = "echo ${DEPLOY_TOKEN:-absent} ${OPENAI_API_KEY:-absent} > out"
    assert main(["run", "--cwd", str(ws), "--shell", script]) == 0
    assert (ws / "out").read_text() == "canary-deploy absent\n"
    assert logged(capsys)[0][2] == {
        "command": script, "enforcement": BEST, "env_passed": ["DEPLOY_TOKEN"], "cwd": str(ws),
    }  # fmt: skip


def test_explain_prints_the_level_and_runs_nothing(
    ws: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_canary")
    assert main(["run", "--explain", "--cwd", str(ws), "--", "touch", "ran"]) == 0
    assert not (ws / "ran").exists()
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "ALLOW: no rule matched"
    assert out[2] == f"enforcement: {probe().line()}"
    assert out[3] == f"  workspace: {ws}"
    removed = next(line for line in out if line.startswith("  environment removed: "))
    assert {"GITHUB_TOKEN", "REDLINE_HOME"} <= set(removed.split(": ")[1].split(", "))


def test_a_command_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run"]) == exitcodes.USAGE
    assert "give a command after `--`" in capsys.readouterr().err


def test_doctor_prints_the_sandbox_level(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["doctor", "--home", str(tmp_path)])
    last = capsys.readouterr().out.splitlines()[-1]
    assert last == f"sandbox for `redline run`: {probe().line()}"


def test_no_network_cuts_the_network_and_is_refused_without_namespaces(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = "awk -F: 'NR > 2 {gsub(/ /, \"\", $1); print $1}' /proc/net/dev > nets"
    assert main(["run", "--no-network", "--cwd", str(ws), "--shell", script]) == 0
    assert (ws / "nets").read_text() == "lo\n"
    argv = ["run", "--no-network", "--sandbox", "landlock", "--cwd", str(ws), "--", "true"]
    assert main(argv) == REFUSED
    assert "DENY [network-off-unavailable]" in capsys.readouterr().err


def test_with_the_service_unreachable_an_ask_is_refused_and_an_allow_still_logged(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    asked = ["run", "--service", "--cwd", str(ws), "--shell", "touch ran; git push -f origin main"]
    assert main(asked) == REFUSED
    assert not (ws / "ran").exists()
    assert "redline: not run\nDENY" in capsys.readouterr().err
    assert main(["run", "--service", "--cwd", str(ws), "--", "true"]) == 0
    assert logged(capsys) == [
        ("run", "Bash", {"command": "true", "enforcement": BEST, "cwd": str(ws)}, "allow", None),
    ]


def test_the_command_line_cannot_loosen_the_owners_settings(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for loosen in (["--policy", "/tmp/mine.yaml"], ["--sandbox", "none"]):
        with pytest.raises(SystemExit) as exit_:
            main(["run", *loosen, "--cwd", str(ws), "--", "touch", "ran"])
        assert exit_.value.code == exitcodes.USAGE
    assert not (ws / "ran").exists()


def test_a_ticket_from_the_hook_runs_its_command_once_without_judging_it_again(
    ws: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from redline.sandbox.tickets import issue

    script = "touch ran; git push --force origin main 2>/dev/null; true"
    nonce = issue(str(home), script)
    assert main(["run", "--ticket", nonce, "--cwd", str(ws), "--shell", script]) == 0
    assert (ws / "ran").exists()
    (ws / "ran").unlink()
    assert main(["run", "--ticket", nonce, "--cwd", str(ws), "--shell", script]) == REFUSED
    assert not (ws / "ran").exists()
    assert [entry[3:] for entry in logged(capsys)] == [
        ("allow", None),
        ("deny", "ask-needs-service"),
    ]


def test_a_profile_adds_writable_places_and_variables_and_sets_the_network(
    ws: Path,
    tmp_path: Path,
    policy: Callable[[str], None],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--profile NAME` applies `sandbox.profiles.NAME` over the policy's own
    settings; an unknown name is a usage error, nothing runs."""
    extra = tmp_path / "home" / "extra"
    extra.mkdir(parents=True)
    monkeypatch.setenv("BUILD_TOKEN", "canary-build")
    policy(
        "sandbox:\n"
        "  profiles:\n"
        f"    build: {{writable: ['{extra}'], env: {{pass: [BUILD_TOKEN]}}, network: false}}\n"
    )
    script = "echo ${BUILD_TOKEN:-absent} > out"
    assert main(["run", "--cwd", str(ws), "--shell", script]) == 0
    assert (ws / "out").read_text() == "absent\n"
    if BEST == "namespaces":  # a run without network needs the namespaces
        assert main(["run", "--cwd", str(ws), "--profile", "build", "--shell", script]) == 0
        assert (ws / "out").read_text() == "canary-build\n"
    capsys.readouterr()
    assert main(["run", "--explain", "--profile", "build", "--cwd", str(ws), "--", "true"]) == 0
    out = capsys.readouterr().out
    assert f"  writable: {ws}" in out and str(extra) in out and "  network: off" in out
    assert main(["run", "--profile", "nope", "--cwd", str(ws), "--", "true"]) == exitcodes.USAGE
    assert "the policy has no sandbox profile `nope` (it has: build)" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["--", "true"],
        ["--cwd", "/srv", "--shell", "make test"],
        ["--shell=ls -la", "--no-network", "--service", "--explain"],
        ["--sandbox", "landlock", "--max-procs", "24", "--", "ls", "-la"],
        ["--max-procs=7", "--ticket", "ab" * 16, "--context", "cron", "--session", "s", "ls"],
        ["--profile", "gradle", "ls", "--cwd", "x"],
        ["ls", "--", "-la"],
    ],
)
def test_the_fast_reading_of_the_command_line_is_argparses(argv: list[str]) -> None:
    import argparse

    from redline.cli.main import build_parser
    from redline.cli.run import fast_args

    parsed = build_parser(only="run").parse_args(["run", *argv])
    expected = {k: v for k, v in vars(parsed).items() if k not in ("handler", "command")}
    fast = fast_args(argv)
    assert fast is not None
    assert {k: v for k, v in vars(fast).items() if k != "command"} == expected
    assert fast.command == parsed.command
    assert isinstance(parsed, argparse.Namespace)


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["--no-net", "--", "true"],  # an abbreviation: argparse's to read
        ["--max-procs", "x", "--", "true"],
        ["--sandbox", "none", "--", "true"],
        ["--cwd"],
        ["--cwd", "--shell", "x"],
        ["--policy", "p.yaml", "--", "true"],
    ],
)
def test_anything_else_is_left_to_argparse(argv: list[str]) -> None:
    from redline.cli.run import fast_args

    assert fast_args(argv) is None


@pytest.mark.parametrize("first", ["X=/t/p", "-S", "--split-string=echo hi"])
def test_a_program_name_the_shell_would_read_otherwise_is_refused(
    ws: Path, first: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Judged as text, `X=/t/p echo hi` is an assignment and `-S '...'` an
    option; run as an argv they are a program (or `env`'s option): the judge
    would approve another command than the one that runs."""
    (ws / "ran").unlink(missing_ok=True)
    code = main(["run", "--cwd", str(ws), "--", first, "echo", "hi"])
    assert code == exitcodes.ERROR or code == 2
    assert "starts with `-` or holds `=`" in capsys.readouterr().err
    with pytest.raises(ValueError, match="starts with"):
        sandbox_run.prepare([first, "echo", "hi"], cwd=str(ws))


def test_a_policy_of_the_callers_own_is_not_left_to_the_service(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The service judges by its policy: a run given another (`REDLINE_POLICY`)
    is judged here, by that one."""
    import argparse

    from redline.cli import run as cli_run

    def served(*args: object, **kwargs: object) -> object:
        raise AssertionError("the service was asked")

    monkeypatch.setattr("redline.sandbox.served.prepare_served", served)
    monkeypatch.setenv("REDLINE_POLICY", "/srv/strict.yaml")
    args = argparse.Namespace(explain=False, ticket=None)
    assert cli_run._served(args, ["true"], probe(), None) is None


@pytest.mark.skipif(BEST != "namespaces", reason="needs the namespace sandbox")
def test_the_sandbox_is_built_while_the_command_is_judged(ws: Path) -> None:
    """bwrap sets the sandbox up while the judge works (`sandbox.spawn`'s
    first go); only an allow releases the command (the second)."""
    from redline.sandbox.pids import make_bound
    from redline.sandbox.programs import shell_argv

    level = probe()
    allowed = ["sh", "-c", "echo hi > out"]
    started = spawn.start(allowed, level, make_bound(64))
    prepared = sandbox_run.prepare(allowed, cwd=str(ws), level=level, started=started)
    assert started.built is not None
    assert sandbox_run.execute(prepared, max_procs=64, started=started) == 0
    assert (ws / "out").read_text() == "hi\n"
    denied = "touch ran; rm -rf /"
    started = spawn.start(shell_argv(denied), level, make_bound(64))
    prepared = sandbox_run.prepare(denied, cwd=str(ws), level=level, started=started)
    assert started.built is not None and prepared.decision.verdict is Verdict.DENY
    started.cancel()  # what `redline run` does with a refusal
    assert not (ws / "ran").exists()
