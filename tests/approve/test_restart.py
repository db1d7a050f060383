"""`kill -9` of the service with 50 calls held: after a restart every one is
still there and answerable, none is lost, none is answered twice, and the
hooks that were waiting (through the outage) get their answers."""

from __future__ import annotations

import signal
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
from servicekit import Env, HookProcess, ServiceProcess, hook_payload, outcomes

HELD = 50


@pytest.mark.slow
def test_held_calls_survive_kill_9(env: Env, make_service: Callable[..., ServiceProcess]) -> None:
    first = make_service("--timeout", "600")
    hooks = {
        f"git push --force origin b{i}": HookProcess(
            env, hook_payload(f"git push --force origin b{i}", session=f"s{i}")
        )
        for i in range(HELD)
    }
    before = {row["id"]: row["shown"] for row in first.wait_pending(HELD)}
    assert sorted(before.values()) == sorted(hooks)

    first.kill9()
    assert all(hook.running() for hook in hooks.values())

    second = make_service("--timeout", "600")
    after = {row["id"]: row["shown"] for row in second.pending()}
    assert after == before

    expected: dict[str, str] = {}
    for n, (held_id, command) in enumerate(sorted(after.items())):
        verb = "approve" if n % 2 == 0 else "reject"
        status, _ = second.owner("POST", f"/v1/held/{held_id}/{verb}", {"reason": "no"})
        assert status == 200
        again, _ = second.owner("POST", f"/v1/held/{held_id}/approve", {})
        assert again == 409
        expected[command] = "approved" if verb == "approve" else "rejected"

    got = {command: hook.result()[1]["code"] for command, hook in hooks.items()}
    assert got == expected
    assert second.pending() == []
    logged = outcomes(env)
    assert len(logged) == HELD
    assert Counter(record.ref for record in logged).most_common(1)[0][1] == 1
    assert Counter(record.outcome for record in logged) == Counter(expected.values())


def test_a_stop_ends_the_long_polls_in_flight(
    env: Env, make_service: Callable[..., ServiceProcess]
) -> None:
    """uvicorn waits for every request in flight before it stops; a page's
    or a hook's 20-second poll must not hold a `systemctl stop` up."""
    service = make_service("--timeout", "600")
    hook = HookProcess(env, hook_payload("git push --force origin main", session="stop"))
    [held] = service.wait_pending(1)
    with ThreadPoolExecutor(1) as pool:
        status, reply = service.owner("GET", "/v1/changes?since=-1&wait=0")
        assert status == 200
        # The page's poll: it waits while nothing changes.
        poll = pool.submit(service.owner, "GET", f"/v1/changes?since={reply['version']}&wait=50")
        assert not poll.done()
        assert service.proc is not None
        service.proc.send_signal(signal.SIGTERM)
        # Well inside the poll's 50 s: both the page's poll and the hook's end.
        # (uvicorn raises the signal again once it has stopped)
        assert service.proc.wait(timeout=25) in (0, -signal.SIGTERM)
        assert poll.result(timeout=5)[0] == 200
    # The waiting hook is still held, and gets its answer from the next service.
    again = make_service("--timeout", "600")
    assert [row["id"] for row in again.pending()] == [held["id"]]
    assert again.owner("POST", f"/v1/held/{held['id']}/approve", {})[0] == 200
    assert hook.result()[1]["code"] == "approved"
