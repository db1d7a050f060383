"""Pairing: one-time codes with an expiry, a rate limit per sender, a lockout
after repeated wrong codes; paired senders listed and revoked."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator
from pathlib import Path

import pytest

from redline.approve.db import Database
from redline.pairing import (
    CHANNEL_BURN_AFTER,
    CODE_TTL_S,
    LOCKOUT_AFTER,
    LOCKOUT_S,
    RATE_LIMIT,
    Paired,
    Pairing,
    Result,
    normalise,
)

KEY = b"k" * 32


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def pairing(request: pytest.FixtureRequest, tmp_path: Path, clock: Clock) -> Iterator[Pairing]:
    if request.param == "sqlite":
        url = f"sqlite://{tmp_path}/log.sqlite3"
    else:
        url = request.getfixturevalue("pg_url")
    db = Database(url)
    yield Pairing(db, KEY, clock)
    db.close()


def test_the_right_code_pairs_once(pairing: Pairing, clock: Clock) -> None:
    code, expires = pairing.issue("telegram")
    assert expires == clock.now + CODE_TTL_S
    assert pairing.redeem("telegram", "42", code.lower(), label="ana") is Result.PAIRED
    assert pairing.is_paired("telegram", "42")
    assert pairing.paired() == [Paired("telegram", "42", "ana", clock.now)]
    assert pairing.redeem("telegram", "43", code) is Result.EXPIRED


def test_unpaired_senders_are_denied(pairing: Pairing) -> None:
    assert not pairing.is_paired("telegram", "42")
    assert pairing.paired("telegram") == []


def test_a_code_expires(pairing: Pairing, clock: Clock) -> None:
    code, _ = pairing.issue("telegram")
    clock.now += CODE_TTL_S + 1
    assert pairing.redeem("telegram", "42", code) is Result.EXPIRED
    assert not pairing.is_paired("telegram", "42")


def test_a_code_is_for_its_channel(pairing: Pairing) -> None:
    code, _ = pairing.issue("web")
    assert pairing.redeem("telegram", "42", code) is Result.EXPIRED
    assert pairing.redeem("web", "browser", code, remember=False) is Result.PAIRED
    assert pairing.paired() == []


def test_repeated_wrong_codes_lock_the_sender_out(pairing: Pairing, clock: Clock) -> None:
    code, _ = pairing.issue("telegram")
    for _ in range(LOCKOUT_AFTER):
        clock.now += 30
        assert pairing.redeem("telegram", "666", "AAAA-AAAA") is Result.WRONG
    clock.now += 30
    assert pairing.redeem("telegram", "666", code) is Result.LOCKED
    assert not pairing.is_paired("telegram", "666")
    # Another sender still can, and the locked one can again after the lockout.
    assert pairing.redeem("telegram", "42", code) is Result.PAIRED
    clock.now += LOCKOUT_S
    fresh, _ = pairing.issue("telegram")
    assert pairing.redeem("telegram", "666", fresh) is Result.PAIRED


def test_a_sender_is_rate_limited(pairing: Pairing, clock: Clock) -> None:
    code, _ = pairing.issue("telegram")
    assert pairing.redeem("telegram", "7", "AAAA-AAAA") is Result.WRONG
    for _ in range(RATE_LIMIT - 1):
        pairing.redeem("telegram", "7", "BBBB-BBBB", remember=False)
    # Within the minute, even the right code is not looked at.
    assert pairing.redeem("telegram", "7", code) in (Result.RATE_LIMITED, Result.LOCKED)
    assert not pairing.is_paired("telegram", "7")


def test_many_wrong_codes_on_a_channel_burn_its_code(pairing: Pairing, clock: Clock) -> None:
    code, _ = pairing.issue("web")
    for sender in range(CHANNEL_BURN_AFTER):
        assert pairing.redeem("web", f"s{sender}", "AAAA-AAAA") is Result.WRONG
    assert pairing.redeem("web", "owner", code) is Result.EXPIRED


def test_a_paired_sender_can_be_revoked(pairing: Pairing) -> None:
    code, _ = pairing.issue("telegram")
    pairing.redeem("telegram", "42", code)
    assert pairing.revoke("telegram", "42")
    assert not pairing.is_paired("telegram", "42")
    assert not pairing.revoke("telegram", "42")
    assert pairing.paired() == []


def _stored(pairing: Pairing, channel: str) -> list[str]:
    return [str(row[0]) for row in pairing.db.fetch(
        "SELECT digest FROM pair_codes WHERE channel = ?", (channel,)
    )]  # fmt: skip


def test_a_code_is_stored_under_the_install_key_never_as_a_bare_hash(
    pairing: Pairing,
) -> None:
    code, _ = pairing.issue("web")
    bare = hashlib.sha256(normalise(code).encode()).hexdigest()
    keyed = hmac.new(KEY, normalise(code).encode(), hashlib.sha256).hexdigest()
    assert _stored(pairing, "web") == [f"hmac-sha256:{keyed}"]
    assert bare not in _stored(pairing, "web")[0]


def test_a_code_is_good_only_under_the_key_it_was_stored_with(
    pairing: Pairing, clock: Clock
) -> None:
    code, _ = pairing.issue("web")
    other = Pairing(pairing.db, b"o" * 32, clock)
    assert other.redeem("web", "owner", code) is Result.WRONG
    assert pairing.redeem("web", "owner", code) is Result.PAIRED


def test_a_code_stored_the_old_way_is_never_honoured(pairing: Pairing, clock: Clock) -> None:
    """A bare SHA-256 row (from before keyed codes) neither pairs nor survives a start."""
    bare = hashlib.sha256(b"ABCDEFGH").hexdigest()
    pairing.db.execute(
        "INSERT INTO pair_codes (channel, digest, expires) VALUES (?, ?, ?)",
        ("web", bare, clock.now + 60),
    )
    assert pairing.redeem("web", "owner", "ABCD-EFGH") is Result.EXPIRED
    assert pairing.redeem("web", "owner", bare) is Result.EXPIRED
    Pairing(pairing.db, KEY, clock)
    assert _stored(pairing, "web") == []


def test_a_short_key_is_refused(pairing: Pairing) -> None:
    with pytest.raises(ValueError, match="at least 16 bytes"):
        Pairing(pairing.db, b"short")
