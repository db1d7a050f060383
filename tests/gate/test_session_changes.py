"""A session store tells its listener of every change, in order, and another
store that applies those changes (or takes a snapshot) judges the same."""

from __future__ import annotations

import pytest

from redline.gate.memory import Fingerprint, Outcome
from redline.gate.sessions import Change, SessionStore


def fp(*writes: str) -> Fingerprint:
    return Fingerprint(frozenset(("write", w) for w in writes), frozenset(writes), frozenset(), "x")


def test_every_change_is_told_in_order_and_a_copy_agrees() -> None:
    source, copy = SessionStore(), SessionStore()
    told: list[Change] = []
    source.listener = told.append
    source.grant("s1", [("git.push", ("origin",))])
    source.remember("s1", fp("/etc/hosts"), Outcome.REJECTED)
    source.remember("s2", fp("/etc/passwd"), Outcome.REJECTED)
    source.forget("s2", fp("/etc/passwd"))
    source.end("s3")
    assert [name for name, _ in told] == ["grant", "remember", "remember", "forget", "end"]
    for change in told:
        copy.apply(change)
    for session in ("s1", "s2", "s3"):
        mine, theirs = source.view(session), copy.view(session)
        assert mine.grants == theirs.grants
        assert mine.memory.entries == theirs.memory.entries
    assert copy.view("s1").memory.match(fp("/etc/hosts")) is not None
    assert copy.view("s2").memory.match(fp("/etc/passwd")) is None


def test_a_snapshot_restores_every_session_and_drops_the_rest() -> None:
    source, copy = SessionStore(), SessionStore()
    source.grant("s1", [("git.push", ("origin",))])
    source.remember("s1", fp("/etc/hosts"), Outcome.REJECTED)
    copy.grant("stale", [("x", ())])
    copy.restore(source.snapshot())
    assert copy.sessions() == ("s1",)
    assert copy.view("s1").grants == source.view("s1").grants
    # The copy's memory is its own: a change to the source does not leak into it.
    source.remember("s1", fp("/etc/shadow"), Outcome.REJECTED)
    assert copy.view("s1").memory.match(fp("/etc/shadow")) is None


def test_applying_twice_changes_nothing_more() -> None:
    store = SessionStore()
    change: Change = ("remember", ("s1", fp("/etc/hosts"), Outcome.REJECTED))
    store.apply(change)
    store.apply(change)
    assert len(store.view("s1").memory.entries) == 1


@pytest.mark.parametrize("name", ["view", "snapshot", "restore", "__init__", "listener"])
def test_only_the_four_changes_can_be_applied(name: str) -> None:
    with pytest.raises(ValueError, match="unknown session change"):
        SessionStore().apply((name, ()))
