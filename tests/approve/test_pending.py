"""The pending table on both backends: an answer wins once, and an answer
never beats the deadline (nor the timeout an answer)."""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from servicekit import Env, HookProcess, ServiceProcess, hook_payload

from redline.approve.db import Database
from redline.approve.pending import Held, Kind, PendingTable, State
from redline.approve.terminal import describe, prompt
from redline.audit.entry import Head


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def table(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[PendingTable]:
    if request.param == "sqlite":
        url = f"sqlite://{tmp_path}/log.sqlite3"
    else:
        url = request.getfixturevalue("pg_url")
    db = Database(url)
    yield PendingTable(db)
    db.close()


def make_held(held_id: str = "h1", deadline: float = 100.0) -> Held:
    return Held(
        id=held_id,
        kind=Kind.CALL,
        created=1.0,
        deadline=deadline,
        nonce="n" * 32,
        call_hash="c" * 64,
        ref=7,
        session="s1",
        agent="generic",
        tool="Bash",
        context="interactive",
        call='{"args": {"command": "git push -f"}, "cwd": "/srv", "tool": "Bash"}',
        shown="git push -f",
        decision='{"rules": ["vcs.push-force"], "reason": "force push"}',
    )


def test_a_held_call_is_stored_whole(table: PendingTable) -> None:
    held = make_held()
    table.insert(held)
    assert table.get("h1") == held
    assert table.waiting() == [held]


def test_the_first_answer_wins(table: PendingTable) -> None:
    held = make_held()
    table.insert(held)
    first = table.resolve(held, State.APPROVED, now=10.0, by="ana", channel="web", scope="once")
    assert first is not None and first.state is State.APPROVED
    assert table.resolve(held, State.REJECTED, now=11.0, by="bo", channel="telegram") is None
    assert table.get("h1") == first
    assert table.waiting() == []
    assert table.answered() == [first]


def test_the_deadline_is_a_wall(table: PendingTable) -> None:
    held = make_held(deadline=50.0)
    table.insert(held)
    assert table.resolve(held, State.APPROVED, now=50.0, by="ana", channel="web") is None
    assert table.resolve(held, State.TIMEOUT, now=49.0) is None
    assert table.due(49.0) == []
    assert table.due(50.0) == [held]
    timed_out = table.resolve(held, State.TIMEOUT, now=50.0, channel="timeout")
    assert timed_out is not None and timed_out.state is State.TIMEOUT


def test_notices_are_kept_per_channel(table: PendingTable) -> None:
    table.note("h1", "telegram", "42", "1001")
    table.note("h1", "telegram", "43", "1002")
    assert sorted(table.notices("h1", "telegram")) == [("42", "1001"), ("43", "1002")]
    assert table.notices("h1", "web") == []


def test_describe_shows_the_command_rules_and_workdir() -> None:
    row = make_held().to_json()
    assert describe(row, now=40.0).splitlines() == [
        "h1  call  agent generic  session s1  context interactive  1m00s left",
        "  rules: vcs.push-force",
        "  why:   force push",
        "  in:    /srv",
        "  $ git push -f",
    ]


def test_a_notice_that_never_arrived_is_shown(table: PendingTable) -> None:
    held = make_held()
    table.insert(held)
    table.undelivered("h1", "telegram", "42", "Internal Server Error (500)", 12.0)
    row = table.view(held)
    assert row["undelivered"] == [
        {"channel": "telegram", "chat": "42", "error": "Internal Server Error (500)", "at": 12.0}
    ]
    assert (
        "  not delivered to telegram 42: Internal Server Error (500)"
        in describe(row, now=40.0).splitlines()
    )


def test_redline_pending_shows_where_the_call_runs(
    env: Env, make_service: Callable[..., ServiceProcess]
) -> None:
    import json
    import subprocess
    import sys

    service = make_service()
    hook = HookProcess(env, hook_payload("git push --force origin main"))
    [held] = service.wait_pending(1)
    assert held["cwd"] == "/work/project"
    redline = [sys.executable, "-m", "redline", "pending"]
    shown = subprocess.run(redline, env=env, capture_output=True, text=True, timeout=60, check=True)
    assert "  in:    /work/project" in shown.stdout.splitlines()
    listed = subprocess.run(
        [*redline, "--json"], env=env, capture_output=True, text=True, timeout=60, check=True
    )
    [row] = json.loads(listed.stdout)["pending"]
    assert (row["cwd"], row["undelivered"]) == ("/work/project", [])
    service.owner("POST", f"/v1/held/{held['id']}/reject", {})
    hook.result()


def test_the_terminal_prompt_answers_calls_as_they_arrive(
    env: Env, make_service: Callable[..., ServiceProcess]
) -> None:
    service = make_service()
    hook = HookProcess(env, hook_payload("git push --force origin main"))
    service.wait_pending(1)
    out = io.StringIO()
    end = time.monotonic() + 120
    answered = prompt(
        env["REDLINE_HOME"],
        io.StringIO("s\n"),
        out,
        stop=lambda: time.monotonic() > end or "done" in out.getvalue(),
        wait_s=1.0,
    )
    assert answered == 1
    assert "$ git push --force origin main" in out.getvalue()
    assert hook.result()[1]["code"] == "approved"


def test_a_held_call_is_stored_before_any_channel_hears_of_it(tmp_path: Path) -> None:
    import asyncio

    from servicekit import POLICY

    from redline.approve.paths import ServicePaths
    from redline.approve.service import Service
    from redline.approve.signing import Signer
    from redline.gatekeeper import Gate

    url = f"sqlite://{tmp_path}/log.sqlite3"
    seen: list[Held | None] = []

    class Witness:
        name = "witness"

        async def start(self) -> None: ...

        async def stop(self) -> None: ...

        async def held(self, held: Held) -> None:
            other = Database(url)  # another connection sees only what was committed
            seen.append(PendingTable(other).get(held.id))
            other.close()

        async def settled(self, held: Held) -> None: ...

        async def head(self, head: Head | None, why: str) -> None: ...

    async def run() -> str:
        paths = ServicePaths(str(tmp_path / "redline"))
        signer = Signer.load_or_create(paths)
        service = Service(gate=Gate(POLICY), signer=signer, store_url=url)
        service.channels.append(Witness())
        call = {"tool": "Bash", "args": {"command": "git push -f origin main"}, "cwd": "/srv"}
        reply = await service.decide({**call, "nonce": "n" * 32})
        await asyncio.sleep(0.2)
        await service.stop()
        return str(reply["request"])

    held_id = asyncio.run(run())
    assert [h.id if h else None for h in seen] == [held_id]
