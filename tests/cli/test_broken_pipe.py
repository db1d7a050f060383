"""A reader that stops early (`| head`) ends redline quietly, not with a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_batch_output_cut_short_leaves_no_traceback(tmp_path: Path) -> None:
    batch = tmp_path / "batch.jsonl"
    batch.write_bytes(b'{"command": "ls -la"}\n' * 20_000)
    with batch.open("rb") as stdin:
        proc = subprocess.Popen(
            [sys.executable, "-m", "redline", "check", "--batch"],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "REDLINE_HOME": str(tmp_path)},
        )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline().startswith(b'{"verdict": "allow"')
    proc.stdout.close()
    stderr = proc.stderr.read()
    proc.stderr.close()
    code = proc.wait(timeout=60)
    assert b"Traceback" not in stderr
    assert code in (0, 1)  # 1 when the cut was seen, 0 if all output fit the pipe first
