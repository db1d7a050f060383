"""Claude Code (the pinned npm release) with redline's hook installed by
`redline install claude-code`, driven by a stand-in of the Anthropic API."""

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

HOST = "claude-code"
RUNS = 5
PERMISSIVE = "--dangerously-skip-permissions"


def claude(sandbox: Sandbox, tool: str, args: dict[str, object], *flags: str) -> Run:
    binary = client("claude")
    with Standin("anthropic", tool, args) as model:
        env = {
            "ANTHROPIC_BASE_URL": model.url,
            "ANTHROPIC_API_KEY": "sk-standin",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "IS_SANDBOX": "1",  # as root, --dangerously-skip-permissions needs it
        }
        return run_client([binary, "-p", "run the tool", *flags], sandbox, model, env)


def bash(command: str) -> dict[str, object]:
    return {"command": command, "description": "stand-in"}


@pytest.fixture(autouse=True)
def _installed() -> None:
    client("claude")  # skips (fails under CI=true) before any set-up when it is missing


@pytest.fixture
def wired(sandbox: Sandbox) -> Sandbox:
    # Claude Code's own rules let the allowed command run without a prompt.
    sandbox.write_json(".claude/settings.json", {"permissions": {"allow": [f"Bash({ALLOWED})"]}})
    sandbox.install(HOST)
    return sandbox


@pytest.mark.parametrize("flags", [(), (PERMISSIVE,)], ids=["default", "skip-permissions"])
def test_an_allowed_command_runs(wired: Sandbox, flags: tuple[str, ...]) -> None:
    run = claude(wired, "Bash", bash(ALLOWED), *flags)
    assert wired.canaries() == ["CANARY_OK"], run
    assert wired.logged() == [("Bash", "allow", "")]


@pytest.mark.parametrize("flags", [(), (PERMISSIVE,)], ids=["default", "skip-permissions"])
def test_a_hard_line_does_not_run(wired: Sandbox, flags: tuple[str, ...]) -> None:
    run = claude(wired, "Bash", bash(HARD_LINE), *flags)
    assert wired.canaries() == [], run
    assert "redline refused this call (`disk.mkfs-device`)" in run.told, run
    assert wired.logged() == [("Bash", "deny", "disk.mkfs-device")]


def test_an_edit_of_its_own_hook_settings_is_refused(wired: Sandbox) -> None:
    settings = wired.home / ".claude" / "settings.json"
    before = settings.read_text()
    run = claude(wired, "Write", {"file_path": str(settings), "content": "{}"}, PERMISSIVE)
    assert settings.read_text() == before, run
    assert "redline refused this call (`never-run.gate-config`)" in run.told, run


@pytest.mark.parametrize("flags", [(), (PERMISSIVE,)], ids=["default", "skip-permissions"])
def test_a_headless_ask_is_refused_promptly_with_the_text_for_the_model(
    wired: Sandbox, flags: tuple[str, ...]
) -> None:
    run = claude(wired, "Bash", bash(ASKED), *flags)
    assert wired.canaries() == [], run
    assert (
        "redline: this call needs the owner's approval (`vcs.push-force`) and Claude Code "
        "cannot ask the owner here: "
    ) in run.told, run
    assert NO_RETRY in run.told
    assert run.seconds < 30, run
    assert wired.logged() == [("Bash", "deny", "vcs.push-force")]


def test_a_failing_hook_blocks(sandbox: Sandbox) -> None:
    sandbox.install(HOST, policy=BROKEN_POLICY)
    run = claude(sandbox, "Bash", bash(ALLOWED), PERMISSIVE)
    assert sandbox.canaries() == [], run
    assert "the approval policy cannot be loaded" in run.told, run


@pytest.mark.cost
def test_the_hook_cost_per_tool_call(make_sandbox: Callable[[str], Sandbox]) -> None:
    bare, hooked = make_sandbox("bare"), make_sandbox("hooked")
    hooked.install(HOST)
    for i in range(RUNS):
        for box, with_hook in ((bare, False), (hooked, True)):
            run = claude(box, "Bash", bash(f"touch CANARY_{i}"), PERMISSIVE)
            assert f"CANARY_{i}" in box.canaries(), run
            record_timing(HOST, with_hook, run)
