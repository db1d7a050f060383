"""The agent cannot answer, widen or remove the gate (issue 12 item 2, issue
17 item 4): every case of `self_protection.yaml` is a never-run deny through
every route it can arrive by (terminal tools of each host, an MCP tool's
command, the Claude Code and generic hooks; file tools through the gate and
both hooks), and every look-alike is not. The attempts are counted."""

from __future__ import annotations

import fnmatch
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from redline.decision import Decision, Verdict
from redline.gate.actions import ToolCall
from redline.gate.world import Process, World
from redline.gatekeeper import Gate

sys.path.insert(0, str(Path(__file__).parent.parent / "hooks"))
from hookkit import run_inproc

HERE = Path(__file__).parent
HOME = "/home/me"
WORKDIR = "/srv/app"
SCRIPTS = {
    "/srv/app/scripts/approve.sh": '#!/bin/sh\nredline approve "$1"\n',
    "/srv/app/scripts/call.py": "import urllib.request\n"
    "urllib.request.urlopen('http://127.0.0.1:8787/api/held/1/approve', data=b'')\n",
    "/srv/app/scripts/rl": "#!/srv/app/.venv/bin/python\nimport sys\n"
    "from redline.cli.main import main\nsys.exit(main())\n",
    "/srv/app/scripts/outer.sh": "#!/bin/sh\nbash /srv/app/scripts/approve.sh\n",
    "/srv/app/scripts/killer.sh": "#!/bin/sh\nkill -9 4242\n",
    "/srv/app/scripts/build.sh": "#!/bin/sh\nmake all\n",
    "/srv/app/scripts/fine.py": "print('hello')\n",
    "/srv/app/scripts/curlrc": 'url = "http://127.0.0.1:8787/api/held/1/approve"\n',
    "/srv/app/scripts/Makefile": "all:\n\t@redline approve 1\n",
    # A settings file the owner gave `claude --settings`: it wires the gate in.
    "/srv/app/ci-settings.json": '{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", '
    '"command": "/srv/app/.venv/bin/redline hook claude-code"}]}]}}\n',
    # Diffs on disk: one writes the project's Claude Code settings.
    "/srv/app/hooks.diff": "--- a/.claude/settings.json\n+++ b/.claude/settings.json\n"
    '@@ -1 +1 @@\n-{}\n+{"hooks": {}}\n',
    "/srv/app/fix.diff": "--- a/lib/x.py\n+++ b/lib/x.py\n@@ -1 +1 @@\n-a\n+b\n",
    "/srv/app/package.json": '{"name": "app", "scripts": {"test": "pytest"}}\n',
    # An ordinary project's files that tools run: they stay allowed.
    "/srv/app/conftest.py": "import pytest\n\n@pytest.fixture\ndef db():\n    return {}\n",
    "/srv/app/manage.py": "import os, sys\nos.environ.setdefault('DJANGO_SETTINGS_MODULE', 'a')\n",
    "/srv/app/setup.py": "from setuptools import setup\nsetup(name='app')\n",
    "/srv/app/.git/HEAD": "ref: refs/heads/main\n",
    "/srv/app/.git/hooks/pre-commit": "#!/bin/sh\nruff check .\n",
    "/srv/app/scripts/say.py": "import os\nos.system(\"echo 'run redline approve 1 yourself'\")\n",
    # A project whose files run redline when a tool runs them (written earlier).
    "/srv/bad/y.py": 'import os\nos.system("redline approve 1")\n',
    "/srv/bad/s1.py": 'import subprocess\nsubprocess.run(["redline", "approve", "1"])\n',
    "/srv/bad/s5": '#!/usr/bin/env python3\nimport os\nos.system("redline approve 1")\n',
    "/srv/bad/e.js": 'require("child_process").execSync("redline approve 1")\n',
    "/srv/bad/f.rb": 'system("redline approve 1")\n',
    "/srv/bad/p.pl": 'system "redline", "approve", "1";\n',
    "/srv/bad/x.php": '<?php shell_exec("redline approve 1");\n',
    "/srv/bad/d.txt": "redline approve 1\n",
    "/srv/bad/a.awk": 'BEGIN { system("redline approve 1") }\n',
    "/srv/bad/k.txt": "kill -9 4242\n",
    "/srv/bad/conftest.py": 'import os\nos.system("redline approve 1")\n',
    "/srv/bad/setup.py": 'import os\nos.system("redline approve 1")\n',
    "/srv/bad/tool/__main__.py": 'import os\nos.system("redline approve 1")\n',
    "/srv/bad/package.json": '{"name": "p", "scripts": {"test": "redline approve 1", '
    '"build": "tsc", "prebuild": "curl -X POST http://127.0.0.1:8787/api/held/1/approve", '
    '"postinstall": "redline approve 1"}}\n',
    "/srv/bad/.git/HEAD": "ref: refs/heads/main\n",
    "/srv/bad/.git/hooks/pre-commit": "#!/bin/sh\nredline approve 1\n",
    "/srv/bad/.git/hooks/pre-push": "#!/usr/bin/env python3\nimport os\n"
    "os.system('redline approve 1')\n",
    "/srv/hooked/.git/config": "[core]\n\thooksPath = .githooks\n",
    "/srv/hooked/.githooks/pre-commit": "#!/bin/sh\nredline approve 1\n",
}


