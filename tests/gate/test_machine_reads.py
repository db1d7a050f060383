"""The machine as the gate reads it (`redline.machine.LocalWorld`): a script
is read only from a regular file, and never waits on one."""

from __future__ import annotations

import os
from pathlib import Path

from redline.machine import LocalWorld


def test_a_fifo_is_not_read_and_does_not_block(tmp_path: Path) -> None:
    """Opening a FIFO for reading waits for a writer: an agent's `mkfifo` where
    a script is expected would hold the hook until its deadline."""
    fifo = tmp_path / "Makefile"
    os.mkfifo(fifo)
    world = LocalWorld(str(tmp_path / "redline"))
    assert world.read_script(str(fifo)) is None


def test_a_regular_files_text_is_read_and_a_binary_is_not(tmp_path: Path) -> None:
    world = LocalWorld(str(tmp_path / "redline"))
    (tmp_path / "run.sh").write_text("#!/bin/sh\nmake test\n")
    (tmp_path / "prog").write_bytes(b"\x7fELF\0\0\0")
    assert world.read_script(str(tmp_path / "run.sh")) == "#!/bin/sh\nmake test\n"
    assert world.read_script(str(tmp_path / "prog")) is None
    assert world.read_script(str(tmp_path)) is None
    assert world.read_script(str(tmp_path / "missing")) is None
