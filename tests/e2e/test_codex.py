"""Codex CLI (the pinned npm release) with redline's hook installed by
`redline install codex`, driven by a stand-in of the Responses API.

Codex runs only hooks it trusts: these runs pass only because `install`
recorded the trust that Codex computes, and `redline doctor` asks Codex
itself whether it does."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable

import pytest

from redline.hooks.messages import NO_RETRY

from .conftest import (
    ALLOWED,
    ASKED,
    BROKEN_POLICY,
    HARD_LINE,
    Run,
    Sandbox,
    client,
    record_timing,
    run_client,
)
from .standin import Standin

HOST = "codex"
RUNS = 5
DEFAULT = ("-s", "workspace-write")  # exec's own default sandbox (read-only) stops any write
PERMISSIVE = ("--dangerously-bypass-approvals-and-sandbox",)
PROVIDER = """model = "standin"
model_provider = "standin"

[model_providers.standin]
name = "standin"
base_url = "{url}/v1"
env_key = "STANDIN_KEY"
wire_api = "responses"
"""


def codex(sandbox: Sandbox, command: str, flags: tuple[str, ...]) -> Run:
    binary = client("codex")
    config = sandbox.home / ".codex" / "config.toml"
    with Standin("responses", "exec_command", {"cmd": command}) as model:
        provider = PROVIDER.format(url=model.url)
        text = config.read_text() if config.exists() else ""
        start = text.find("# redline:")  # what `install` recorded stays as it was
        config.write_text(provider + ("\n" + text[start:] if start >= 0 else ""))
        argv = [binary, "exec", "--skip-git-repo-check", *flags, "run the tool"]
        return run_client(argv, sandbox, model, {"STANDIN_KEY": "standin"})


@pytest.fixture(autouse=True)
def _installed() -> None:
    client("codex")  # skips (fails under CI=true) before any set-up when it is missing


@pytest.fixture
def wired(sandbox: Sandbox) -> Sandbox:
    (sandbox.home / ".codex").mkdir()
    sandbox.install(HOST)
    return sandbox


@pytest.mark.parametrize("flags", [DEFAULT, PERMISSIVE], ids=["workspace-write", "bypass"])
def test_an_allowed_command_runs(wired: Sandbox, flags: tuple[str, ...]) -> None:
    run = codex(wired, ALLOWED, flags)
    assert wired.canaries() == ["CANARY_OK"], run
    assert wired.logged() == [("Bash", "allow", "")]  # exec_command reaches hooks as Bash


@pytest.mark.parametrize("flags", [DEFAULT, PERMISSIVE], ids=["workspace-write", "bypass"])
def test_a_hard_line_does_not_run(wired: Sandbox, flags: tuple[str, ...]) -> None:
    run = codex(wired, HARD_LINE, flags)
    assert wired.canaries() == [], run
    assert "redline refused this call (`disk.mkfs-device`)" in run.told, run


def test_an_edit_of_its_own_hooks_is_refused(wired: Sandbox) -> None:
    hooks = wired.home / ".codex" / "hooks.json"
    before = hooks.read_text()
    run = codex(wired, f"echo '{{}}' > {hooks}", PERMISSIVE)
    assert hooks.read_text() == before, run
    assert "redline refused this call (`never-run.gate-config`)" in run.told, run


def test_an_ask_is_refused_promptly_with_the_text_for_the_model(wired: Sandbox) -> None:
    run = codex(wired, ASKED, PERMISSIVE)
    assert wired.canaries() == [], run
    assert (
        "redline: this call needs the owner's approval (`vcs.push-force`) and Codex "
        "cannot ask the owner here: "
    ) in run.told, run
    assert NO_RETRY in run.told
    assert run.seconds < 30, run


def test_a_failing_hook_blocks(sandbox: Sandbox) -> None:
    (sandbox.home / ".codex").mkdir()
    sandbox.install(HOST, policy=BROKEN_POLICY)
    run = codex(sandbox, ALLOWED, PERMISSIVE)
    assert sandbox.canaries() == [], run
    assert "the approval policy cannot be loaded" in run.told, run


def doctor(sandbox: Sandbox) -> str:
    env = {
        **sandbox.env,
        "PATH": os.path.dirname(client("codex")) + os.pathsep + sandbox.env["PATH"],
    }
    done = subprocess.run(
        [sys.executable, "-m", "redline", "doctor"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return "\n".join(line for line in done.stdout.splitlines() if " codex " in line)


def test_doctor_asks_codex_whether_it_trusts_the_hook(wired: Sandbox) -> None:
    assert "ok   codex" in doctor(wired) and "Codex trusts redline's hook (asked `" in doctor(wired)
    config = wired.home / ".codex" / "config.toml"
    config.write_text(
        config.read_text().replace('trusted_hash = "sha256:', 'trusted_hash = "sha256:0')
    )
    report = doctor(wired)
    assert "FAIL codex" in report and "as modified and will skip it" in report, report
    config.write_text("")
    report = doctor(wired)
    assert "FAIL codex" in report and "as untrusted and will skip it" in report, report


@pytest.mark.cost
def test_the_hook_cost_per_tool_call(make_sandbox: Callable[[str], Sandbox]) -> None:
    bare, hooked = make_sandbox("bare"), make_sandbox("hooked")
    for box in (bare, hooked):
        (box.home / ".codex").mkdir()
    hooked.install(HOST)
    for i in range(RUNS):
        for box, with_hook in ((bare, False), (hooked, True)):
            run = codex(box, f"touch CANARY_{i}", PERMISSIVE)
            assert f"CANARY_{i}" in box.canaries(), run
            record_timing(HOST, with_hook, run)
