"""`redline check --batch` goes on past any line (issue 12 #6): JSON nested
10,000 deep, bytes that are not UTF-8, a 4 KB chain of wrappers. Each bad line
is a deny with the reason; no traceback; the next line is judged."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def batch(lines: list[bytes], tmp_path: Path) -> subprocess.CompletedProcess[bytes]:
    env = {"REDLINE_HOME": str(tmp_path / "redline"), "HOME": str(tmp_path),
           "PATH": os.environ.get("PATH", "/usr/bin:/bin")}  # fmt: skip
    return subprocess.run(
        [sys.executable, "-m", "redline", "check", "--batch"],
        input=b"\n".join(lines) + b"\n",
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_a_batch_goes_on_past_lines_that_cannot_be_judged(tmp_path: Path) -> None:
    deep = b"[" * 10_000 + b"]" * 10_000
    chain = json.dumps({"command": "env " * 1024 + "rm -rf /"}).encode()
    tool = b'{"tool": "Bash", "cwd": "/tmp", "args": {"command": "ls", "x": ' + deep + b"}}"
    done = batch(
        [
            deep,
            b'{"command": "ls \xff\xfe"}',
            tool,
            b'{"command": "ls", "x": ' + b"[" * 150 + b"]" * 150 + b"}",
            chain,
            b'{"command": "ls"}',
        ],
        tmp_path,
    )
    assert (done.returncode, done.stderr) == (0, b"")
    out = [json.loads(line) for line in done.stdout.splitlines()]
    too_deep = "it is nested deeper than 100 levels"
    assert [o.get("error") for o in out[:4]] == [
        f"line 1: {too_deep}",
        "line 2: the line is not UTF-8 text",
        f"line 3: {too_deep}",
        f"line 4: {too_deep}",
    ]
    assert [o["verdict"] for o in out] == ["deny", "deny", "deny", "deny", "deny", "allow"]
    assert out[4]["hardline"] is True and "fs.delete-root" in out[4]["rules"]
