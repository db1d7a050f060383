"""The gate in force on the real Hermes Agent (pinned, see `hermes_kit`),
driven one-shot (`hermes -z`) by a stand-in of its model API, with canary
files proving what ran: through the shell hook `redline install hermes`
writes, and through the plugin `redline install hermes --plugin` puts into
Hermes's own Python.

The hard line is spelled `m''kfs.ext4`, which Hermes's own hard-line list
(`\\bmkfs`) does not see: only redline stands between it and the shell. Every
command here is harmless even if the gate failed (no such device `/dev/sdz9`,
no git repository to push from); only the canaries would show it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from .hermes_kit import Profile, ToolCall, chat_query, hermes_or_skip, median_ms, one_shot

pytestmark = pytest.mark.slow

HARD_LINE = "touch CANARY_BAD; m''kfs.ext4 /dev/sdz9"
ASKED = "touch CANARY_ASK; git push --force origin main"
SECONDS_PER_ASK = 15.0  # "promptly": a refusal, not a wait for a person


@pytest.fixture(scope="module")
def hermes() -> str:
    return hermes_or_skip()


def terminal(profile: Profile, command: str) -> ToolCall:
    return ToolCall("terminal", {"command": command, "workdir": str(profile.work)})


def canaries(profile: Profile) -> list[str]:
    return sorted(p.name for p in profile.work.iterdir())


def refused(result: str, start: str) -> bool:
    """The tool result Hermes gave the model is redline's refusal."""
    message = json.loads(result).get("error", "")
    return isinstance(message, str) and message.startswith(start)


@pytest.fixture
def hooked(hermes: str, tmp_path: Path) -> Profile:
    """A profile with redline's shell hook, as `redline install hermes` writes it."""
    profile = Profile(tmp_path)
    profile.redline(hermes, "install", "hermes")
    return profile


