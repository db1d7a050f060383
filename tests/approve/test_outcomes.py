"""Every outcome end to end: a real `redline hook generic --service` process
and a real `redline serve` process; the owner answers on the owner socket
(or with `redline approve/reject`)."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
import time
from collections.abc import Callable

import pytest
from servicekit import (
    Env,
    HookProcess,
    ServiceProcess,
    hook_payload,
    outcomes,
    run_hook,
)

from redline.approve.client import decide_via_service
from redline.decision import Verdict

ASKED = "git push --force origin main"


def cli(env: Env, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "redline", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_allowed_and_denied_calls_are_answered_at_once(
    env: Env, make_service: Callable[..., ServiceProcess]
) -> None:
    make_service()
    code, decision = run_hook(env, hook_payload("ls /srv"))
    assert (code, decision["verdict"], decision["code"]) == (0, "allow", None)
    code, decision = run_hook(env, hook_payload("rm -rf /"))
    assert (code, decision["verdict"], decision["hardline"]) == (4, "deny", True)


def test_approved_call_runs_and_the_outcome_is_logged(
    env: Env, make_service: Callable[..., ServiceProcess]
) -> None:
    make_service()
    hook = HookProcess(env, hook_payload(ASKED))
    [held] = ServiceProcess(env).wait_pending(1)
    assert held["shown"] == ASKED
    assert held["rules"] == ["vcs.push-force"]
    answered = cli(env, "approve", held["id"], "--scope", "once")
    assert answered.returncode == 0, answered.stderr
    code, decision, _ = hook.result()
    assert (code, decision["verdict"], decision["code"]) == (0, "allow", "approved")
    [outcome] = outcomes(env)
    assert (outcome.outcome, outcome.channel, outcome.verdict) == ("approved", "terminal", "allow")
    assert outcome.approved_by and outcome.approved_at and outcome.ref


def test_rejected_call_relays_the_reason_and_is_remembered(
    env: Env, make_service: Callable[..., ServiceProcess]
) -> None:
    service = make_service()
    hook = HookProcess(env, hook_payload(ASKED))
    [held] = service.wait_pending(1)
    answered = cli(env, "reject", held["id"], "--reason", "not on main")
    assert answered.returncode == 0, answered.stderr
    code, decision, _ = hook.result()
    assert (code, decision["verdict"], decision["code"]) == (4, "deny", "rejected")
    assert "not on main" in decision["reason"]
    assert "do not try again" in decision["repair"]
    # The same effect, spelled another way, is refused without asking again.
    code, again = run_hook(env, hook_payload("git push -f origin main"))
    assert (code, again["verdict"]) == (4, "deny")
    assert service.pending() == []
    [outcome] = outcomes(env)
    assert (outcome.outcome, outcome.reason) == ("rejected", "not on main")


def test_unanswered_call_times_out(env: Env, make_service: Callable[..., ServiceProcess]) -> None:
    make_service("--timeout", "2")
    code, decision = run_hook(env, hook_payload(ASKED))
    assert (code, decision["verdict"], decision["code"]) == (4, "deny", "timeout")
    assert "expired" in decision["reason"]
    [outcome] = outcomes(env)
    assert (outcome.outcome, outcome.channel) == ("timeout", "timeout")


@pytest.mark.parametrize("workers", ["0", "1"])
def test_after_a_timeout_the_retry_is_held_again(
    env: Env, make_service: Callable[..., ServiceProcess], workers: str
) -> None:
    service = make_service("--timeout", "2", "--workers", workers)
    code, decision = run_hook(env, hook_payload(ASKED, session="t1"))
    assert (code, decision["code"]) == (4, "timeout")
    # Nobody said no: the same call, spelled another way, waits for the owner again.
    hook = HookProcess(env, hook_payload("git push -f origin main", session="t1"))
    [held] = service.wait_pending(1)
    service.owner("POST", f"/v1/held/{held['id']}/reject", {"reason": "no"})
    assert hook.result()[1]["code"] == "rejected"
    # A rejection is remembered: the third try is refused without asking.
    code, again = run_hook(env, hook_payload(ASKED, session="t1"))
    assert (code, again["code"]) == (4, "rejected-before")
    assert service.pending() == []


def test_a_second_answer_is_refused(env: Env, make_service: Callable[..., ServiceProcess]) -> None:
    service = make_service()
    hook = HookProcess(env, hook_payload(ASKED))
    [held] = service.wait_pending(1)
    assert service.owner("POST", f"/v1/held/{held['id']}/approve", {})[0] == 200
    status, reply = service.owner("POST", f"/v1/held/{held['id']}/reject", {})
    assert (status, reply) == (409, {"error": f"`{held['id']}` was already answered: approved"})
    assert hook.result()[1]["code"] == "approved"
    assert len(outcomes(env)) == 1


def test_service_down_is_gate_unreachable(env: Env) -> None:
    code, decision = run_hook(env, hook_payload("ls /srv"))
    assert (code, decision["verdict"], decision["code"]) == (
        4,
        "deny",
        "gate-unverified (no-pinned-key)",
    )
    os.makedirs(os.path.join(env["REDLINE_HOME"], "service"))
    key = base64.b64encode(b"k" * 32).decode()
    start = time.monotonic()
    decision_value = decide_via_service(
        "Bash", {"command": "ls"}, home=env["REDLINE_HOME"], key=key
    )
    elapsed = time.monotonic() - start
    assert (decision_value.verdict, decision_value.code) == (Verdict.DENY, "gate-unreachable")
    assert elapsed < 1.0
    code, decision = run_hook(env, hook_payload("ls /srv"), "--service-key", key)
    assert (code, decision["code"]) == (4, "gate-unreachable")


def test_an_unknown_key_is_gate_unverified(
    env: Env, make_service: Callable[..., ServiceProcess]
) -> None:
    make_service()
    other = base64.b64encode(b"x" * 32).decode()
    code, decision = run_hook(env, hook_payload("ls /srv"), "--service-key", other)
    assert (code, decision["verdict"], decision["code"]) == (
        4,
        "deny",
        "gate-unverified (unknown-key)",
    )


def test_files_and_sockets_are_the_owners(
    env: Env, make_service: Callable[..., ServiceProcess]
) -> None:
    service = make_service()
    paths = service.paths

    def mode(path: str) -> int:
        return os.stat(path).st_mode & 0o777

    assert mode(paths.private_key) == 0o600
    assert mode(paths.owner_dir) == 0o700
    assert mode(paths.owner_socket) == 0o600
    assert mode(paths.hook_socket) == 0o600
    assert mode(paths.public_key) == 0o600
    assert mode(paths.service_dir) == 0o700
    assert mode(paths.home) == 0o700


@pytest.mark.postgres
def test_postgres_store_behaves_the_same(
    env: Env, make_service: Callable[..., ServiceProcess], pg_url: str
) -> None:
    service = make_service("--store", pg_url)
    hook = HookProcess(env, hook_payload(ASKED))
    [held] = service.wait_pending(1)
    assert service.owner("POST", f"/v1/held/{held['id']}/approve", {"scope": "session"})[0] == 200
    assert hook.result()[1]["code"] == "approved"
    # approved for the session: the same call now passes at once
    code, decision = run_hook(env, hook_payload(ASKED))
    assert (code, decision["verdict"]) == (0, "allow")
    [outcome] = outcomes(env, pg_url)
    assert (outcome.outcome, outcome.channel) == ("approved", "terminal")


def test_the_agents_group_may_use_the_hook_socket_only(
    env: Env, make_service: Callable[..., ServiceProcess]
) -> None:
    import grp

    group = grp.getgrgid(os.getgid()).gr_name
    service = make_service("--agent-group", group)
    paths = service.paths
    assert os.stat(paths.home).st_mode & 0o777 == 0o710
    assert os.stat(paths.service_dir).st_mode & 0o777 == 0o750
    assert os.stat(paths.hook_socket).st_mode & 0o777 == 0o660
    assert os.stat(paths.public_key).st_mode & 0o777 == 0o640
    assert os.stat(paths.hook_socket).st_gid == os.getgid()
    assert os.stat(paths.owner_dir).st_mode & 0o777 == 0o700
    assert os.stat(paths.owner_socket).st_mode & 0o777 == 0o600
    code, decision = run_hook(env, hook_payload("ls /srv"))
    assert (code, decision["verdict"]) == (0, "allow")
    # A hook run by the owner leaves what the agent's group must reach as it was.
    assert os.stat(paths.home).st_mode & 0o777 == 0o710
    assert os.stat(paths.hook_socket).st_mode & 0o777 == 0o660
