"""Archives on disk unpacked into a folder (attack round 5, section 4): the
gate lists the members (it extracts nothing) and asks an archive that holds
a git hook, a file inside `.git` or an `.envrc`; a source archive with its
own Makefile stays allowed, and so does one the gate cannot list.

Every archive here is built under `tmp_path` and never unpacked.
"""

from __future__ import annotations

import io
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from redline.decision import Decision
from redline.gate.actions import ToolCall
from redline.gate.archive_members import members
from redline.gatekeeper import Gate

Check = Callable[[str], Decision]
_HOOK = b"#!/bin/sh\nexit 0\n"


def _newc(names: list[str]) -> bytes:
    out = b""
    for name in [*names, "TRAILER!!!"]:
        raw = name.encode() + b"\0"
        body = _HOOK if name != "TRAILER!!!" else b""
        fields = [0, 0o100755, 0, 0, 1, 0, len(body), 0, 0, 0, 0, len(raw), 0]
        head = b"070701" + b"".join(b"%08X" % f for f in fields) + raw
        out += head + b"\0" * (-len(head) % 4) + body + b"\0" * (-len(body) % 4)
    return out


def _odc(names: list[str]) -> bytes:
    out = b""
    for name in [*names, "TRAILER!!!"]:
        raw = name.encode() + b"\0"
        body = _HOOK if name != "TRAILER!!!" else b""
        head = b"070707" + b"%06o" % 0 * 7 + b"%011o" % 0 + b"%06o" % len(raw)
        out += head + b"%011o" % len(body) + raw + body
    return out


def _tar(names: list[str]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name in names:
            info = tarfile.TarInfo(name)
            info.size = len(_HOOK)
            archive.addfile(info, io.BytesIO(_HOOK))
    return buffer.getvalue()


def _zip(names: list[str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in names:
            archive.writestr(name, _HOOK)
    return buffer.getvalue()


_HOOKS = [".git/hooks/pre-commit"]
_SOURCE = ["pkg-1.0/Makefile", "pkg-1.0/src/main.c", "pkg-1.0/.github/workflows/ci.yml"]
_ARCHIVES = {
    "hooks.cpio": _newc(_HOOKS),
    "hooks.odc": _odc(["./.git/hooks/post-checkout"]),
    "hooks.tgz": _tar(_HOOKS),
    "hooks.zip": _zip(["x/.githooks/pre-push"]),
    "config.tgz": _tar([".git/config"]),
    "envrc.cpio": _newc([".envrc"]),
    "agent.tgz": _tar(["proj/.claude/settings.json", "proj/README.md"]),
    "source.cpio": _newc(_SOURCE),
    "source.tgz": _tar(_SOURCE),
    "source.zip": _zip(_SOURCE),
    "notes.txt": b"not an archive\n",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    for name, data in _ARCHIVES.items():
        (folder / name).write_bytes(data)
    return folder


@pytest.fixture
def run(gate: Gate, project: Path) -> Check:
    def check(command: str) -> Decision:
        return gate.check(ToolCall("Bash", {"command": command}, cwd=str(project)))

    return check


def test_the_formats_are_listed() -> None:
    assert members(_newc(["a", "b/c"])) == ("a", "b/c")
    assert members(_odc(["./a"])) == ("./a",)
    assert members(_tar(["x/y"])) == ("x/y",)
    assert members(_zip(["z"])) == ("z",)
    assert members(b"not an archive\n") is None
    assert members(_newc(["a"])[:20]) is None  # cut short


@pytest.mark.parametrize(
    "command",
    [
        "cpio -idv < hooks.cpio",
        "cpio -i --make-directories < hooks.odc",
        "cpio -id -F hooks.cpio",
        "cat hooks.cpio | cpio -idm",
        "tar -xzf hooks.tgz",
        "tar xzf hooks.tgz",
        "tar -xf config.tgz",
        "unzip hooks.zip",
        "cpio -idv < envrc.cpio",
        "tar -xzf agent.tgz",
    ],
)
def test_an_archive_holding_a_file_that_runs_unnamed_is_asked(run: Check, command: str) -> None:
    decision = run(command)
    assert (str(decision.verdict), sorted(set(decision.rule_ids))) == ("ask", ["later.unseen"])


@pytest.mark.parametrize(
    "command",
    [
        "cpio -idv < source.cpio",
        "tar -xzf source.tgz",
        "unzip source.zip",
        "cpio -idv < missing.cpio",
        "tar -xf notes.txt",
        "cpio -t < hooks.cpio",
        "tar -tzf hooks.tgz",
        "unzip -l hooks.zip",
    ],
)
def test_source_archives_and_listings_stay_allowed(run: Check, command: str) -> None:
    decision = run(command)
    assert (str(decision.verdict), decision.rule_ids) == ("allow", ())
