"""The scrubbing tiers and the fail-closed passthrough (F-SECRETS-1)."""

from __future__ import annotations

import redline
from redline.secrets import CLOUD, NAME, PLATFORM, SOCKET, VALUE, Removed, Scrub, scrub, tier_of

ENV = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/home/me",
    "LANG": "C.UTF-8",
    "PWD": "/srv/app",
    "SSH_AUTH_SOCK": "/run/user/1000/ssh-agent",
    "OPENAI_API_KEY": "sk-proj-0123456789",
    "ANTHROPIC_API_KEY": "sk-ant-0123456789",
    "TELEGRAM_BOT_TOKEN": "123456:ABCDEF",
    "REDLINE_HOME": "/home/me/.redline",
    "AWS_SECRET_ACCESS_KEY": "abcdefghij0123456789",
    "AZURE_CLIENT_ID": "0000-1111",
    "GOOGLE_APPLICATION_CREDENTIALS": "/home/me/gcp.json",
    "DEPLOY_TOKEN": "t0k3n",
    "DB_PASSWORD": "hunter2",
    "DATABASE_URL": "postgres://app:s3cret@db.internal/app",
    "PLAIN_URL": "https://example.com/x",
    "NOTES": "ghp_0123456789abcdefghijABCDEFGHIJ012345",
}


def test_each_tier_removes_its_names_and_ordinary_variables_stay() -> None:
    result = scrub(ENV)
    assert result == Scrub(
        env={name: ENV[name] for name in ("PATH", "HOME", "LANG", "PWD", "PLAIN_URL")},
        removed=(
            Removed("ANTHROPIC_API_KEY", PLATFORM),
            Removed("AWS_SECRET_ACCESS_KEY", CLOUD),
            Removed("AZURE_CLIENT_ID", CLOUD),
            Removed("DATABASE_URL", NAME),
            Removed("DB_PASSWORD", NAME),
            Removed("DEPLOY_TOKEN", NAME),
            Removed("GOOGLE_APPLICATION_CREDENTIALS", CLOUD),
            Removed("NOTES", VALUE),
            Removed("OPENAI_API_KEY", PLATFORM),
            Removed("REDLINE_HOME", PLATFORM),
            Removed("SSH_AUTH_SOCK", SOCKET),
            Removed("TELEGRAM_BOT_TOKEN", PLATFORM),
        ),
        passed=(),
        refused=(),
    )  # fmt: skip


def test_the_passthrough_list_never_passes_a_platform_key() -> None:
    result = scrub(ENV, ["DEPLOY_TOKEN", "OPENAI_API_KEY", "AWS_*", "OPENAI_*"])
    assert result.passed == (Removed("AWS_SECRET_ACCESS_KEY", CLOUD), Removed("DEPLOY_TOKEN", NAME))
    assert "OPENAI_API_KEY" not in result.env
    assert result.env["DEPLOY_TOKEN"] == "t0k3n"
    assert result.refused == ("OPENAI_API_KEY", "OPENAI_*")


def test_a_service_socket_is_removed_unless_passed() -> None:
    env = {"TMUX": "/tmp/tmux-1000/default,1,0", "DISPLAY": ":0", "PATH": "/bin"}
    assert scrub(env).env == {"PATH": "/bin"}
    assert scrub(env, ["DISPLAY"]).passed == (Removed("DISPLAY", SOCKET),)


def test_the_public_api_returns_the_env_and_the_removed_names() -> None:
    env, removed = redline.scrubbed_env({"PATH": "/bin", "GITHUB_TOKEN": "x", "OK": "1"})
    assert (env, removed) == ({"PATH": "/bin", "OK": "1"}, ("GITHUB_TOKEN",))


def test_tiers_of_single_names() -> None:
    cases = {
        ("HF_TOKEN", "x"): PLATFORM,
        ("SLACK_BOT_TOKEN", "x"): PLATFORM,
        ("REDLINE_SERVICE_KEY", "x"): PLATFORM,
        ("AWS_SESSION_TOKEN", "x"): CLOUD,
        ("STRIPE_SECRET", "x"): NAME,
        ("MY_APP_KEY", "x"): NAME,
        ("PGPASSWORD", "x"): NAME,
        ("PIP_INDEX_URL", "https://user:pw@pypi.internal/simple"): NAME,
        ("PWD", "/srv"): None,
        ("EDITOR", "vim"): None,
        ("KEYBOARD", "us"): None,
    }
    assert {case: tier_of(*case) for case in cases} == cases
