from __future__ import annotations

import hashlib
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redline.audit.chain import (
    GENESIS,
    Break,
    BreakKind,
    Verification,
    encode,
    entry_hash,
    payload_digest,
    seal,
    verify,
)
from redline.audit.entry import Entry, Head, Kind, Link, Record


def make_record(n: int, **fields: Any) -> Record:
    base: dict[str, Any] = {
        "kind": Kind.DECISION,
        "time": f"2025-06-01T12:{n % 60:02d}:00.000000Z",
        "session": "s1",
        "tool": "Bash",
        "args": f'{{"command":"ls /tmp/{n}"}}',
        "verdict": "allow",
    }
    return Record(**(base | fields))


def build(n: int) -> list[Link]:
    links: list[Link] = []
    prev = GENESIS
    for seq in range(1, n + 1):
        entry = seal(make_record(seq), seq, prev)
        links.append(entry.link)
        prev = entry.hash
    return links


def rechain(links: list[Link], start: int) -> list[Link]:
    """What a careful forger does: renumber and re-hash from index `start` on."""
    out = links[:start]
    prev = out[-1][2] if out else GENESIS
    for i, (_, _, _, body) in enumerate(links[start:], start=start + 1):
        digest = entry_hash(i, prev, body)
        out.append((i, prev, digest, body))
        prev = digest
    return out


def test_canonical_encoding_is_pinned() -> None:
    record = Record(kind=Kind.DECISION, time="2025-06-01T12:00:00.000000Z", tool="Bash")
    body = record.to_body()
    assert body == (
        '{"agent":null,"approved_at":null,"approved_by":null,"args":{},"channel":null,'
        '"code":null,"context":null,"hardline":false,"kind":"decision","outcome":null,'
        '"payload_sha256":null,"reason":"","ref":null,"rules":[],"session":null,'
        '"time":"2025-06-01T12:00:00.000000Z","tool":"Bash","verdict":null}'
    )
    assert encode(1, GENESIS, body) == f'["redline-log/1",1,"{GENESIS}",{body}]'.encode()
    assert entry_hash(1, GENESIS, body) == hashlib.sha256(encode(1, GENESIS, body)).hexdigest()


def test_body_round_trips() -> None:
    record = make_record(3, rules=("fs.rm-recursive", "x"), code="c", hardline=True, ref=None)
    assert Record.from_body(record.to_body()) == record
    outcome = Record(
        kind=Kind.OUTCOME,
        time="2025-06-01T12:00:00.000000Z",
        ref=7,
        outcome="approved",
        approved_by="alice",
        approved_at="2025-06-01T12:00:01.000000Z",
        channel="telegram",
    )
    assert Record.from_body(outcome.to_body()) == outcome


def test_damaged_body_raises_value_error() -> None:
    with pytest.raises(ValueError, match="cannot read a log entry body"):
        Record.from_body('{"kind": "nope"}')


def test_seal_chains_entries() -> None:
    first = seal(make_record(1), 1, GENESIS)
    second = seal(make_record(2), 2, first.hash)
    assert second.prev == first.hash
    assert Entry.from_link(second.link) == second


def test_intact_chain_verifies() -> None:
    links = build(5)
    assert verify(links) == Verification(5, Head(5, links[-1][2]))


def test_empty_log_verifies() -> None:
    assert verify([]) == Verification(0, None)


def test_edit_is_found() -> None:
    links = build(5)
    seq, prev, digest, body = links[2]
    links[2] = (seq, prev, digest, body.replace("ls /tmp/3", "ls /tmp/X"))
    result = verify(links)
    assert result.broken == Break(3, BreakKind.EDITED, "its contents do not match its hash")
    assert result.count == 2


def test_edit_with_rehash_is_found_at_the_edited_entry() -> None:
    links = build(5)
    seq, prev, _, body = links[2]
    body = body.replace("ls /tmp/3", "ls /tmp/X")
    links[2] = (seq, prev, entry_hash(seq, prev, body), body)
    assert verify(links).broken == Break(
        3, BreakKind.EDITED, "entry 4 was chained to a different entry 3: edited and re-hashed"
    )


def test_deletion_leaving_a_gap_is_found() -> None:
    links = build(5)
    del links[1]
    assert verify(links).broken == Break(2, BreakKind.DELETED, "entry 2 is missing")


def test_deletion_of_several_is_named_as_a_range() -> None:
    links = build(6)
    del links[1:3]
    assert verify(links).broken == Break(2, BreakKind.DELETED, "entries 2 to 3 are missing")


def test_deletion_with_renumbering_is_found() -> None:
    links = build(5)
    del links[1]
    links = [(i, prev, digest, body) for i, (_, prev, digest, body) in enumerate(links, 1)]
    assert verify(links).broken == Break(
        2, BreakKind.DELETED, "it was chained after an entry that is no longer in the log"
    )


