"""Everything the hook process loads is the gate (attack A1): the folder
redline is imported from (a source checkout's `src` too), the Python that
runs it with its standard library and site-packages, and the checkout's git
rewrites. Paths come from this very interpreter, as the hook's would."""

from __future__ import annotations

import os
import sys
import sysconfig
from pathlib import Path

import pytest

import redline
from redline.decision import Verdict
from redline.gate.actions import ToolCall
from redline.gatekeeper import Gate
from redline.machine import code_files, package_tree

PACKAGE = os.path.dirname(os.path.realpath(redline.__file__))
IMPORTED_FROM = os.path.dirname(PACKAGE)
STDLIB = os.path.realpath(sysconfig.get_paths()["stdlib"])
PURELIB = os.path.realpath(sysconfig.get_paths()["purelib"])
PYTHON = os.path.realpath(sys.executable)
WORK = "/srv/app"


@pytest.fixture(scope="module")
def gate(tmp_path_factory: pytest.TempPathFactory) -> Gate:
    return Gate(home="/home/me", redline_home=tmp_path_factory.mktemp("gate") / "redline")


def verdict(gate: Gate, call: ToolCall) -> tuple[Verdict, str | None]:
    decision = gate.check(call)
    return decision.verdict, decision.hits[0].rule_id if decision.hits else None


def shell(gate: Gate, command: str, cwd: str = WORK) -> tuple[Verdict, str | None]:
    return verdict(gate, ToolCall("Bash", {"command": command}, cwd=cwd))


def test_the_trees_the_hook_loads_are_the_gate() -> None:
    trees = package_tree()
    assert IMPORTED_FROM in trees
    for folder in (STDLIB, PURELIB, os.path.realpath(sysconfig.get_paths()["platstdlib"])):
        assert any(folder == t or folder.startswith(t + "/") for t in trees), folder
    assert PYTHON in code_files()
    assert f"{sys.base_prefix.rstrip('/')}/bin/python*" in code_files()


DENIED = [
    f"echo x > {PACKAGE}/gate/never_run.py",
    f"sed -i s/a/b/ {PACKAGE}/hooks/base.py",
    f"echo x > {PACKAGE}/__pycache__/hook-image.cpython-311.bin",
    f"echo x > {IMPORTED_FROM}/json.py",
    f"echo x >> {STDLIB}/encodings/__init__.py",
    f"cp /tmp/x.py {STDLIB}/json/decoder.py",
    f"echo x > {PURELIB}/x.pth",
    f"echo x > {PURELIB}/yaml/__init__.py",
    f"mv {os.path.dirname(STDLIB)} /tmp/",
    f"cp /tmp/evil {PYTHON}",
    "pyenv uninstall -f 3.11.7",
]


@pytest.mark.parametrize("command", DENIED)
def test_changing_the_gates_code_or_python_never_runs(gate: Gate, command: str) -> None:
    assert shell(gate, command) == (Verdict.DENY, "never-run.gate-config")


@pytest.mark.parametrize("path", [f"{PACKAGE}/gate/never_run.py", f"{STDLIB}/json/__init__.py"])
def test_file_tools_writing_the_gates_code_never_run(gate: Gate, path: str) -> None:
    call = ToolCall("Write", {"file_path": path, "content": "x"}, cwd=WORK)
    assert verdict(gate, call) == (Verdict.DENY, "never-run.gate-config")


def _checkout() -> str | None:
    root = os.path.dirname(IMPORTED_FROM)
    return root if Path(root, ".git").exists() and IMPORTED_FROM.endswith("/src") else None


@pytest.mark.skipif(_checkout() is None, reason="redline is not run from a source checkout")
@pytest.mark.parametrize(
    "command", ["git stash", "git checkout main", "git reset --hard HEAD~3", "git restore src"]
)
def test_rewriting_the_checkout_the_hook_loads_never_runs(gate: Gate, command: str) -> None:
    assert shell(gate, f"git -C {_checkout()} {command.removeprefix('git ')}") == (
        Verdict.DENY,
        "never-run.gate-config",
    )


ALLOWED = [
    "echo x > /srv/app/lib/a.py",
    "pip install requests",
    f"cat {STDLIB}/json/__init__.py",
    "python -c 'import json'",
    f"ls {IMPORTED_FROM}",
    "git -C /srv/app stash",
    "git -C /srv/app checkout main",
    "pyenv versions",
]


@pytest.mark.parametrize("command", ALLOWED)
def test_look_alikes_are_not_never_run(gate: Gate, command: str) -> None:
    assert shell(gate, command)[1] is None or not str(shell(gate, command)[1]).startswith(
        "never-run"
    )
