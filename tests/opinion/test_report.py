"""`redline opinion report`: how often the model tightened, and how often the
owner then agreed."""

from __future__ import annotations

from pathlib import Path

import pytest

from redline.audit.recorder import Outcome, outcome_record, record_decision
from redline.audit.store import open_store
from redline.cli.main import main
from redline.decision import Decision, Verdict
from redline.gate.actions import ToolCall
from redline.opinion.consult import Opinion, opinion_record
from redline.opinion.report import report

CALL = ToolCall("terminal", {"command": "./x.sh"}, "/srv", None, "s1")


def fill(url: str) -> None:
    rows = [
        ("tightened", Verdict.ALLOW, Verdict.ASK, Outcome.REJECTED),
        ("tightened", Verdict.ALLOW, Verdict.ASK, Outcome.APPROVED),
        ("tightened", Verdict.ALLOW, Verdict.ASK, None),
        ("tightened", Verdict.ASK, Verdict.DENY, None),
        ("kept", Verdict.ASK, Verdict.ASK, Outcome.APPROVED),
        ("timeout", Verdict.ALLOW, Verdict.ALLOW, None),
        ("over-budget", Verdict.ALLOW, Verdict.ALLOW, None),
    ]
    with open_store(url) as store:
        for status, before, after, outcome in rows:
            seq = record_decision(
                store, session="s1", context=None, agent="generic", tool=CALL.tool,
                args=CALL.args, decision=Decision(after), environ={},
            )  # fmt: skip
            latency = 0 if status == "over-budget" else 100
            opinion = Opinion("m", status, before, after, "why", "", latency)
            store.append(opinion_record(opinion, ref=seq, call=CALL, agent="generic"))
            if outcome is not None:
                store.append(outcome_record(ref=seq, outcome=outcome))


def test_the_report_counts_tightenings_and_the_owners_answers(tmp_path: Path) -> None:
    url = f"sqlite://{tmp_path}/log.sqlite3"
    fill(url)
    with open_store(url) as store:
        data = report(store)
    assert data == {
        "opinions": 7,
        "model_asked": 6,
        "answered": 5,
        "tightened": 4,
        "tightened_share": 0.5714,
        "steps": {"allow->ask": 3, "ask->deny": 1},
        "failed": {"timeout": 1},
        "not_asked": {"over-budget": 1},
        "median_latency_ms": 100,
        "escalated_to_owner": 3,
        "owner_agreed": 1,
        "owner_disagreed": 1,
        "owner_no_answer": 1,
    }


def test_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite://{tmp_path}/log.sqlite3"
    fill(url)
    assert main(["opinion", "report", "--store", url]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "opinions: 7 (model asked 6, well-formed answers 5)",
        "tightened: 4 (57.1%)  allow->ask: 3  ask->deny: 1",
        "failed: timeout 1",
        "not asked: over-budget 1",
        "median latency: 100 ms",
        "sent to the owner (allow->ask): 3; the owner agreed (rejected) 1, disagreed"
        " (approved) 1, no answer 1",
    ]


def test_log_show_names_an_opinion(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite://{tmp_path}/log.sqlite3"
    fill(url)
    assert main(["log", "--store", url, "show"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert "second opinion (m): why" in rows[2]
    assert rows[2].split()[3:5] == ["tightened", "terminal"]


def test_the_report_creates_no_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite://{tmp_path}/none.sqlite3"
    assert main(["opinion", "report", "--store", url]) == 1
    assert not (tmp_path / "none.sqlite3").exists()
    assert capsys.readouterr().err.startswith("redline opinion: ")
