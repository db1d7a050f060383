"""Which paths hold secrets."""

from __future__ import annotations

import pytest

from redline.rules.secrets import canonical, home_relative, is_project_env, is_secret


@pytest.mark.parametrize(
    ("value", "secret"),
    [
        ("~/.ssh/id_rsa", True),
        ("/root/.ssh/id_ed25519", True),
        ("/home/bob/.ssh/deploy_key", True),
        ("~/.ssh/../.ssh/id_rsa", True),
        ("~/.ssh", True),
        ("~/.ssh/*", True),
        ("~/.ssh/id_*", True),
        ("~/.ssh/id_rsa.pub", False),
        ("~/.ssh/*.pub", False),
        ("~/.ssh/config", False),
        ("~/.ssh/known_hosts", False),
        ("~/.aws/credentials", True),
        ("~/.aws", True),
        ("~/.aws/config", False),
        ("~/.a*/credentials", True),
        ("~/.*", True),
        ("~/*", False),
        ("/etc/shadow", True),
        ("/etc/passwd", False),
        ("/etc/ssh/ssh_host_ed25519_key", True),
        ("/etc/ssh/sshd_config", False),
        ("/proc/self/environ", True),
        ("~/.gnupg/private-keys-v1.d", True),
        ("~/.hermes/.env", True),
        ("~/.hermes/config.yaml", False),
        ("~/.claude/.credentials.json", True),
        ("privkey.pem", True),
        ("server.key", True),
        ("fullchain.pem", False),
        ("ca-bundle.pem", False),
        ("store.p12", True),
        ("*.pem", True),
        ("*.txt", False),
        ("*", False),
        (".env", True),
        ("app/.env.production", True),
        ("*/.env", True),
        (".envrc", False),
        (".env.example", False),
        ("notes.env.md", False),
        ("id_rsa", True),
        ("id_test", False),
    ],
)
def test_is_secret(value: str, secret: bool) -> None:
    path = canonical(value, None)
    assert path is not None
    assert is_secret(path) is secret


def test_canonical_spellings() -> None:
    assert canonical("\x00/.env", None, "$HERMES_HOME/.env") == "~/.hermes/.env"
    assert canonical("\x00/.env", None, "${HERMES_HOME}/.env") == "~/.hermes/.env"
    assert canonical("\x00/x", None, "$OTHER/x") is None
    assert canonical(".env", "/root/.hermes") == "~/.hermes/.env"
    assert home_relative("/Users/me/.netrc") == "~/.netrc"
    assert home_relative("/rootless/x") == "/rootless/x"


@pytest.mark.parametrize(
    ("name", "expected"),
    [(".env", True), (".env.local", True), (".envrc", False), (".env.sample", False),
     (".env.dist", False), (".environment", False)],
)  # fmt: skip
def test_is_project_env(name: str, expected: bool) -> None:
    assert is_project_env(name) is expected
