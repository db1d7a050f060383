"""Gemini CLI (the pinned npm release) with redline's hook installed by
`redline install gemini`, driven by a stand-in of the Gemini API.

The headless set-up that works: an API key with `security.auth.selectedType:
"gemini-api-key"`, `GOOGLE_GEMINI_BASE_URL` for the endpoint, and the
project in `trustedFolders.json`. In a headless run Gemini CLI offers its
shell tool only when the tool is allowed (`tools.allowed`) or with `--yolo`."""

from __future__ import annotations

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

HOST = "gemini"
RUNS = 5
DEFAULT: tuple[str, ...] = ()  # with the shell tool allowed in settings.json
PERMISSIVE = ("--yolo",)
SHELL = "run_shell_command"


def gemini(sandbox: Sandbox, tool: str, args: dict[str, object], flags: tuple[str, ...]) -> Run:
    binary = client("gemini")
    with Standin("gemini", tool, args) as model:
        env = {"GOOGLE_GEMINI_BASE_URL": model.url, "GEMINI_API_KEY": "standin"}
        return run_client([binary, "-p", "run the tool", *flags], sandbox, model, env)


def prepare(sandbox: Sandbox) -> Sandbox:
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "tools": {"allowed": [SHELL]},
    }
    sandbox.write_json(".gemini/settings.json", settings)
    sandbox.write_json(".gemini/trustedFolders.json", {str(sandbox.project): "TRUST_FOLDER"})
    return sandbox


@pytest.fixture(autouse=True)
def _installed() -> None:
    client("gemini")  # skips (fails under CI=true) before any set-up when it is missing


@pytest.fixture
def wired(sandbox: Sandbox) -> Sandbox:
    prepare(sandbox)
    sandbox.install(HOST)
    return sandbox


@pytest.mark.parametrize("flags", [DEFAULT, PERMISSIVE], ids=["default", "yolo"])
def test_an_allowed_command_runs(wired: Sandbox, flags: tuple[str, ...]) -> None:
    run = gemini(wired, SHELL, {"command": ALLOWED}, flags)
    assert wired.canaries() == ["CANARY_OK"], run
    assert wired.logged() == [(SHELL, "allow", "")]


@pytest.mark.parametrize("flags", [DEFAULT, PERMISSIVE], ids=["default", "yolo"])
def test_a_hard_line_does_not_run(wired: Sandbox, flags: tuple[str, ...]) -> None:
    run = gemini(wired, SHELL, {"command": HARD_LINE}, flags)
    assert wired.canaries() == [], run
    assert "redline refused this call (`disk.mkfs-device`)" in run.told, run


def test_an_edit_of_its_own_settings_is_refused(wired: Sandbox) -> None:
    # Gemini CLI's write_file refuses a path outside the project by itself; the shell does not.
    settings = wired.home / ".gemini" / "settings.json"
    before = settings.read_text()
    run = gemini(wired, SHELL, {"command": f"echo '{{}}' > {settings}"}, PERMISSIVE)
    assert settings.read_text() == before, run
    assert "redline refused this call (`never-run.gate-config`)" in run.told, run


@pytest.mark.parametrize("flags", [DEFAULT, PERMISSIVE], ids=["default", "yolo"])
def test_a_headless_ask_is_refused_promptly_with_the_text_for_the_model(
    wired: Sandbox, flags: tuple[str, ...]
) -> None:
    run = gemini(wired, SHELL, {"command": ASKED}, flags)
    assert wired.canaries() == [], run
    assert (
        "redline: this call needs the owner's approval (`vcs.push-force`) and Gemini CLI "
        "cannot ask the owner here: "
    ) in run.told, run
    assert NO_RETRY in run.told
    assert run.seconds < 45, run


def test_a_failing_hook_blocks(sandbox: Sandbox) -> None:
    prepare(sandbox)
    sandbox.install(HOST, policy=BROKEN_POLICY)
    run = gemini(sandbox, SHELL, {"command": ALLOWED}, PERMISSIVE)
    assert sandbox.canaries() == [], run
    assert "the approval policy cannot be loaded" in run.told, run


@pytest.mark.cost
def test_the_hook_cost_per_tool_call(make_sandbox: Callable[[str], Sandbox]) -> None:
    bare, hooked = prepare(make_sandbox("bare")), prepare(make_sandbox("hooked"))
    hooked.install(HOST)
    for i in range(RUNS):
        for box, with_hook in ((bare, False), (hooked, True)):
            run = gemini(box, SHELL, {"command": f"touch CANARY_{i}"}, PERMISSIVE)
            assert f"CANARY_{i}" in box.canaries(), run
            record_timing(HOST, with_hook, run)
