"""One-time tickets from a hook to `redline run`."""

from __future__ import annotations

from pathlib import Path

from redline.sandbox.tickets import TTL_S, consume, issue


def test_a_ticket_holds_once_and_only_for_its_command(tmp_path: Path) -> None:
    nonce = issue(str(tmp_path), "git push --force origin main", now=1000.0)
    assert not consume(str(tmp_path), nonce, "git push --force origin dev", now=1001.0)
    nonce = issue(str(tmp_path), "git push --force origin main", now=1000.0)
    assert consume(str(tmp_path), nonce, "git push --force origin main", now=1001.0)
    assert not consume(str(tmp_path), nonce, "git push --force origin main", now=1001.0)
    assert list((tmp_path / "tickets").iterdir()) == []


def test_an_expired_or_malformed_ticket_does_not_hold(tmp_path: Path) -> None:
    nonce = issue(str(tmp_path), "make", now=1000.0)
    assert not consume(str(tmp_path), nonce, "make", now=1000.0 + TTL_S + 1)
    for bad in ("", "../../etc/passwd", "x" * 32, "ab"):
        assert not consume(str(tmp_path), bad, "make")


def test_tickets_never_used_are_swept_when_a_new_one_is_made(tmp_path: Path) -> None:
    import os

    old = issue(str(tmp_path), "make")
    os.utime(tmp_path / "tickets" / old, (1000.0, 1000.0))
    new = issue(str(tmp_path), "make")
    assert [p.name for p in (tmp_path / "tickets").iterdir()] == [new]
