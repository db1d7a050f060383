"""`redline log show` names a write by its path (each host's own argument
name), a patch by its files, never by the raw JSON of its arguments."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from redline.audit.recorder import record_decision
from redline.audit.store import open_store
from redline.cli.main import main
from redline.decision import Decision, Verdict

PATCH = (
    "*** Begin Patch\n*** Update File: src/app.py\n@@\n-a\n+b\n"
    "*** Add File: new.txt\n+x\n*** End Patch"
)


@pytest.mark.parametrize(
    ("tool", "args", "shown"),
    [
        ("Write", {"file_path": "/srv/app/a.py", "content": "x = 1\n"}, "/srv/app/a.py"),
        ("write_file", {"file_path": "/srv/b.txt", "content": "hi"}, "/srv/b.txt"),
        ("write_file", {"path": "/srv/c.txt", "content": "hi"}, "/srv/c.txt"),
        ("NotebookEdit", {"notebook_path": "/n.ipynb", "new_source": "1"}, "/n.ipynb"),
        ("apply_patch", {"command": PATCH}, "patch src/app.py, new.txt"),
        ("Bash", {"command": "ls -la"}, "ls -la"),
    ],
)
def test_a_call_is_named_by_its_command_or_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tool: str, args: dict[str, str], shown: str
) -> None:
    url = f"sqlite://{tmp_path}/log.sqlite3"
    with open_store(url) as store:
        record_decision(
            store,
            session="s1",
            context="interactive",
            agent="claude-code",
            tool=tool,
            args=args,
            decision=Decision(Verdict.ALLOW),
            now=datetime(2030, 1, 2, tzinfo=UTC),
            environ={},
        )
    assert main(["log", "--store", url, "show"]) == 0
    row = capsys.readouterr().out.splitlines()[1]
    assert row.endswith(f"  {shown}")
    assert "{" not in row
