"""Scripts on disk are read and judged with the whole catalogue (issue #13, family 3).

Every script here is written under `tmp_path` and never run: the gate only
reads it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from redline.decision import Decision
from redline.gate.actions import ToolCall
from redline.gate.script_files import MAX_SCRIPT
from redline.gate.script_rules import target_recipes
from redline.gatekeeper import Gate

Check = Callable[[str], Decision]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


@pytest.fixture
def run(gate: Gate, project: Path) -> Check:
    def check(command: str) -> Decision:
        return gate.check(ToolCall("Bash", {"command": command}, cwd=str(project)))

    return check


def _write(folder: Path, name: str, text: str, mode: int = 0o644) -> None:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(mode)


@pytest.mark.parametrize(
    ("name", "text", "command", "verdict", "rule"),
    [
        ("deploy.sh", "#!/bin/sh\nset -e\nrm -rf /\n", "bash deploy.sh", "deny", "fs.delete-root"),
        ("deploy.sh", "mkfs.ext4 /dev/sda\n", "sh ./deploy.sh", "deny", "disk.mkfs-device"),
        ("x.sh", "#!/bin/bash\nreboot\n", "./x.sh", "deny", "sys.shutdown"),
        ("env.sh", "kill -9 -1\n", ". ./env.sh", "deny", "proc.kill-all"),
        ("x.sh", "git push --force origin main\n", "bash x.sh", "ask", "vcs.push-force"),
        ("tool.py", "import shutil\nshutil.rmtree('/')\n", "python3 tool.py", "deny",
         "fs.delete-root"),
        ("tool.py", "import os\nos.system('shutdown -h now')\n", "python tool.py", "deny",
         "sys.shutdown"),
        ("tool.js", "require('fs').rmSync('/etc', {recursive: true})\n", "node tool.js", "deny",
         "fs.delete-system-dir"),
        ("run", "#!/usr/bin/env python3\nimport os\nos.kill(-1, 9)\n", "./run", "deny",
         "proc.kill-all"),
        ("run.sh", "echo start\nbash inner.sh\n", "bash run.sh", "deny", "sys.shutdown"),
    ],
)  # fmt: skip
def test_a_script_on_disk_is_judged_by_its_text(
    run: Check, project: Path, name: str, text: str, command: str, verdict: str, rule: str
) -> None:
    _write(project, name, text, 0o755)
    _write(project, "inner.sh", "reboot\n")
    decision = run(command)
    assert str(decision.verdict) == verdict, decision.reason
    assert rule in decision.rule_ids
    assert "read from `" in decision.reason
    assert name in decision.reason


@pytest.mark.parametrize(
    ("name", "text", "command"),
    [
        ("build.sh", "#!/bin/sh\nmake test\npytest -q\n", "bash build.sh"),
        ("clean.sh", "rm -rf build dist\n", "./clean.sh"),
        ("tool.py", "import shutil\nshutil.rmtree('build')\n", "python3 tool.py"),
        # Code in a file is judged by what it does, never asked for being code.
        ("tool.py", "import requests\nprint(requests.get('https://example.com').status_code)\n",
         "python3 tool.py"),
        ("notes.sh", "echo 'rm -rf /'\n", "bash notes.sh"),
    ],
)  # fmt: skip
def test_a_harmless_script_on_disk_stays_allowed(
    run: Check, project: Path, name: str, text: str, command: str
) -> None:
    _write(project, name, text, 0o755)
    decision = run(command)
    assert str(decision.verdict) == "allow", decision.reason


def test_make_reads_the_named_target_and_its_prerequisites(run: Check, project: Path) -> None:
    _write(project, "Makefile", "test: lint\n\tpytest -q\nlint:\n\truff check .\n"
           "wipe: clean\n\techo done\nclean:\n\trm -rf ~\n")  # fmt: skip
    assert str(run("make test").verdict) == "allow"
    wiped = run("make wipe")
    assert str(wiped.verdict) == "deny"
    assert "fs.delete-home" in wiped.rule_ids
    assert "read from `Makefile`" in wiped.reason


def test_npm_reads_the_script_it_runs(run: Check, project: Path) -> None:
    _write(project, "package.json", '{"scripts": {"test": "jest", "nuke": "rm -rf /"}}')
    assert str(run("npm test").verdict) == "allow"
    nuked = run("npm run nuke")
    assert str(nuked.verdict) == "deny"
    assert "read from `package.json`" in nuked.reason


def test_a_large_or_unreadable_script_is_judged_as_before(run: Check, project: Path) -> None:
    _write(project, "big.sh", "rm -rf /\n" + "#" * MAX_SCRIPT)
    assert str(run("bash big.sh").verdict) == "allow"
    (project / "dir.sh").mkdir()
    assert str(run("bash dir.sh").verdict) == "allow"
    assert str(run("bash missing.sh").verdict) == "allow"


def test_a_script_written_in_the_same_command_is_judged_once(run: Check, project: Path) -> None:
    _write(project, "x.sh", "rm -rf /\n")
    # The text the command writes is what runs, not the file on disk now.
    assert str(run("echo 'echo hi' > x.sh; bash x.sh").verdict) == "allow"


def test_target_recipes_reads_rules_and_shell_calls() -> None:
    text = "V := $(shell id)\nall: a\n\techo all\na:\n\t@echo a\nb:\n\techo b\n"
    # What runs as the makefile is read comes first, as make runs it.
    assert target_recipes(text, []).split("\n") == ["id", "echo all", "echo a"]
    assert target_recipes(text, ["b"]).split("\n") == ["id", "echo b"]
    # The variables' last definitions, and `.ONESHELL`, are read too.
    wipe = "CMD = echo hi\nCMD = rm -rf $$HOME\n.ONESHELL:\nall:\n\t$(CMD)\n\techo ok\n"
    assert target_recipes(wipe, []) == "rm -rf $HOME\necho ok"


def test_scripts_nested_deeper_than_the_judge_reads_are_asked(run: Check, project: Path) -> None:
    # a.sh runs b.sh runs c.sh runs d.sh: d.sh is one level past what is read.
    for name, runs in (("a.sh", "b.sh"), ("b.sh", "c.sh"), ("c.sh", "d.sh")):
        _write(project, name, f"echo {name}\nbash {runs}\n")
    _write(project, "d.sh", "rm -rf ~\n")
    assert str(run("bash b.sh").verdict) == "deny"  # three levels: read to the end
    deep = run("bash a.sh")
    assert str(deep.verdict) == "ask", deep.reason
    assert "deeper than" in deep.reason
    _write(project, "d.sh", "echo done\n")
    assert str(run("bash b.sh").verdict) == "allow"


@pytest.mark.parametrize(
    "command",
    ["make -C sub", "make -Csub", "make --directory sub", "make --directory=sub",
     "make -f sub/build.mk", "make -j 8 -C sub", "make --jobs 4 -C sub", "make -j $(nproc) -C sub",
     "make -l 2 -C sub", "make -I include -C sub", "make -o foo -C sub", "make -C sub V=1"],
)  # fmt: skip
def test_make_options_and_their_values_are_not_targets(
    run: Check, project: Path, command: str
) -> None:
    # Attack round 6, 16d: an option's value was read as the target, so no recipe was judged.
    _write(project, "Makefile", "all:\n\techo hi\n")
    _write(project, "sub/Makefile", "all:\n\trm -rf ~\n")
    _write(project, "sub/build.mk", "all:\n\trm -rf ~\n")
    assert str(run(command).verdict) == "deny"
    assert str(run("make -j 8").verdict) == "allow"


@pytest.mark.parametrize(
    "command",
    ["npm --prefix sub test", "npm -C sub test", "npm --workspace sub test", "yarn --cwd sub test",
     "pnpm -C sub test", "pnpm --dir sub test", "npm it", "npm restart", "npm pack",
     "npm publish --dry-run", "npm rebuild"],
)  # fmt: skip
def test_package_scripts_run_from_another_folder_or_verb_are_read(
    run: Check, project: Path, command: str
) -> None:
    # Attack round 6, 16e.
    scripts = '{"scripts": {"test": "rm -rf ~", "start": "rm -rf ~", "prepare": "rm -rf ~"}}'
    _write(project, "package.json", scripts)
    _write(project, "sub/package.json", '{"scripts": {"test": "rm -rf ~"}}')
    assert str(run(command).verdict) == "deny"
    assert str(run("npm --prefix sub ls").verdict) == "allow"