def test_deleting_the_first_entries_is_found() -> None:
    links = rechain(build(5)[2:], 0)
    forged = [(seq, "f" * 64 if seq == 1 else prev, d, b) for seq, prev, d, b in links]
    assert verify(forged).broken == Break(
        1, BreakKind.DELETED, "it was chained after an entry that is no longer in the log"
    )


def test_insertion_is_found() -> None:
    links = build(5)
    prev = links[1][2]
    body = make_record(99).to_body()
    forged = (3, prev, entry_hash(3, prev, body), body)
    renumbered = [(seq + 1, p, d, b) for seq, p, d, b in links[2:]]
    result = verify([*links[:2], forged, *renumbered])
    assert result.broken == Break(
        3, BreakKind.INSERTED, "entry 3 was put into the chain after it was written"
    )


def test_reorder_is_found() -> None:
    links = build(5)
    (a_seq, *a), (b_seq, *b) = links[1], links[2]
    links[1] = (a_seq, b[0], b[1], b[2])
    links[2] = (b_seq, a[0], a[1], a[2])
    assert verify(links).broken == Break(
        2, BreakKind.REORDERED, "it was chained after entry 3, which now comes after it"
    )


def test_out_of_order_seq_is_a_reorder() -> None:
    links = build(3)
    assert verify([links[0], links[2], links[1]]).broken == Break(
        2, BreakKind.DELETED, "entry 2 is missing"
    )
    assert verify([links[0], links[1], links[0]]).broken == Break(
        1, BreakKind.REORDERED, "it comes after entry 2"
    )


def test_truncation_is_found_against_a_saved_head() -> None:
    links = build(5)
    head = Head(5, links[-1][2])
    assert verify(links, head).ok
    assert verify(links[:3], head).broken == Break(
        4,
        BreakKind.TRUNCATED,
        "the log ends at entry 3 but the saved head is missing (the saved head is entry 5)",
    )


def test_truncation_is_found_against_a_bare_hash() -> None:
    links = build(5)
    head = Head(None, links[-1][2])
    assert verify(links, head).ok
    assert verify(links[:4], head).broken == Break(
        5, BreakKind.TRUNCATED, "the log ends at entry 4 but the saved head is missing"
    )


def test_older_head_still_verifies_after_appends() -> None:
    links = build(5)
    assert verify(links, Head(3, links[2][2])).ok


def test_rewrite_past_a_saved_head_is_found() -> None:
    links = build(5)
    head = Head(5, links[-1][2])
    forged = rechain([*links[:2], (3, "", "", make_record(77).to_body()), *links[3:]], 2)
    assert verify(forged, head).broken == Break(
        5,
        BreakKind.EDITED,
        f"its hash {forged[4][2][:12]}… is not the saved head's {head.hash[:12]}…: "
        "the log was rewritten at or before it",
    )


def test_rewrite_and_truncate_before_a_saved_head_is_found() -> None:
    links = build(5)
    head = Head(3, links[2][2])
    forged = rechain([*links[:2], (3, "", "", make_record(77).to_body())], 2)
    assert verify(forged, head).broken == Break(
        3,
        BreakKind.EDITED,
        f"its hash {forged[2][2][:12]}… is not the saved head's {head.hash[:12]}…: "
        "the log was rewritten at or before it",
    )


def test_head_parse_accepts_all_forms() -> None:
    digest = "ab" * 32
    expected = Head(12, digest)
    assert Head.parse(f"12:{digest}") == expected
    assert Head.parse(f'{{"seq": 12, "hash": "{digest}", "time": "x"}}\n') == expected
    assert Head.parse(digest.upper()) == Head(None, digest)
    assert str(expected) == f"12:{digest}"


@pytest.mark.parametrize("text", ["", "12:xyz", "x:" + "a" * 64, "{", '{"seq": 1}', "a" * 63])
def test_head_parse_rejects_junk(text: str) -> None:
    with pytest.raises(ValueError, match="cannot read a log head from"):
        Head.parse(text)


def test_payload_digest_is_sha256_of_utf8() -> None:
    assert payload_digest("é") == hashlib.sha256("é".encode()).hexdigest()


def test_outcome_record_kind_is_kept() -> None:
    entry = seal(make_record(1)._replace(kind=Kind.OUTCOME, ref=1, outcome="rejected"), 1, GENESIS)
    assert entry.to_json()["kind"] == "outcome"
    assert entry.to_json()["ref"] == 1


@given(
    index=st.integers(min_value=0, max_value=5),
    position=st.integers(min_value=0, max_value=10_000),
    char=st.characters(codec="ascii"),
)
def test_any_body_edit_fails_verify(index: int, position: int, char: str) -> None:
    links = build(6)
    seq, prev, digest, body = links[index]
    at = position % len(body)
    edited = body[:at] + char + body[at + 1 :]
    if edited == body:
        return
    links[index] = (seq, prev, digest, edited)
    result = verify(links)
    assert result.broken is not None
    assert result.broken.seq == seq
