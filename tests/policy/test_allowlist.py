"""The "always" allowlist: atomic, deduplicated, corruption kept aside (F-GATE-6)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from redline.policy.allowlist import Allowlist

SUBJECT = ("run", "deploy", "--", "web")


@pytest.fixture
def allowlist(tmp_path: Path) -> Allowlist:
    return Allowlist(tmp_path / "allowlist.json")


def test_a_missing_file_is_empty(allowlist: Allowlist) -> None:
    assert allowlist.grants() == frozenset()
    assert allowlist.warnings == []


def test_add_writes_the_entry_and_reads_it_back(allowlist: Allowlist) -> None:
    assert allowlist.add([("policy:ask-deploy", SUBJECT)], "deploy web") == (
        ("policy:ask-deploy", SUBJECT),
    )
    assert allowlist.grants() == {("policy:ask-deploy", SUBJECT)}
    (entry,) = json.loads(Path(allowlist.path).read_text())["entries"]
    assert (entry["rule"], entry["subject"], entry["note"]) == (
        "policy:ask-deploy",
        list(SUBJECT),
        "deploy web",
    )
    assert entry["granted_at"].endswith("Z")


def test_add_skips_what_is_already_there(allowlist: Allowlist) -> None:
    allowlist.add([("vcs.push-force", SUBJECT)])
    assert allowlist.add([("vcs.push-force", SUBJECT), ("vcs.push-force", SUBJECT)]) == ()
    assert len(json.loads(Path(allowlist.path).read_text())["entries"]) == 1


def test_hard_lines_and_never_run_kinds_are_never_written(allowlist: Allowlist) -> None:
    assert (
        allowlist.add(
            [
                ("fs.delete-root", SUBJECT),
                ("hardline.rm-root", SUBJECT),
                ("never-run.credentials", SUBJECT),
            ]
        )
        == ()
    )
    assert not Path(allowlist.path).exists()


def test_writes_replace_the_file_atomically(allowlist: Allowlist) -> None:
    allowlist.add([("policy:a", SUBJECT)])
    before = os.stat(allowlist.path).st_ino
    allowlist.add([("policy:b", SUBJECT)])
    assert os.stat(allowlist.path).st_ino != before  # a new file renamed over the old one
    leftovers = [p.name for p in Path(allowlist.path).parent.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "allowlist.json"
    barrier = threading.Barrier(12)

    def writer(n: int) -> None:
        barrier.wait()
        Allowlist(path).add([(f"policy:r{n}", SUBJECT)])  # each with its own view of the file

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert Allowlist(path).grants() == {(f"policy:r{n}", SUBJECT) for n in range(12)}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            "{not json",
            "not json: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
        ),
        ('{"version": 9, "entries": []}', "expected an object with `version: 1`"),
        ('{"version": 1, "entries": {}}', "`entries` must be a list"),
        (
            '{"version": 1, "entries": [{"rule": 3}]}',
            "entry 1 needs a string `rule` and a list `subject`",
        ),
    ],
)
def test_a_corrupt_file_is_kept_aside_reported_and_empty(
    allowlist: Allowlist, text: str, problem: str
) -> None:
    Path(allowlist.path).write_text(text)
    assert allowlist.grants() == frozenset()
    (aside,) = Path(allowlist.path).parent.glob("allowlist.json.corrupt-*")
    assert aside.read_text() == text
    assert not Path(allowlist.path).exists()
    assert allowlist.warnings == [
        f"allowlist `{allowlist.path}` is corrupt ({problem}); kept aside as `{aside}`; "
        "treated as empty"
    ]
    allowlist.add([("policy:a", SUBJECT)])  # and it starts again cleanly
    assert allowlist.grants() == {("policy:a", SUBJECT)}


def test_a_changed_file_is_read_again(allowlist: Allowlist) -> None:
    allowlist.add([("policy:a", SUBJECT)])
    assert allowlist.grants() == {("policy:a", SUBJECT)}
    Path(allowlist.path).write_text(json.dumps({"version": 1, "entries": []}))
    assert allowlist.grants() == frozenset()
