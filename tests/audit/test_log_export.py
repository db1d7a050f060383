"""`redline log export`: JSON lines and CSV on SQLite and PostgreSQL, streamed,
secrets redacted as stored, `--since`/`--until` as ISO times or ages."""

from __future__ import annotations

import csv
import io
import json
import os
import stat
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from redline.audit.entry import Link
from redline.audit.recorder import record_decision
from redline.audit.store import Store
from redline.cli import exitcodes
from redline.cli.logexport import COLUMNS, selected
from redline.cli.main import main
from redline.decision import Decision, RuleHit, Severity, Verdict

GHP = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
NOW = datetime.now(UTC).replace(microsecond=0)
HIT = RuleHit("fs.rm-recursive", "recursive delete", Severity.DANGEROUS, "destructive")
TRICKY = 'echo "a, b"\nrm -rf \'build\'; echo ""'


def fill(store: Store) -> None:
    """Three decisions: 3 h ago, 2 h ago (with a secret), 30 min ago."""
    calls: list[tuple[timedelta, dict[str, str], Decision]] = [
        (timedelta(hours=3), {"command": "ls -la"}, Decision(Verdict.ALLOW)),
        (
            timedelta(hours=2),
            {"command": f"curl -H 'Authorization: token {GHP}' https://x.io"},
            Decision(Verdict.ASK, code="sensitive-path"),
        ),
        (
            timedelta(minutes=30),
            {"command": TRICKY},
            Decision(Verdict.DENY, hits=(HIT,), reason='recursive delete of "build", twice'),
        ),
    ]
    for age, args, decision in calls:
        record_decision(
            store,
            session="s1",
            context="interactive",
            agent="claude-code",
            tool="Bash",
            args=args,
            decision=decision,
            now=NOW - age,
            environ={},
        )


@pytest.fixture
def url(store_url: str, make_store: Callable[[], Store]) -> str:
    fill(make_store())
    return store_url


def export(capsys: pytest.CaptureFixture[str], url: str, *argv: str) -> str:
    assert main(["log", "--store", url, "export", *argv]) == exitcodes.ALLOW
    out, err = capsys.readouterr()
    assert err == ""
    return out


def test_jsonl_is_log_show_json_oldest_first(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [json.loads(line) for line in export(capsys, url, "--format", "jsonl").splitlines()]
    assert main(["log", "--store", url, "show", "--json"]) == exitcodes.ALLOW
    shown = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines == shown
    assert [line["seq"] for line in lines] == [1, 2, 3]
    assert list(lines[0]) == list(COLUMNS)
    assert GHP not in json.dumps(lines)
    assert lines[2]["args"] == {"command": TRICKY}


def test_csv_quotes_commas_quotes_and_newlines(
    url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    text = export(capsys, url, "--format", "csv")
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == list(COLUMNS)
    assert len(rows) == 4
    last = dict(zip(COLUMNS, rows[3], strict=True))
    assert {k: last[k] for k in ("seq", "verdict", "rules", "reason", "hardline", "ref")} == {
        "seq": "3",
        "verdict": "deny",
        "rules": "fs.rm-recursive",
        "reason": 'recursive delete of "build", twice',
        "hardline": "false",
        "ref": "",
    }
    assert json.loads(last["args"]) == {"command": TRICKY}
    assert '"recursive delete of ""build"", twice"' in text  # RFC 4180 quoting
    assert GHP not in text


@pytest.mark.parametrize(
    ("argv", "seqs"),
    [
        (["--since", "1h"], [3]),
        (["--since", "150m"], [2, 3]),
        (["--since", "2d"], [1, 2, 3]),
        (["--until", "1h"], [1, 2]),
        (["--since", "150m", "--until", "1h"], [2]),
    ],
)
def test_since_and_until_take_ages(
    url: str, capsys: pytest.CaptureFixture[str], argv: list[str], seqs: list[int]
) -> None:
    out = export(capsys, url, *argv)
    assert [json.loads(line)["seq"] for line in out.splitlines()] == seqs


def test_since_takes_iso_times(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    moment = (NOW - timedelta(minutes=90)).strftime("%Y-%m-%dT%H:%M:%S")
    out = export(capsys, url, "--since", moment)
    assert [json.loads(line)["seq"] for line in out.splitlines()] == [3]
    offset = (NOW - timedelta(minutes=150)).astimezone(UTC).isoformat()
    out = export(capsys, url, "--format", "csv", "--since", offset)
    assert [row[0] for row in csv.reader(io.StringIO(out))] == ["seq", "2", "3"]


def test_a_bad_time_is_a_usage_error(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["log", "--store", url, "export", "--since", "yesterday"])
    assert exit_.value.code == exitcodes.USAGE
    assert "bad time `yesterday`" in capsys.readouterr().err


def test_output_file_is_the_owners_only(
    url: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "out.csv"
    assert main(["log", "--store", url, "export", "--format", "csv", "-o", str(target)]) == 0
    assert capsys.readouterr() == ("", f"wrote 3 entries to {target}\n")
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o600
    with target.open(newline="") as source:
        assert len(list(csv.reader(source))) == 4


def test_entries_are_streamed(url: str, make_store: Callable[[], Store]) -> None:
    """The first entry is out before the second row is read."""
    store = make_store()
    taken: list[int] = []

    class Counting:
        def links(self) -> Iterator[Link]:
            for link in store.links():
                taken.append(link[0])
                yield link

        def __getattr__(self, name: str) -> Any:
            raise AssertionError(f"export used `{name}`, which may load the whole log")

    entries = selected(Counting(), None, None)
    assert next(entries).seq == 1
    assert taken == [1]
    assert [entry.seq for entry in entries] == [2, 3]