@pytest.fixture(scope="module")
def plugin_home(hermes: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """`redline install hermes --plugin` once: redline into Hermes's Python."""
    root = tmp_path_factory.mktemp("plugin")
    Profile(root).redline(hermes, "install", "hermes", "--plugin")
    yield root


def test_shell_hook_one_shot(hermes: str, hooked: Profile) -> None:
    run = one_shot(
        hermes,
        hooked,
        [
            terminal(hooked, "touch ALLOWED_RAN"),
            terminal(hooked, HARD_LINE),
            ToolCall("write_file", {"path": str(hooked.config), "content": "hooks: {}\n"}),
            terminal(hooked, ASKED),
        ],
    )
    assert canaries(hooked) == ["ALLOWED_RAN"]
    allowed, hard, edit, asked = run.results
    assert "redline" not in allowed
    assert refused(hard, "redline refused this call (`disk.mkfs-device`)")
    assert refused(edit, "redline refused this call (`never-run.gate-config`)")
    assert refused(asked, "redline: this call needs the owner's approval (`vcs.push-force`)")
    assert "hook hermes" in hooked.config.read_text()  # the hook is still there
    assert run.standin.seconds_per_call()[3] < SECONDS_PER_ASK


def test_shell_hook_under_yolo_still_blocks_the_hard_line(hermes: str, hooked: Profile) -> None:
    run = one_shot(hermes, hooked, [terminal(hooked, HARD_LINE)], "--yolo")
    assert canaries(hooked) == []
    assert refused(run.results[0], "redline refused this call (`disk.mkfs-device`)")


def test_a_broken_policy_blocks(hermes: str, tmp_path: Path) -> None:
    profile = Profile(tmp_path)
    policy = tmp_path / "policy.yaml"
    profile.redline(hermes, "install", "hermes", REDLINE_POLICY=str(policy))
    policy.write_text("version: 1\nrules: [\n")
    run = one_shot(hermes, profile, [terminal(profile, "touch CANARY_BROKEN")])
    assert canaries(profile) == []
    assert refused(run.results[0], "redline refused this call (`policy-unavailable`)")


def test_a_missing_interpreter_blocks(hermes: str, hooked: Profile) -> None:
    import sys

    # The Python the consented hook was installed with is gone (an upgrade, a
    # deleted venv): the command and its consent are as before, but point nowhere.
    for path in (hooked.config, hooked.hermes_home / "shell-hooks-allowlist.json"):
        text = path.read_text()
        assert sys.executable in text
        path.write_text(text.replace(sys.executable, "/nonexistent/python3"))
    run = one_shot(hermes, hooked, [terminal(hooked, "touch CANARY_NOPY")])
    assert canaries(hooked) == []
    assert refused(run.results[0], "redline blocked this call: its Hermes hook could not run")


def test_plugin_one_shot(hermes: str, plugin_home: Path) -> None:
    profile = Profile(plugin_home)
    run = one_shot(
        hermes,
        profile,
        [
            terminal(profile, "touch ALLOWED_RAN"),
            terminal(profile, HARD_LINE),
            terminal(profile, ASKED),
        ],
    )
    assert canaries(profile) == ["ALLOWED_RAN"]
    allowed, hard, asked = run.results
    assert "redline" not in allowed
    assert refused(hard, "redline refused this call (`disk.mkfs-device`)")
    # `-z` approves a plugin's `approve` by itself: the plugin must not ask there.
    assert refused(asked, "redline: this call needs the owner's approval (`vcs.push-force`)")
    assert "this Hermes plugin cannot ask" in asked
    assert run.standin.seconds_per_call()[2] < SECONDS_PER_ASK


def test_plugin_refuses_an_ask_under_approvals_mode_off(hermes: str, plugin_home: Path) -> None:
    """At Hermes's terminal, `approvals.mode: off` would approve the plugin's
    request by itself: the plugin refuses the call instead."""
    profile = Profile(plugin_home)
    profile.set(approvals={"mode": "off"})
    before = len(profile.log())
    run = chat_query(hermes, profile, [terminal(profile, ASKED)])
    assert "CANARY_ASK" not in canaries(profile)
    assert refused(run.results[0], "redline: this call needs the owner's approval")
    assert profile.log()[before:] == [("decision", "deny", None)]


def test_plugin_logs_an_unanswered_ask_as_not_approved(hermes: str, plugin_home: Path) -> None:
    """At Hermes's terminal (manual approvals) the plugin hands the ask to
    Hermes's prompt; nobody answers, Hermes blocks it, and the log says so."""
    profile = Profile(plugin_home)
    profile.set(approvals={"mode": "manual", "timeout": 2})
    before = len(profile.log())
    run = chat_query(hermes, profile, [terminal(profile, ASKED)])
    assert "CANARY_ASK" not in canaries(profile)
    assert refused(run.results[0], "BLOCKED: User denied this potentially dangerous action")
    assert profile.log()[before:] == [("decision", "ask", None), ("outcome", "deny", "rejected")]


def test_doctor_sees_the_plugin(hermes: str, plugin_home: Path) -> None:
    report = Profile(plugin_home).redline(hermes, "doctor")
    assert "hermes" in report and "(plugin): the plugin loads in Hermes's Python" in report


@pytest.mark.cost
def test_what_a_hook_costs_per_tool_call(
    hermes: str, tmp_path: Path, plugin_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The time Hermes takes per tool call, without redline, with its shell
    hook and with its plugin (median over a few calls of a harmless `true`)."""
    bare, hooked = Profile(tmp_path / "bare"), Profile(tmp_path / "hooked")
    hooked.redline(hermes, "install", "hermes")
    plugin = Profile(plugin_home)
    figures = {}
    for name, profile in (("none", bare), ("shell hook", hooked), ("plugin", plugin)):
        run = one_shot(hermes, profile, [terminal(profile, "true")] * 5)
        figures[name] = median_ms(run.standin.seconds_per_call())
    with capsys.disabled():
        print(f"\nHermes, median ms per tool call: {figures}")
    assert figures["shell hook"] - figures["none"] < 2000
    assert figures["plugin"] - figures["none"] < 2000
