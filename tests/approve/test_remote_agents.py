"""Agents on other machines: a hook sends its calls over HTTPS to the agents
port with its own token; the owner sees which agent each call came from; a
wrong or revoked token is refused and logged, and the hook fails closed."""

from __future__ import annotations

import datetime
import ipaddress
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from servicekit import Env, HookProcess, ServiceProcess, eventually, hook_payload, make_env

from redline.approve.paths import ServicePaths

ASKED = "git push --force origin main"


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key (the test's own CA)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "redline test")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


def redline(env: Env, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "redline", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def remote(tmp_path: Path) -> Iterator[tuple[ServiceProcess, str, Path]]:
    cert, key = self_signed(tmp_path)
    (tmp_path / "svc").mkdir()
    env = make_env(tmp_path / "svc")
    service = ServiceProcess(
        env,
        "--timeout",
        "600",
        "--agents",
        "127.0.0.1:0",
        "--tls-cert",
        str(cert),
        "--tls-key",
        str(key),
    ).start()
    found = eventually(
        lambda: re.search(r"agents port on 127\.0\.0\.1:(\d+)", service.log.read_text()),
        what="the agents port",
    )
    yield service, f"https://127.0.0.1:{found.group(1)}", cert
    service.stop()


def agent_machine(tmp_path: Path, service: ServiceProcess, url: str, cert: Path) -> Env:
    """Another machine's home, installed with the line `redline agents add` printed."""
    added = redline(service.env, "agents", "add", "laptop", "--url", url)
    assert added.returncode == 0, added.stderr
    line = next(x for x in added.stdout.splitlines() if "redline install" in x).split()
    assert line[:3] == ["redline", "install", "claude-code"]
    (tmp_path / "laptop").mkdir()
    env = make_env(tmp_path / "laptop")
    done = redline(env, *line[1:], "--service-ca", str(cert))
    assert done.returncode == 0, done.stderr
    paths = ServicePaths(env["REDLINE_HOME"])
    assert Path(paths.remote_file).read_text().strip() == url
    assert Path(paths.agent_token_file).stat().st_mode & 0o077 == 0
    return env


def test_a_remote_agent_is_judged_held_and_answered(
    tmp_path: Path, remote: tuple[ServiceProcess, str, Path]
) -> None:
    service, url, cert = remote
    env = agent_machine(tmp_path, service, url, cert)
    allowed = HookProcess(env, hook_payload("ls -la", session="r1")).result(timeout=120)[1]
    assert allowed["verdict"] == "allow", allowed
    hook = HookProcess(env, hook_payload(ASKED, session="r1"))
    [row] = service.wait_pending(1)
    assert "laptop (127.0.0.1)" in row["agent"], row
    status, _ = service.owner("POST", f"/v1/held/{row['id']}/approve", {})
    assert status == 200
    assert hook.result(timeout=120)[1]["code"] == "approved"
    listed = redline(service.env, "agents", "list")
    assert "laptop" in listed.stdout and "last call from 127.0.0.1" in listed.stdout


def test_a_wrong_or_revoked_token_is_refused_logged_and_fails_closed(
    tmp_path: Path, remote: tuple[ServiceProcess, str, Path]
) -> None:
    service, url, cert = remote
    env = agent_machine(tmp_path, service, url, cert)
    token_file = Path(ServicePaths(env["REDLINE_HOME"]).agent_token_file)
    real = token_file.read_text()
    token_file.write_text("rla_" + "x" * 43 + "\n")
    wrong = HookProcess(env, hook_payload("ls", session="r2")).result(timeout=120)[1]
    assert (wrong["verdict"], wrong["code"]) == ("deny", "gate-refused"), wrong
    assert "token" in wrong["reason"]

    token_file.write_text(real)
    assert redline(service.env, "agents", "revoke", "laptop").returncode == 0
    revoked = HookProcess(env, hook_payload("ls", session="r2")).result(timeout=120)[1]
    assert (revoked["verdict"], revoked["code"]) == ("deny", "gate-refused"), revoked
    shown = redline(service.env, "log", "show", "--json")
    assert shown.stdout.count("missing, wrong or revoked token") >= 2, shown.stdout[-2000:]


def test_the_agents_port_refuses_plain_http_off_loopback(tmp_path: Path) -> None:
    (tmp_path / "svc").mkdir()
    env = make_env(tmp_path / "svc")
    started = subprocess.run(
        [sys.executable, "-m", "redline", "serve", "--agents", "0.0.0.0:0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert started.returncode != 0
    assert "in clear" in started.stderr and "--tls-cert" in started.stderr
