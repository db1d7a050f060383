from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from redline.audit.entry import Kind, Record, canonical_json
from redline.audit.recorder import (
    MAX_ARG_CHARS,
    LogUnavailable,
    Outcome,
    deny_log_unavailable,
    open_log,
    outcome_record,
    record_decision,
)
from redline.audit.store import Payload, Store, verify_store
from redline.decision import Decision, RuleHit, Severity, Span, Verdict

MakeStore = Callable[[], Store]
NOW = datetime(2030, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
HIT = RuleHit(
    "fs.rm-recursive",
    "recursive delete",
    Severity.DANGEROUS,
    "destructive",
    Span(0, 9),
    "use trash",
)


def test_allowed_call_is_recorded_without_payload(make_store: MakeStore) -> None:
    store = make_store()
    seq = record_decision(
        store,
        session="s1",
        context="interactive",
        agent="claude-code",
        tool="Bash",
        args={"command": "ls -la", "workdir": "/home/u"},
        decision=Decision(Verdict.ALLOW, reason="no rule matched"),
        now=NOW,
        environ={},
    )
    assert seq == 1
    entry = store.get(seq)
    assert entry is not None
    assert entry.record == Record(
        kind=Kind.DECISION,
        time="2030-01-02T03:04:05.678901Z",
        session="s1",
        context="interactive",
        agent="claude-code",
        tool="Bash",
        args='{"command":"ls -la","workdir":"/home/u"}',
        verdict="allow",
        reason="no rule matched",
    )
    assert store.payload(seq) is None


def test_denied_call_keeps_its_payload_redacted(make_store: MakeStore) -> None:
    store = make_store()
    script = (
        "python3 - <<'EOF'\n"
        + "import os\n" * 1000
        + "TOKEN = 'sk-ant-api03-"
        + "a" * 40
        + "'\nEOF"
    )
    decision = Decision(
        Verdict.DENY,
        hits=(HIT,),
        reason="interpreter on inline code; key sk-ant-api03-" + "b" * 40,
        hardline=True,
        code="inline-code",
        context="gateway",
    )
    seq = record_decision(
        store,
        session=None,
        context=None,
        agent=None,
        tool="terminal",
        args={"command": script, "password": "hunter2"},
        decision=decision,
        now=NOW,
        environ={"MY_SECRET_TOKEN": "import os"},
    )
    entry = store.get(seq)
    assert entry is not None
    record = entry.record
    assert (record.verdict, record.rules, record.code, record.hardline, record.context) == (
        "deny",
        ("fs.rm-recursive",),
        "inline-code",
        True,
        "gateway",
    )
    assert record.reason == "interpreter on inline code; key [REDACTED:anthropic]"
    payload = store.payload(seq, now=NOW)
    assert payload is not None
    assert payload.expires_at == "2030-01-09T03:04:05.678901Z"
    assert payload.sha256 == record.payload_sha256
    kept = json.loads(payload.body)
    full = kept["command"]
    assert kept["password"] == "[REDACTED:secret-field]"
    assert full.count("[REDACTED:env:MY_SECRET_TOKEN]") == 1000
    assert "[REDACTED:anthropic]" in full
    assert "sk-ant-" not in payload.body
    cut = f"{full[:MAX_ARG_CHARS]}…[{len(full) - MAX_ARG_CHARS} more chars]"
    assert record.arguments() == {"command": cut, "password": "[REDACTED:secret-field]"}
    assert verify_store(store).ok


def test_explicit_payload_and_ttl(make_store: MakeStore) -> None:
    store = make_store()
    seq = record_decision(
        store,
        session="s",
        context="cron",
        agent="hermes",
        tool="execute_code",
        args={"code": "print(1)"},
        decision=Decision(Verdict.ASK, code="execute-code-unbound"),
        payload="print(1)  # password=abcdefgh",
        now=NOW,
        payload_ttl=timedelta(hours=1),
        environ={},
    )
    assert store.payload(seq, now=NOW) == Payload.of(
        "print(1)  # password=[REDACTED:secret-env]", NOW + timedelta(hours=1)
    )


def test_odd_values_are_stored_as_text(make_store: MakeStore) -> None:
    store = make_store()
    seq = record_decision(
        store,
        session="s\x00x",
        context=None,
        agent=None,
        tool="odd",
        args={"path": Path("/tmp/x"), "n": float("nan"), "b": b"\xff", "t": (1, 2), 3: "k"},  # type: ignore[dict-item]
        decision=Decision(Verdict.ALLOW),
        now=NOW,
        environ={},
    )
    entry = store.get(seq)
    assert entry is not None
    assert entry.record.session == "s\ufffdx"
    assert entry.record.args == canonical_json(
        {"path": "/tmp/x", "n": "nan", "b": "\ufffd", "t": [1, 2], "3": "k"}
    )


def test_outcome_references_its_decision(make_store: MakeStore) -> None:
    store = make_store()
    ref = record_decision(
        store,
        session="s1",
        context="gateway",
        agent="hermes",
        tool="terminal",
        args={"command": "git push --force"},
        decision=Decision(Verdict.ASK, hits=(HIT,)),
        now=NOW,
        environ={},
    )
    seq = store.append(
        outcome_record(
            ref=ref,
            outcome=Outcome.APPROVED,
            approved_by="telegram:42",
            approved_at=NOW + timedelta(seconds=30),
            channel="telegram",
            session="s1",
            tool="terminal",
            now=NOW + timedelta(seconds=31),
        )
    ).seq
    entry = store.get(seq)
    assert entry is not None
    assert entry.record == Record(
        kind=Kind.OUTCOME,
        time="2030-01-02T03:04:36.678901Z",
        session="s1",
        tool="terminal",
        verdict="allow",
        ref=ref,
        outcome="approved",
        approved_by="telegram:42",
        approved_at="2030-01-02T03:04:35.678901Z",
        channel="telegram",
    )
    rejected = store.append(outcome_record(ref=ref, outcome=Outcome.TIMEOUT, now=NOW)).seq
    assert store.get(rejected).record.verdict == "deny"  # type: ignore[union-attr]


def test_deny_log_unavailable() -> None:
    err = LogUnavailable("approval log `/x` cannot be used (disk full)", "free some space")
    assert deny_log_unavailable(err) == Decision(
        Verdict.DENY,
        reason="the approval log cannot be written: approval log `/x` cannot be used (disk full)",
        repair="free some space",
        code="log-unavailable",
    )


def test_unwritable_log_raises_log_unavailable(tmp_path: Path) -> None:
    (tmp_path / "home").write_text("a file where the directory should be")
    with pytest.raises(LogUnavailable) as caught:
        open_log(environ={"REDLINE_HOME": str(tmp_path / "home")})
    decision = deny_log_unavailable(caught.value)
    assert decision.verdict == Verdict.DENY
    assert decision.code == "log-unavailable"


def test_open_log_prefers_url_then_env_then_home(tmp_path: Path) -> None:
    env = {"REDLINE_HOME": str(tmp_path / "home"), "REDLINE_STORE": f"sqlite://{tmp_path}/env.db"}
    with open_log(f"sqlite://{tmp_path}/arg.db", environ=env) as store:
        assert store.url == f"sqlite://{tmp_path}/arg.db"
    with open_log(environ=env) as store:
        assert store.url == f"sqlite://{tmp_path}/env.db"
    with open_log(environ={"REDLINE_HOME": str(tmp_path / "home")}) as store:
        assert store.url == f"sqlite://{tmp_path}/home/log.sqlite3"
