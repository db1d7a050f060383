from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from redline.audit.entry import Kind, Record
from redline.audit.recorder import Outcome, outcome_record, record_decision
from redline.audit.store import Store, open_store
from redline.cli import exitcodes
from redline.cli.main import main
from redline.decision import Decision, RuleHit, Severity, Verdict

NOW = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)
GHP = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
HIT = RuleHit("fs.rm-recursive", "recursive delete", Severity.DANGEROUS, "destructive")


def decide(store: Store, session: str, tool: str, args: dict[str, str], decision: Decision) -> None:
    record_decision(
        store,
        session=session,
        context="interactive",
        agent="claude-code",
        tool=tool,
        args=args,
        decision=decision,
        now=NOW,
        environ={},
    )


@pytest.fixture
def url(tmp_path: Path) -> str:
    """A log of three decisions and one outcome."""
    url = f"sqlite://{tmp_path}/log.sqlite3"
    with open_store(url) as store:
        decide(store, "s1", "Bash", {"command": "ls -la"}, Decision(Verdict.ALLOW))
        deny = Decision(Verdict.DENY, hits=(HIT,), reason="recursive delete")
        decide(store, "s1", "Bash", {"command": "rm -rf build\necho done"}, deny)
        ask = Decision(Verdict.ASK, code="sensitive-path")
        decide(store, "s2", "Write", {"path": "/etc/hosts", "content": "x"}, ask)
        rejected = outcome_record(
            ref=3, outcome=Outcome.REJECTED, approved_by="alice", channel="web", now=NOW
        )
        store.append(rejected)
    return url


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_show_table(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "log", "--store", url, "show")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].split() == [
        "SEQ",
        "TIME",
        "(UTC)",
        "VERDICT",
        "TOOL",
        "SESSION",
        "RULES",
        "CALL",
    ]
    assert lines[1].split() == ["1", "2030-01-02", "03:04:05", "allow", "Bash", "s1", "ls", "-la"]
    assert lines[2].split()[:7] == [
        "2",
        "2030-01-02",
        "03:04:05",
        "deny",
        "Bash",
        "s1",
        "fs.rm-recursive",
    ]
    assert lines[2].endswith("rm -rf build echo done")
    assert lines[3].split()[5:7] == ["s2", "sensitive-path"]
    assert lines[4].split()[3:] == [
        "rejected",
        "->",
        "#3",
        "by",
        "alice",
        "via",
        "web",
    ]


def test_show_filters_and_json(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "log", "show", "--store", url, "--verdict", "deny", "--kind", "decision", "--json"
    )
    assert code == 0
    [line] = out.splitlines()
    data = json.loads(line)
    assert (data["seq"], data["verdict"], data["rules"], data["args"]) == (
        2,
        "deny",
        ["fs.rm-recursive"],
        {"command": "rm -rf build\necho done"},
    )
    assert set(data) >= {"hash", "prev", "time", "session", "kind", "payload_sha256"}
    for argv, expected in [
        (("--session", "s2"), [3]),
        (("--verdict", "deny"), [2, 4]),
        (("--tool", "Bash"), [1, 2]),
        (("--rule", "fs.rm-recursive"), [2]),
        (("--kind", "outcome"), [4]),
        (("--limit", "2"), [3, 4]),
        (("--since", "2030-01-02T03:04:05"), [1, 2, 3, 4]),
        (("--until", "2030-01-02"), []),
        (("--until", "1h"), []),
    ]:
        code, out, _ = run(capsys, "log", "--store", url, "show", "--json", *argv)
        assert (code, [json.loads(x)["seq"] for x in out.splitlines()]) == (0, expected), argv


def test_show_one_entry_and_its_payload(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "log", "--store", url, "show", "--id", "2")
    assert code == 0
    assert "seq: 2" in out
    assert "verdict: deny" in out
    assert "rules: fs.rm-recursive" in out
    code, out, _ = run(capsys, "log", "--store", url, "show", "--id", "2", "--payload")
    assert (code, out) == (0, "--- command\nrm -rf build\necho done\n")
    code, out, _ = run(capsys, "log", "--store", url, "show", "--id", "2", "--payload", "--json")
    data = json.loads(out)
    assert (data["seq"], json.loads(data["payload"])) == (2, {"command": "rm -rf build\necho done"})