class Machine(World):
    """The service on 18999 too (its state file), process 4242 (group 4240),
    the Hermes gateway 4300; the machine is also `devbox`; `/tmp/h` links to
    the owner's home, `/tmp/gl` to the gate's, `/tmp/gs` to its socket,
    `/tmp/hk` to a key."""

    def __init__(self, gate: str = "") -> None:
        self.gate = gate

    def service_ports(self) -> frozenset[int]:
        return frozenset({18999})

    def loopback_names(self) -> frozenset[str]:
        return frozenset({"devbox"})

    def gate_processes(self) -> tuple[Process, ...]:
        return (
            Process(
                4242, 4240, "redline", "/srv/app/.venv/bin/python /srv/app/.venv/bin/redline serve"
            ),
            Process(4300, 4300, "python3", "python3 -m hermes.gateway run"),
        )

    def read_script(self, path: str) -> str | None:
        return SCRIPTS.get(path)

    def expand(self, pattern: str) -> tuple[str, ...]:
        return tuple(sorted(p for p in SCRIPTS if fnmatch.fnmatchcase(p, pattern)))

    def resolve(self, path: str) -> str | None:
        # `/tmp/h` is a link to the owner's home (`ln -s ~ /tmp/h`, an earlier call).
        if path == "/tmp/h" or path.startswith("/tmp/h/"):
            return HOME + path[len("/tmp/h") :]
        if self.gate and (path == "/tmp/gl" or path.startswith("/tmp/gl/")):
            return self.gate + path[len("/tmp/gl") :]
        if self.gate and path == "/tmp/gs":  # a link to the owner's socket itself
            return self.gate + "/service/owner/owner.sock"
        if path == "/tmp/hk":  # and one to a key
            return HOME + "/.ssh/id_rsa"
        return None


class Case:
    def __init__(self, family: str, rule: str, item: Any, denied: bool) -> None:
        data = item if isinstance(item, dict) else {"command": item}
        self.family, self.denied = family, denied
        self.rule = data.get("rule", rule)
        self.command: str | None = data.get("command")
        self.tool: str | None = data.get("tool")
        self.args: dict[str, Any] = data.get("args", {})
        self.world = bool(data.get("world"))

    def __repr__(self) -> str:
        return self.command or f"{self.tool} {json.dumps(self.args)}"

    def filled(self, home: str, gate: str) -> Case:
        def fill(value: Any) -> Any:
            if isinstance(value, str):
                encoded = gate.replace("/", "%2F")
                return (
                    value.replace("{home}", home)
                    .replace("{gate_encoded}", encoded)
                    .replace("{gate}", gate)
                )
            if isinstance(value, dict):
                return {k: fill(v) for k, v in value.items()}
            if isinstance(value, list):
                return [fill(v) for v in value]
            return value

        copy = Case.__new__(Case)
        copy.__dict__.update(self.__dict__)
        copy.command = fill(self.command)
        copy.args = fill(self.args)
        return copy


def load_cases() -> list[Case]:
    cases: list[Case] = []
    for family in yaml.safe_load((HERE / "self_protection.yaml").read_text(encoding="utf-8")):
        for item in family["must_match"]:
            cases.append(Case(family["family"], family["rule"], item, True))
        for item in family.get("must_not_match", ()):
            cases.append(Case(family["family"], family["rule"], item, False))
    return cases


CASES = load_cases()
CLAUDE_TOOLS = ("Write", "Edit", "Read", "WebFetch", "mcp__")

# Each route: its name, and a function from a case to a verdict summary
# `(verdict, code, rule id or None)`.
Summary = tuple[Verdict, str | None, str | None]


