"""The policy's settings for `redline run`: `env.pass`, `enforce`, `sandbox`."""

from __future__ import annotations

import pytest

from redline.policy.load import Issue, PolicyError, parse_policy
from redline.policy.model import Policy, RunSettings


def test_the_settings_are_read() -> None:
    policy = parse_policy(
        "version: 1\n"
        "env: {pass: [PIP_INDEX_URL, 'MYAPP_*']}\n"
        "enforce: required\n"
        "sandbox:\n"
        "  writable: [~/.gradle, /srv/build]\n"
        "  network: false\n"
    )
    assert policy.run == RunSettings(
        env_pass=("PIP_INDEX_URL", "MYAPP_*"),
        enforce="required",
        writable=("~/.gradle", "/srv/build"),
        network=False,
    )
    assert policy.warnings == ()


def test_the_defaults_are_best_effort_with_network() -> None:
    assert parse_policy("version: 1\n").run == RunSettings((), "best-effort", (), True)


def test_mistakes_are_named_by_line_with_a_repair() -> None:
    with pytest.raises(PolicyError) as caught:
        parse_policy(
            "version: 1\n"
            "enforce: requird\n"
            "sandbox:\n"
            "  writable: [build]\n"
            "  network: maybe\n"
            "  netwrk: false\n"
        )
    assert caught.value.issues == (
        Issue(2, "`enforce` must be `required`, `best-effort` or `off`, not `requird`",
              "did you mean `required`?"),
        Issue(4, "writable path `build` is relative", "start writable paths with `/` or `~/`"),
        Issue(5, "`sandbox.network` must be `true` or `false`, not `maybe`",
              "use `network: false` to run commands without a network"),
        Issue(6, "unknown key `netwrk` in `sandbox`", "did you mean `network`?"),
    )  # fmt: skip


def test_a_platform_key_in_the_passthrough_is_a_lint_warning() -> None:
    policy = parse_policy("version: 1\nenv:\n  pass: [DEPLOY_TOKEN, ANTHROPIC_API_KEY]\n")
    assert policy.warnings == (
        (3, "`env.pass` names `ANTHROPIC_API_KEY`, an agent platform's or the gate's secret; "
            "it is removed all the same",
         "remove `ANTHROPIC_API_KEY` from `env.pass`: such keys never reach a command"),
    )  # fmt: skip


def test_a_service_socket_in_the_passthrough_is_a_lint_warning() -> None:
    policy = parse_policy("version: 1\nenv:\n  pass: [SSH_AUTH_SOCK]\n")
    assert [(line, text.split(",")[0]) for line, text, _ in policy.warnings] == [
        (3, "`env.pass` names `SSH_AUTH_SOCK`")
    ]


def test_the_settings_survive_the_compiled_cache() -> None:
    policy = parse_policy("version: 1\nenforce: off\nsandbox: {writable: [/srv], network: false}\n")
    assert Policy.from_json(policy.to_json()).run == policy.run


def test_profiles_are_read_and_applied_over_the_policys_settings() -> None:
    from redline.policy.model import RunProfile

    policy = parse_policy(
        "version: 1\n"
        "env: {pass: [PIP_INDEX_URL]}\n"
        "sandbox:\n"
        "  writable: [/srv/build]\n"
        "  profiles:\n"
        "    offline: {network: false}\n"
        "    gradle: {writable: [~/.gradle], env: {pass: [GRADLE_TOKEN]}}\n"
    )
    assert policy.run.profiles == (
        RunProfile("offline", network=False),
        RunProfile("gradle", writable=("~/.gradle",), env_pass=("GRADLE_TOKEN",)),
    )
    assert policy.run.with_profile("gradle") == policy.run._replace(
        writable=("/srv/build", "~/.gradle"), env_pass=("PIP_INDEX_URL", "GRADLE_TOKEN")
    )
    assert policy.run.with_profile("offline").network is False
    with pytest.raises(ValueError, match=r"no sandbox profile `x` \(it has: offline, gradle\)"):
        policy.run.with_profile("x")
    assert RunSettings.from_json(policy.run.to_json()) == policy.run


def test_profile_mistakes_are_named_by_line() -> None:
    with pytest.raises(PolicyError) as caught:
        parse_policy(
            "version: 1\n"
            "sandbox:\n"
            "  profiles:\n"
            "    'two words': {network: false}\n"
            "    build: {writable: [rel], netwrk: true}\n"
        )
    assert caught.value.issues == (
        Issue(4, "profile name `two words` is not a word", "use letters, digits, -, _"),
        Issue(5, "unknown key `netwrk` in `sandbox.profiles.build`", "did you mean `network`?"),
        Issue(5, "writable path `rel` is relative", "start writable paths with `/` or `~/`"),
    )
