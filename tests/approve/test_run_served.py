"""`redline run` judged by a running service (`sandbox.served`): the same
verdicts, rules and codes as judging locally (`sandbox.run.prepare`) on a
sample of the corpora, exactly one log entry per run either way, and the
served path's failures: stale settings and no service judge locally (nothing
logged by the service), a wrong key or a tampered answer is a deny."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from servicekit import POLICY, PROJECT, ServiceProcess, make_env

from redline.approve import run_settings
from redline.approve.client import Unverified, verify
from redline.audit.recorder import open_log
from redline.audit.store import Query
from redline.decision import Verdict
from redline.sandbox import spawn
from redline.sandbox.level import LANDLOCK, NAMESPACES, Level, probe
from redline.sandbox.pids import make_bound
from redline.sandbox.plan import make_plan
from redline.sandbox.run import execute, prepare
from redline.sandbox.served import prepare_served

CORPUS = Path(__file__).parent.parent / "corpus"
EVERY = 25  # a sample of each corpus file: the whole corpus is `test_differential`'s
LEVEL = Level(NAMESPACES, "bubblewrap (test)")


def _sample() -> list[Any]:
    params = []
    for path in sorted(CORPUS.glob("*.yaml")):
        cases = yaml.safe_load(path.read_text(encoding="utf-8"))
        for number, case in enumerate(cases, 1):
            if number % EVERY == 1:
                params.append(pytest.param(case, id=f"{path.stem}-{number}"))
    return params


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceProcess]:
    env = make_env(tmp_path_factory.mktemp("run-served"), REDLINE_POLICY=str(POLICY))
    service = ServiceProcess(env).start()
    yield service
    service.stop()


def decisions(env: dict[str, str]) -> int:
    store = open_log(None, environ=env)
    try:
        return len(list(store.query(Query(kind="decision"))))
    finally:
        store.close()


def both(env: dict[str, str], command: str, cwd: str, **options: Any) -> tuple[Any, Any]:
    """The served and the local judgment of one run, each logged once."""
    before = decisions(env)
    remote = prepare_served(command, level=LEVEL, cwd=cwd, environ=env, **options)
    assert remote is not None, "the service did not judge it"
    assert decisions(env) == before + 1
    local = prepare(command, cwd=cwd, environ=env, level=LEVEL, **options)
    assert decisions(env) == before + 2
    return remote, local


@pytest.mark.parametrize("case", _sample())
def test_served_and_local_runs_agree(served: ServiceProcess, case: dict[str, Any]) -> None:
    remote, local = both(served.env, case["command"], case.get("cwd") or PROJECT)
    got, expected = remote.decision, local.decision
    assert (got.verdict, got.rule_ids, got.code) == (
        expected.verdict,
        expected.rule_ids,
        expected.code,
    )
    assert (got.reason, got.hardline, got.notes) == (
        expected.reason,
        expected.hardline,
        expected.notes,
    )
    assert (remote.env, remote.writable, remote.network) == (
        local.env,
        local.writable,
        local.network,
    )


def test_the_sandbox_settles_both_alike(served: ServiceProcess) -> None:
    """No network without namespaces, under Landlock: refused the same way."""
    landlock = Level(LANDLOCK, "Landlock (test)")
    env = served.env
    remote = prepare_served("true", level=landlock, cwd=PROJECT, environ=env, network=False)
    local = prepare("true", cwd=PROJECT, environ=env, level=landlock, network=False)
    assert remote is not None
    assert remote.decision.code == local.decision.code == "network-off-unavailable"
    assert remote.decision.reason == local.decision.reason


def test_an_ask_held_for_the_owner_runs_once_approved(served: ServiceProcess) -> None:
    answers: list[Any] = []
    command = "git push --force origin main"
    waiting = threading.Thread(
        target=lambda: answers.append(
            prepare_served(command, level=LEVEL, cwd=PROJECT, environ=served.env, hold=True)
        )
    )
    waiting.start()
    row = next(r for r in served.wait_pending(1) if r["shown"] == command)
    assert served.owner("POST", f"/v1/held/{row['id']}/approve", {})[0] == 200
    waiting.join(timeout=120)
    assert answers[0].decision.verdict is Verdict.ALLOW
    assert answers[0].decision.code == "approved"


def test_stale_settings_are_judged_locally_and_republished(served: ServiceProcess) -> None:
    service_dir = served.paths.service_dir
    published = run_settings.read(service_dir)
    assert published is not None
    run_settings.write(service_dir, {**published, "writable": ["/"]})
    before = decisions(served.env)
    assert prepare_served("true", level=LEVEL, cwd=PROJECT, environ=served.env) is None
    assert decisions(served.env) == before  # refused unjudged: the local judgment logs it
    assert run_settings.read(service_dir) == published


def test_no_service_means_a_local_judgment(tmp_path: Path) -> None:
    env = make_env(tmp_path, REDLINE_POLICY=str(POLICY))
    assert prepare_served("true", level=LEVEL, cwd=PROJECT, environ=env) is None
    service_dir = Path(env["REDLINE_HOME"]) / "service"
    service_dir.mkdir(parents=True)
    settings = {"env_pass": [], "enforce": "best-effort", "writable": [], "network": True}
    run_settings.write(str(service_dir), {**settings, "profiles": []})
    (service_dir / "signing.pub").write_text("A" * 43 + "=")
    assert prepare_served("true", level=LEVEL, cwd=PROJECT, environ=env) is None  # no socket


def test_an_answer_under_another_key_is_a_deny(served: ServiceProcess) -> None:
    import base64

    env = {**served.env, "REDLINE_SERVICE_KEY": base64.b64encode(b"k" * 32).decode()}
    prepared = prepare_served("true", level=LEVEL, cwd=PROJECT, environ=env)
    assert prepared is not None  # the service judged it: no second, local judgment
    assert prepared.decision.verdict is Verdict.DENY
    assert prepared.decision.code == "gate-unverified (unknown-key)"


def test_an_answer_without_the_runs_object_does_not_verify(served: ServiceProcess) -> None:
    """The run's settings come back signed: an answer for the same call that
    does not carry them (a hook's answer, replayed) is refused."""
    from redline.approve.client import call_digest, pinned_key
    from redline.approve.wire import exchange

    pinned = pinned_key(served.paths)
    args = {"command": "true", "enforcement": NAMESPACES}
    body = {"tool": "Bash", "args": args, "cwd": PROJECT, "session": None, "context": None,
            "agent": "run", "nonce": "n" * 32}  # fmt: skip
    status, reply = exchange(served.paths.hook_socket, "POST", "/v1/decide", body)
    assert status == 200
    digest = call_digest("Bash", args, PROJECT, None, None, "run")
    run = {"settings": "x", "network": True, "hold": False, "why": "test"}
    with pytest.raises(Unverified) as raised:
        verify(reply, pinned, request=None, nonce="n" * 32, call=digest, run=run)
    assert raised.value.code == "run-mismatch"
    tampered = json.loads(json.dumps(reply))
    tampered["answer"]["decision"]["run"] = run
    with pytest.raises(Unverified) as raised:
        verify(tampered, pinned, request=None, nonce="n" * 32, call=digest, run=run)
    assert raised.value.code == "bad-signature"


def _cli_env(served: ServiceProcess) -> dict[str, str]:
    """The served env for a `redline run` process: the service's policy, not one of its own."""
    env = {k: v for k, v in served.env.items() if k != "REDLINE_POLICY"}
    return {**env, "PYTHONPATH": os.pathsep.join(sys.path)}


@pytest.mark.skipif(probe().name != NAMESPACES, reason="needs the namespace sandbox")
def test_the_sandbox_is_built_while_the_service_judges(
    served: ServiceProcess, tmp_path: Path
) -> None:
    level = probe()
    command = ["sh", "-c", "echo hi > out"]
    started = spawn.start(command, level, make_bound(64))
    prepared = prepare_served(command, level=level, cwd=str(tmp_path), environ=served.env,
                              started=started)  # fmt: skip
    assert prepared is not None and prepared.decision.verdict is Verdict.ALLOW
    assert started.built is not None  # bwrap built it before the verdict came back
    assert execute(prepared, environ=served.env, max_procs=64, started=started) == 0
    assert (tmp_path / "out").read_text() == "hi\n"


@pytest.mark.skipif(probe().name != NAMESPACES, reason="needs the namespace sandbox")
def test_a_sandbox_built_from_other_settings_is_ended_and_made_again(
    served: ServiceProcess, tmp_path: Path
) -> None:
    """Stale or tampered settings: the service refuses them (409), the run is
    judged here, and the sandbox built from them is never used."""
    level = probe()
    command = ["sh", "-c", "echo hi > out"]
    started = spawn.start(command, level, make_bound(64))
    plan = make_plan(str(tmp_path), served.env, max_procs=64)
    started.prepare(plan, {}, ("other places",))
    local = prepare(command, cwd=str(tmp_path), environ=served.env, level=level)
    assert execute(local, environ=served.env, max_procs=64, started=started) == 0
    assert (tmp_path / "out").read_text() == "hi\n"
    with pytest.raises(ChildProcessError):
        os.waitpid(started.pid, os.WNOHANG)  # the one built first was ended and reaped


@pytest.mark.skipif(probe().name != NAMESPACES, reason="needs the namespace sandbox")
@pytest.mark.parametrize(
    ("text", "code"),
    [("echo hi > out", 0), ("touch out; rm -rf /", 126), ("exit 3", 3)],
)
def test_a_served_run_runs_an_allow_only(
    served: ServiceProcess, tmp_path: Path, text: str, code: int
) -> None:
    before = decisions(served.env)
    done = subprocess.run(
        [sys.executable, "-m", "redline", "run", "--cwd", str(tmp_path), "--shell", text],
        env=_cli_env(served), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == code, done.stderr
    assert (tmp_path / "out").exists() == (code == 0)
    assert decisions(served.env) == before + 1  # judged and logged once, by the service