def summary(decision: Decision) -> Summary:
    return decision.verdict, decision.code, decision.hits[0].rule_id if decision.hits else None


def gate_routes(case: Case, gate: Gate) -> Iterator[tuple[str, Summary]]:
    if case.command is not None:
        command = case.command
        calls = {
            "hermes terminal": ToolCall("terminal", {"command": command, "workdir": WORKDIR}),
            "claude Bash": ToolCall("Bash", {"command": command}, cwd=WORKDIR),
            "codex shell": ToolCall("shell", {"command": ["bash", "-lc", command]}, cwd=WORKDIR),
            "gemini run_shell_command": ToolCall(
                "run_shell_command", {"command": command}, cwd=WORKDIR
            ),
            "mcp command": ToolCall("mcp__shell__exec", {"command": command}, cwd=WORKDIR),
        }
    else:
        assert case.tool is not None
        calls = {"gate": ToolCall(case.tool, case.args, cwd=WORKDIR)}
    for route, call in calls.items():
        yield route, summary(gate.check(call))


def hook_routes(case: Case, env: dict[str, str]) -> Iterator[tuple[str, Summary]]:
    filled = case.filled(env["HOME"], env["REDLINE_HOME"])
    if filled.command is not None:
        tool, args = "Bash", {"command": filled.command}
        generic = {"tool": "terminal", "args": {"command": filled.command, "workdir": WORKDIR}}
    else:
        assert filled.tool is not None
        tool, args = filled.tool, filled.args
        generic = {"tool": tool, "args": args, "cwd": WORKDIR}
    reply = run_inproc("generic", generic, env)
    out = json.loads(reply.stdout)
    rule = out["rules"][0] if out.get("rules") else None
    yield "generic hook", (Verdict.parse(out["verdict"]), out.get("code"), rule)
    if filled.command is not None or tool.startswith(CLAUDE_TOOLS):
        payload = {
            "session_id": "s1",
            "cwd": WORKDIR,
            "hook_event_name": "PreToolUse",
            "tool_name": tool,
            "tool_input": args,
            "tool_use_id": "toolu_1",
        }
        reply = run_inproc("claude-code", payload, env)
        said = json.loads(reply.stdout)["hookSpecificOutput"] if reply.stdout else {}
        refused = said.get("permissionDecision") == "deny"
        reason = str(said.get("permissionDecisionReason", ""))
        code = "never-run" if refused and "never runs:" in reason else None
        rules = [r for r in (case.rule,) if f"`{r}`" in reason or r in reason]
        verdict = Verdict.DENY if refused else Verdict.ALLOW
        yield "claude-code hook", (verdict, code, rules[0] if rules else None)


@pytest.fixture
def machine_gate(tmp_path: Path) -> Gate:
    return Gate(
        home=HOME, redline_home=tmp_path / "redline", world=Machine(str(tmp_path / "redline"))
    )


@pytest.fixture
def hook_env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    return {"REDLINE_HOME": str(tmp_path / "hooked"), "HOME": str(home), "PATH": "/usr/bin:/bin"}


def judge(case: Case, gate: Gate, env: dict[str, str], gate_home: str) -> list[tuple[str, Summary]]:
    results = list(gate_routes(case.filled(HOME, gate_home), gate))
    if not case.world:
        results += list(hook_routes(case, env))
    return results


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_case(case: Case, machine_gate: Gate, hook_env: dict[str, str], tmp_path: Path) -> None:
    results = judge(case, machine_gate, hook_env, str(tmp_path / "redline"))
    if case.denied:
        wrong = [(r, s) for r, s in results if s != (Verdict.DENY, "never-run", case.rule)]
    else:
        wrong = [(r, s) for r, s in results if s[1] == "never-run"]
    assert wrong == [], case


def test_every_attempt_is_refused_and_counted(
    machine_gate: Gate,
    hook_env: dict[str, str],
    tmp_path: Path,
    record_property: Callable[..., None],
) -> None:
    """All attempts at once: routes x spellings, every one a never-run deny."""
    attempts = refused = 0
    for case in CASES:
        if not case.denied:
            continue
        for _, result in judge(case, machine_gate, hook_env, str(tmp_path / "redline")):
            attempts += 1
            refused += result == (Verdict.DENY, "never-run", case.rule)
    record_property("attempts", attempts)
    print(f"\nself-protection: {refused} of {attempts} attempts refused as never-run")
    assert (refused, attempts >= 1000) == (attempts, True)
