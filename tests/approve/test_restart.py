"""`kill -9` of the service with 50 calls held: after a restart every one is
still there and answerable, none is lost, none is answered twice, and the
hooks that were waiting (through the outage) get their answers."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

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
