"""A batch of the PostgreSQL log in one statement: the schema's `append_entries_v1`.

The function locks the entries table (`SHARE ROW EXCLUSIVE`, as every
appender of every release does), reads the head, chains and inserts each
body and keeps its payload, all on the server: the lock is held for the
server's own work and its commit, never across a network round trip or a
client's wait for its turn at the GIL. It hashes with `chain.encode`'s
formula (`["redline-log/1",SEQ,"PREV",BODY]`; bodies are canonical JSON, ASCII
only, so the bytes are the same), and `checked` hashes every returned entry
again on the client: a batch whose links or hashes are not the chain's own is
refused (`LogUnavailable`, a deny), so a drifted or altered function can never
hand out an answer for a wrongly chained entry.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from redline.audit.chain import GENESIS, VERSION, entry_hash
from redline.audit.entry import Entry, Record, format_time
from redline.audit.store import LogUnavailable, Payload

NAME = "append_entries_v1"
"""A change to the function's body needs a new name: a schema keeps the body
it was given, and replicas of several releases may share it."""
SIGNATURE = f"{NAME}(text[],boolean,text[],text[],text[],text)"
"""The function as `to_regprocedure` names it (its schema put before)."""

DEFINITION = f"""CREATE OR REPLACE FUNCTION {{schema}}.{NAME}(
        bodies text[], nowait boolean, kept_sha text[], kept_body text[],
        kept_expires text[], purge_before text)
    RETURNS TABLE (out_seq bigint, out_prev text, out_hash text)
    LANGUAGE plpgsql AS $$
    DECLARE
        seqs bigint[] := '{{{{}}}}';
        prevs text[] := '{{{{}}}}';
        hashes text[] := '{{{{}}}}';
        s bigint;
        p text;
    BEGIN
        IF nowait THEN
            LOCK TABLE {{schema}}.entries IN SHARE ROW EXCLUSIVE MODE NOWAIT;
        ELSE
            LOCK TABLE {{schema}}.entries IN SHARE ROW EXCLUSIVE MODE;
        END IF;
        SELECT e.seq, e.hash INTO s, p FROM {{schema}}.entries e ORDER BY e.seq DESC LIMIT 1;
        IF NOT FOUND THEN
            s := 0;
            p := '{GENESIS}';
        END IF;
        FOR i IN 1 .. coalesce(array_length(bodies, 1), 0) LOOP
            s := s + 1;
            seqs[i] := s;
            prevs[i] := p;
            p := encode(sha256(convert_to(
                '["{VERSION}",' || s || ',"' || p || '",' || bodies[i] || ']', 'UTF8')), 'hex');
            hashes[i] := p;
        END LOOP;
        -- One statement for the whole batch: a row at a time cost twice as much.
        INSERT INTO {{schema}}.entries (seq, prev, hash, body)
            SELECT * FROM unnest(seqs, prevs, hashes, bodies);
        IF purge_before IS NOT NULL THEN  -- given when a payload is kept
            INSERT INTO {{schema}}.payloads (seq, sha256, body, expires_at)
                SELECT * FROM unnest(seqs, kept_sha, kept_body, kept_expires) k(s, sha, b, e)
                WHERE k.sha IS NOT NULL;
            DELETE FROM {{schema}}.payloads WHERE expires_at <= purge_before;
        END IF;
        RETURN QUERY SELECT * FROM unnest(seqs, prevs, hashes);
    END $$"""  # noqa: S608 - our own constants; the schema is checked (`postgres._NAME`)
"""The function, for `str.format(schema=...)` with a checked schema name."""

CALL = "SELECT out_seq, out_prev, out_hash FROM {append}(%b, %b, %b, %b, %b, %b)"
"""The call, for `psycopg.sql` with the function's qualified name as `append`."""

Params = tuple[list[str], bool, list[str | None], list[str | None], list[str | None], str | None]
Row = tuple[int, str, str]


class Batch:
    """What one call of the function sends, and what it must give back."""

    __slots__ = ("bodies", "params", "records")

    def __init__(self, items: Sequence[tuple[Record, Payload | None]], *, wait: bool) -> None:
        self.records: list[Record] = []
        self.bodies: list[str] = []
        sha: list[str | None] = []
        text: list[str | None] = []
        expires: list[str | None] = []
        for record, payload in items:
            if payload is not None:
                # The record commits to its payload, which may be purged later.
                record = record._replace(payload_sha256=payload.sha256)
            self.records.append(record)
            self.bodies.append(record.to_body())
            sha.append(None if payload is None else payload.sha256)
            text.append(None if payload is None else payload.body)
            expires.append(None if payload is None else payload.expires_at)
        # Expired payloads go when a new one is kept, as on SQLite.
        purge = format_time(datetime.now(UTC)) if any(sha) else None
        self.params: Params = (self.bodies, not wait, sha, text, expires, purge)

    def entries(self, rows: Sequence[Row], where: str) -> list[Entry]:
        """The committed batch as entries, once each is found chained to the
        one before it and hashed as `chain` hashes; `LogUnavailable` if not."""
        found: list[Entry] = []
        prev = rows[0][1] if rows else None
        for (seq, link_prev, digest), body, record in zip(
            rows, self.bodies, self.records, strict=False
        ):
            if link_prev != prev or digest != entry_hash(seq, link_prev, body):
                break
            found.append(Entry(seq, link_prev, digest, body, record))
            prev = digest
        if len(found) != len(self.bodies) or len(rows) != len(self.bodies):
            raise LogUnavailable(
                f"approval log `{where}` chained a batch unlike the chain's own hashing",
                "run `redline log verify` and check the schema's `append_entries_v1` function",
            )
        return found