def test_show_errors(url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "log", "--store", url, "show", "--payload")[::2] == (
        exitcodes.ERROR,
        "error: `--payload` needs `--id SEQ`; find the seq with `redline log show`\n",
    )
    assert run(capsys, "log", "--store", url, "show", "--id", "1", "--payload")[::2] == (
        exitcodes.ERROR,
        "error: no payload kept for entry `1`: only blocked calls keep one, "
        "and it is purged when it expires\n",
    )
    assert run(capsys, "log", "--store", url, "show", "--id", "9")[::2] == (
        exitcodes.ERROR,
        "error: no entry `9` in the approval log; list entries with `redline log show`\n",
    )
    missing = tmp_path / "missing.sqlite3"
    code, _, err = run(capsys, "log", "--store", f"sqlite://{missing}", "show")
    assert code == exitcodes.ERROR
    assert err.startswith(f"error: no approval log at `{missing}`;")
    assert not missing.exists()


def test_printing_redacts_what_was_stored_raw(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite://{tmp_path}/raw.sqlite3"
    with open_store(url) as store:
        store.append(
            Record(
                Kind.DECISION,
                "2030-01-02T03:04:05.000000Z",
                tool="Bash",
                args=json.dumps({"command": f"echo {GHP}"}),
            )
        )
    for argv in (("show",), ("show", "--json"), ("show", "--id", "1")):
        code, out, _ = run(capsys, "log", "--store", url, *argv)
        assert code == 0
        assert GHP not in out
        assert "[REDACTED:github]" in out


def test_verify_ok_and_tampered(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "log", "--store", url, "verify")
    assert code == exitcodes.ALLOW
    assert out.startswith(f"ok: 4 entries intact in {url}; head 4:")
    conn = sqlite3.connect(url.removeprefix("sqlite://"))
    conn.execute("DROP TRIGGER entries_no_update")
    conn.execute("UPDATE entries SET body = replace(body, '\"deny\"', '\"allow\"') WHERE seq = 2")
    conn.commit()
    conn.close()
    code, out, _ = run(capsys, "log", "--store", url, "verify")
    assert (code, out) == (
        exitcodes.TAMPERED,
        f"tampered: entry 2 edited: its contents do not match its hash (in {url})\n",
    )
    code, out, _ = run(capsys, "log", "--store", url, "verify", "--json")
    assert code == exitcodes.TAMPERED
    assert json.loads(out) == {
        "ok": False,
        "store": url,
        "count": 1,
        "head": json.loads(out)["head"],
        "broken": {"seq": 2, "kind": "edited", "detail": "its contents do not match its hash"},
    }


def test_head_then_truncate_is_found(
    url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "log", "--store", url, "head")
    assert code == 0
    saved = json.loads(out)
    assert (saved["seq"], saved["store"]) == (4, url)
    head_file = tmp_path / "head.json"
    head_file.write_text(out)
    assert run(capsys, "log", "--store", url, "verify", "--head", str(head_file))[0] == 0
    conn = sqlite3.connect(url.removeprefix("sqlite://"))
    conn.execute("DROP TRIGGER entries_no_delete")
    conn.execute("DELETE FROM entries WHERE seq = 4")
    conn.commit()
    conn.close()
    assert run(capsys, "log", "--store", url, "verify")[0] == 0
    for head in (str(head_file), f"4:{saved['hash']}", saved["hash"]):
        code, out, _ = run(capsys, "log", "--store", url, "verify", "--head", head)
        assert code == exitcodes.TAMPERED
        assert out.startswith("tampered: entry 4 truncated: the log ends at entry 3")


def test_show_names_a_notice_that_never_reached_the_owner(
    url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from redline.audit.recorder import notice_record

    with open_store(url) as store:
        store.append(
            notice_record(ref=3, channel="telegram", problem="not delivered to 42: Bad Gateway")
        )
    code, out, _ = run(capsys, "log", "--store", url, "show", "--kind", "notice")
    [_, row] = out.splitlines()
    assert (code, row.split()[:1], row.split()[3:]) == (
        0,
        ["5"],
        ["undelivered", "->", "#3", "telegram:", "not", "delivered", "to", "42:", "Bad", "Gateway"],
    )


def test_a_rehashed_chain_passes_plain_verify_but_not_a_pinned_head(
    url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from redline.audit.chain import entry_hash

    code, out, _ = run(capsys, "log", "--store", url, "head")
    pinned = json.loads(out)
    before = f"{pinned['seq']}:{pinned['hash']}"
    # Someone who can write the file: edit entry 2 and re-hash the chain from there.
    conn = sqlite3.connect(url.removeprefix("sqlite://"))
    conn.execute("DROP TRIGGER entries_no_update")
    rows = conn.execute("SELECT seq, prev, body FROM entries ORDER BY seq").fetchall()
    prev = rows[0][1]
    for seq, _, body in rows:
        if seq == 2:
            body = body.replace("rm -rf build", "echo harmless")
        digest = entry_hash(seq, prev, body)
        conn.execute(
            "UPDATE entries SET prev = ?, hash = ?, body = ? WHERE seq = ?",
            (prev, digest, body, seq),
        )
        prev = digest
    conn.commit()
    conn.close()
    assert run(capsys, "log", "--store", url, "verify")[:2] == (
        0,
        f"ok: 4 entries intact in {url}; head 4:{prev}\n",
    )
    code, out, _ = run(capsys, "log", "--store", url, "verify", "--head", before)
    assert (code, out) == (
        exitcodes.TAMPERED,
        f"tampered: entry 4 edited: its hash {prev[:12]}… is not the saved head's "
        f"{pinned['hash'][:12]}…: the log was rewritten at or before it (in {url})\n",
    )
    # A head pinned past the end: the entry at SEQ is missing.
    code, out, _ = run(capsys, "log", "--store", url, "verify", "--head", f"9:{pinned['hash']}")
    assert (code, out) == (
        exitcodes.TAMPERED,
        "tampered: entry 5 truncated: the log ends at entry 4 but the saved head is missing "
        f"(the saved head is entry 9) (in {url})\n",
    )
    # The rewritten chain's own head passes.
    assert run(capsys, "log", "--store", url, "verify", "--head", f"4:{prev}")[0] == 0


def test_verify_rejects_a_bad_head(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "log", "--store", url, "verify", "--head", "nonsense")
    assert code == exitcodes.ERROR
    assert err.startswith("error: cannot read a log head from `nonsense`;")


def test_head_of_an_empty_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite://{tmp_path}/empty.sqlite3"
    open_store(url).close()
    code, _, err = run(capsys, "log", "--store", url, "head")
    assert code == exitcodes.ERROR
    assert "is empty" in err


def test_store_from_environment(
    url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("REDLINE_STORE", url)
    code, out, _ = run(capsys, "log", "verify")
    assert code == 0
    assert out.startswith("ok: 4 entries")


def test_log_without_action_prints_usage(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "log")
    assert code == exitcodes.USAGE
    assert "show" in out and "verify" in out and "head" in out


def test_bad_time_is_a_usage_error(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["log", "--store", url, "show", "--since", "yesterday"])
    assert caught.value.code == exitcodes.USAGE
    assert "bad time `yesterday`" in capsys.readouterr().err


def test_unreadable_entry_points_to_verify(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    conn = sqlite3.connect(url.removeprefix("sqlite://"))
    conn.execute("DROP TRIGGER entries_no_update")
    conn.execute("""UPDATE entries SET body = '{"kind":"forged"}' WHERE seq = 1""")
    conn.commit()
    conn.close()
    code, _, err = run(capsys, "log", "--store", url, "show")
    assert code == exitcodes.ERROR
    assert err.startswith("error: cannot read a log entry body:")
    assert err.endswith("the log may have been tampered with: run `redline log verify`\n")
    code, out, _ = run(capsys, "log", "--store", url, "verify")
    assert (code, out.split(":")[0]) == (exitcodes.TAMPERED, "tampered")
