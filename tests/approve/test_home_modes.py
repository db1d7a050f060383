"""Files only the owner can read: `$REDLINE_HOME` is 0700 and everything in it
0600 (directories 0700), made so as it is created, even when redline is
started under a permissive umask; a home left loose is tightened when the
service, an install or a hook starts."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from servicekit import POLICY, Env, HookProcess, ServiceProcess, hook_payload, run_hook
from test_web import ASKED, free_port
from test_websession import log_in, request

from redline.home_modes import loose, tighten
from redline.hooks.install import install


@pytest.fixture
def permissive_umask() -> Iterator[None]:
    """Every process the test starts inherits umask 000: nothing but redline's
    own care makes its files private."""
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def modes(home: Path) -> dict[str, int]:
    """Every entry under `home` (itself as "."), with its permission bits."""
    found = {".": home.stat().st_mode & 0o777}
    for root, dirs, files in os.walk(home):
        for name in dirs + files:
            path = Path(root) / name
            found[str(path.relative_to(home))] = path.lstat().st_mode & 0o777
    return found


def not_owner_only(found: dict[str, int], home: Path) -> dict[str, str]:
    wrong = {}
    for name, mode in found.items():
        want = 0o700 if (home / name).is_dir() else 0o600
        if mode != want:
            wrong[name] = f"{mode:o}"
    return wrong


def local_hook(env: Env, payload: dict[str, Any]) -> dict[str, Any]:
    """`redline hook generic` deciding alone (the log and state in the home)."""
    done = subprocess.run(
        [sys.executable, "-m", "redline", "hook", "generic"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=dict(env),
        timeout=120,
        check=False,
    )
    reply: dict[str, Any] = json.loads(done.stdout)
    return reply


def exercise(env: Env, service: ServiceProcess, port: int) -> None:
    """A few calls through the service and a local hook, a web login, an
    answer of each kind (one "always", which writes the allowlist)."""
    assert run_hook(env, hook_payload("ls /srv"), "--service")[1]["verdict"] == "allow"
    assert local_hook(env, hook_payload("ls /opt"))["verdict"] == "allow"
    cookie, csrf, _ = log_in(service, port)
    held_hooks = [HookProcess(env, hook_payload(ASKED, session=f"m{n}")) for n in range(2)]
    first, second = (row["id"] for row in service.wait_pending(2))
    change = {
        "cookie": cookie,
        "x-csrf-token": csrf,
        "origin": f"http://127.0.0.1:{port}",
        "content-type": "application/json",
    }
    approve = request(port, "POST", f"/api/held/{first}/approve", b'{"scope": "always"}', change)
    assert approve[0] == 200
    assert service.owner("POST", f"/v1/held/{second}/reject", {"reason": "no"})[0] == 200
    assert sorted(h.result()[1]["code"] for h in held_hooks) == ["approved", "rejected"]


def test_a_fresh_home_and_everything_in_it_are_the_owners_alone(
    env: Env, make_service: Callable[..., ServiceProcess], permissive_umask: None, tmp_path: Path
) -> None:
    home = Path(env["REDLINE_HOME"])
    assert not home.exists()
    port = free_port()
    policy = tmp_path / "policy.yaml"  # its own: the "always" writes an allowlist beside it
    shutil.copy(POLICY, policy)
    service = make_service("--http", f"127.0.0.1:{port}", "--policy", str(policy))
    exercise(env, service, port)
    found = modes(home)  # the service still runs: its sockets and the WAL are there
    assert not_owner_only(found, home) == {}
    expected = {
        ".",
        "log.sqlite3",
        "log.sqlite3-wal",
        "log.sqlite3-shm",
        "service",
        "service/hook.sock",
        "service/signing.pub",
        "service/owner",
        "service/owner/owner.sock",
        "service/owner/signing.key",
        "service/owner/hook.token",
        "service/owner/pairing.key",
        "service/owner/relay-hook.sock",
        "service/owner/relay-http.sock",
        "cache",
    }
    assert expected <= set(found), sorted(set(found))
    assert stat.S_ISSOCK((home / "service/hook.sock").lstat().st_mode)


def test_a_loose_home_is_tightened_when_the_service_starts(
    env: Env, make_service: Callable[..., ServiceProcess], permissive_umask: None
) -> None:
    home = Path(env["REDLINE_HOME"])
    (home / "service" / "owner").mkdir(parents=True, mode=0o777)
    (home / "sessions").mkdir(mode=0o755)
    for name in ("policy.yaml", "service/owner/hook.token", "sessions/old.json"):
        (home / name).write_text("x" * 64 if name.endswith("token") else "")
    shutil.copy(POLICY, home / "policy.yaml")
    for path in (home, home / "service", home / "service" / "owner"):
        path.chmod(0o777)
    for name in ("policy.yaml", "service/owner/hook.token", "sessions/old.json"):
        (home / name).chmod(0o666)
    port = free_port()
    # The policy in the home: an "always" writes its allowlist there too.
    service = make_service("--http", f"127.0.0.1:{port}", "--policy", str(home / "policy.yaml"))
    exercise(env, service, port)
    found = modes(home)
    assert not_owner_only(found, home) == {}
    assert {"allowlist.json", "allowlist.json.lock", "sessions/old.json"} <= set(found)


def test_a_hook_tightens_a_loose_home_at_its_start(env: Env, permissive_umask: None) -> None:
    home = Path(env["REDLINE_HOME"])
    assert local_hook(env, hook_payload("ls /srv"))["verdict"] == "allow"
    assert not_owner_only(modes(home), home) == {}  # made so
    home.chmod(0o755)
    (home / "log.sqlite3").chmod(0o644)
    assert local_hook(env, hook_payload("ls /srv"))["verdict"] == "allow"
    assert not_owner_only(modes(home), home) == {}  # and made so again


def test_install_makes_the_home_owner_only(env: Env, tmp_path: Path) -> None:
    home = Path(env["REDLINE_HOME"])
    home.mkdir(mode=0o755)
    home.chmod(0o755)
    (home / "policy.yaml").write_text("")
    (home / "policy.yaml").chmod(0o644)
    install("claude-code", home=str(tmp_path / "home"), environ=env)
    assert modes(home) == {".": 0o700, "policy.yaml": 0o600}


def test_tighten_leaves_links_and_the_agents_group_alone(tmp_path: Path) -> None:
    home = tmp_path / "redline"
    (home / "service").mkdir(parents=True)
    outside = tmp_path / "outside.txt"
    outside.write_text("")
    outside.chmod(0o644)
    (home / "link").symlink_to(outside)
    (home / "service" / "hook.sock").write_text("")
    (home / "service" / "agent-group").write_text(f"{os.getgid()}\n")
    home.chmod(0o750)
    (home / "service").chmod(0o750)
    (home / "service" / "hook.sock").chmod(0o664)
    (home / "service" / "agent-group").chmod(0o600)
    assert [(Path(p).name, f"{m:o}", f"{w:o}") for p, m, w in loose(str(home))] == [
        ("redline", "750", "710"),
        ("hook.sock", "664", "660"),
    ]
    assert tighten(str(home)) == []
    assert outside.stat().st_mode & 0o777 == 0o644
    assert loose(str(home)) == []
