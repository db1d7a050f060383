"""`kill -9` of one replica while calls are held and traffic runs: no call is
lost, none is answered twice, and the hooks that waited on the dead replica
reach the other one (their install lists both) and get their answers."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from servicekit import HookProcess, ServiceProcess, eventually, hook_payload, make_env
from test_fleet_replicas import share_keys
from test_remote_agents import self_signed

from redline.approve.paths import ServicePaths
from redline.audit.store import Query, open_store, verify_store

HELD = 12


def _agents_url(service: ServiceProcess) -> str:
    found = eventually(
        lambda: re.search(r"agents port on 127\.0\.0\.1:(\d+)", service.log.read_text()),
        what="the agents port",
    )
    return f"https://127.0.0.1:{found.group(1)}"


@pytest.mark.slow
def test_held_calls_survive_the_death_of_a_replica(tmp_path: Path, pg_url: str) -> None:
    cert, key = self_signed(tmp_path)
    envs = []
    for name in ("a", "b", "laptop"):
        (tmp_path / name).mkdir()
        envs.append(make_env(tmp_path / name))
    env_a, env_b, laptop = envs
    tls = ("--tls-cert", str(cert), "--tls-key", str(key))
    args = ("--store", pg_url, "--timeout", "600", "--agents", "127.0.0.1:0", *tls)
    a = ServiceProcess(env_a, *args).start()
    share_keys(env_a, env_b)
    b = ServiceProcess(env_b, *args).start()
    try:
        urls = f"{_agents_url(a)},{_agents_url(b)}"
        added = subprocess.run(
            [
                sys.executable,
                "-m",
                "redline",
                "agents",
                "--store",
                pg_url,
                "add",
                "laptop",
                "--url",
                urls,
            ],
            env=env_a,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        line = next(x for x in added.stdout.splitlines() if "redline install" in x).split()
        subprocess.run(
            [sys.executable, "-m", "redline", *line[1:], "--service-ca", str(cert)],
            env=laptop,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        assert Path(ServicePaths(laptop["REDLINE_HOME"]).remote_file).read_text().strip() == urls

        hooks = {
            f"git push --force origin b{i}": HookProcess(
                laptop, hook_payload(f"git push --force origin b{i}", session=f"k{i}")
            )
            for i in range(HELD)
        }
        before = {row["id"]: row["shown"] for row in b.wait_pending(HELD)}
        assert sorted(before.values()) == sorted(hooks)

        a.kill9()
        # Traffic goes on through the survivor meanwhile.
        quick = HookProcess(laptop, hook_payload("ls", session="k-live")).result(timeout=120)
        assert quick[1]["verdict"] == "allow"
        assert all(hook.running() for hook in hooks.values())

        expected: dict[str, str] = {}
        for n, (held_id, command) in enumerate(sorted(before.items())):
            verb = "approve" if n % 2 == 0 else "reject"
            status, _ = b.owner("POST", f"/v1/held/{held_id}/{verb}", {})
            assert status == 200
            expected[command] = "approved" if verb == "approve" else "rejected"
        got = {command: hook.result(timeout=180)[1]["code"] for command, hook in hooks.items()}
        assert got == expected
    finally:
        a.stop()
        b.stop()
    store = open_store(pg_url)
    try:
        assert verify_store(store).ok
        refs = [e.record.ref for e in store.query(Query(kind="outcome"))]
    finally:
        store.close()
    assert len(refs) == HELD
    assert Counter(refs).most_common(1)[0][1] == 1
