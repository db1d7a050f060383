"""`redline install hermes --plugin --enforce`: the plugin's `tool_execution`
middleware hands Hermes's terminal tool the allowed command wrapped in
`redline run` (with the ticket `pre_tool_call` made), and fails closed."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hookkit import Env

from redline.hooks import hermes, hermes_enforce
from redline.hooks.doctor import diagnose
from redline.hooks.install import hermes_plugin
from redline.sandbox.level import NAMESPACES, probe


class Context:
    """Hermes 0.19's `PluginContext`, as far as the plugin uses it."""

    def __init__(self, middleware: bool = True) -> None:
        self.hooks: dict[str, Any] = {}
        self.middleware: dict[str, Any] = {}
        if not middleware:
            self.register_middleware = None  # type: ignore[assignment]

    def register_hook(self, name: str, callback: Any) -> None:
        self.hooks[name] = callback

    def register_middleware(self, kind: str, callback: Any) -> None:
        self.middleware[kind] = callback


@pytest.fixture
def plugin_env(env: Env, monkeypatch: pytest.MonkeyPatch) -> Iterator[Env]:
    for name in ("HERMES_YOLO_MODE", "REDLINE_SERVICE", "REDLINE_HOOK_ENFORCE", "TERMINAL_ENV",
                 "REDLINE_ENFORCE_LAUNCH"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("HERMES_CRON_SESSION", "1")  # nobody is asked: an ask is refused
    yield env
    hermes_enforce.configure(False, False)


def loaded(enforce: bool, middleware: bool = True) -> Context:
    ctx = Context(middleware)
    hermes.register(ctx)
    hermes_enforce.configure(enforce, middleware)
    return ctx


WORKDIR = "/tmp"  # only named to the judge


def tool(given: Any) -> Callable[..., Any]:
    """Hermes's `next_call`: the tool, given new arguments or the same ones."""
    return lambda args=None: given if args is None else args


def terminal(
    ctx: Context, command: str, call_id: str = "c1", workdir: str = WORKDIR
) -> tuple[Any, Any]:
    """`pre_tool_call`, then the middleware around a stand-in of the tool that
    returns the arguments it was given."""
    call = {"session_id": "s1", "tool_call_id": call_id}
    args = {"command": command, "workdir": workdir}
    verdict = ctx.hooks["pre_tool_call"](tool_name="terminal", args=args, **call)
    if verdict is not None:
        return verdict, None
    given = {**args, "timeout": 5}
    ran = ctx.middleware["tool_execution"](
        tool_name="terminal", args=given, next_call=tool(given), **call
    )
    return None, ran


@pytest.mark.parametrize("launch", ["run", "direct"])
def test_an_allowed_command_runs_wrapped(
    plugin_env: Env, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, launch: str
) -> None:
    """Through `redline run` with its ticket, or bwrap's launch by the hook."""
    if launch == "run":
        monkeypatch.setenv("REDLINE_ENFORCE_LAUNCH", "run")
    elif probe().name != NAMESPACES:
        pytest.skip("needs the namespace sandbox")
    project = tmp_path / "project"  # not the folder holding the home: never a workspace
    project.mkdir()
    verdict, ran = terminal(loaded(enforce=True), "echo hi > out", workdir=str(project))
    assert verdict is None and ran["timeout"] == 5
    argv = shlex.split(ran["command"])
    if launch == "run":
        assert argv[1:5] == [sys.executable, "-I", "-m", "redline"]
        assert argv[-2:] == ["--shell", "echo hi > out"] and "--ticket" in argv
    else:
        assert "--clearenv" in argv and argv[-5:-3] == ["-c", "echo hi > out"]
    done = subprocess.run(
        ["bash", "-c", ran["command"]], cwd=project, env=plugin_env,
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert (done.returncode, (project / "out").read_text()) == (0, "hi\n"), done.stderr
    tickets = Path(plugin_env["REDLINE_HOME"]) / "tickets"
    assert not tickets.exists() or not list(tickets.iterdir())
    from hookkit import log_entries

    logged = log_entries(plugin_env)[0].record.args
    logged = json.loads(logged) if isinstance(logged, str) else logged
    assert logged["enforcement"] == probe().name


def test_without_enforcement_the_command_is_left_as_it_is(plugin_env: Env) -> None:
    assert terminal(loaded(enforce=False), "ls") == (
        None, {"command": "ls", "workdir": WORKDIR, "timeout": 5}
    )  # fmt: skip


def test_other_tools_and_denied_calls_are_not_wrapped(plugin_env: Env) -> None:
    ctx = loaded(enforce=True)
    verdict, _ = terminal(ctx, "rm -rf /")
    assert verdict["action"] == "block"
    passed = ctx.middleware["tool_execution"](
        tool_name="read_file", args={"path": "x"}, next_call=tool("same")
    )
    assert passed == "same"


def test_a_call_the_hook_did_not_see_is_judged_by_redline_run(
    plugin_env: Env, tmp_path: Path
) -> None:
    """No remembered rewrite (another call id): wrapped without a ticket."""
    ctx = loaded(enforce=True)
    ran = ctx.middleware["tool_execution"](
        tool_name="terminal", args={"command": "touch x; rm -rf /"},
        next_call=tool(None), tool_call_id="never-judged",
    )  # fmt: skip
    assert "--ticket" not in shlex.split(ran["command"])
    done = subprocess.run(
        ["bash", "-c", ran["command"]], cwd=tmp_path, env=plugin_env,
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 126 and not (tmp_path / "x").exists()


def test_fails_closed(plugin_env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = loaded(enforce=True)
    monkeypatch.setenv("TERMINAL_ENV", "docker")
    ran = ctx.middleware["tool_execution"](
        tool_name="terminal", args={"command": "ls"}, next_call=tool("ran")
    )
    assert "terminal backend is `docker`" in json.loads(ran)["error"]
    monkeypatch.setenv("TERMINAL_ENV", "local")

    def broken(*_: Any, **__: Any) -> str:
        raise OSError("no home")

    monkeypatch.setattr("redline.hooks.enforce.wrapped_command", broken)
    ran = ctx.middleware["tool_execution"](
        tool_name="terminal", args={"command": "ls"}, next_call=tool("ran")
    )
    assert json.loads(ran)["error"].endswith("could not be wrapped: no home")


def test_a_hermes_without_middleware_refuses_terminal_calls(plugin_env: Env) -> None:
    ctx = loaded(enforce=True, middleware=False)
    verdict = ctx.hooks["pre_tool_call"](
        tool_name="terminal", args={"command": "ls", "workdir": WORKDIR}
    )
    assert verdict["action"] == "block" and "no `tool_execution` middleware" in verdict["message"]


def test_enable_with_enforce_writes_the_plugin_entry_and_takes_it_back(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("model: m\n")
    hermes_plugin.enable(str(tmp_path), enforce=True)
    assert yaml.safe_load(config.read_text())["plugins"] == {
        "enabled": ["redline"], "entries": {"redline": {"enforce": True}}
    }  # fmt: skip
    assert hermes_plugin.enforced(str(tmp_path))
    hermes_plugin.disable(str(tmp_path))
    assert config.read_text() == "model: m\n"
    config.write_text(yaml.safe_dump({"plugins": {"enabled": ["x"], "entries": {"x": {"a": 1}}}}))
    hermes_plugin.enable(str(tmp_path), enforce=True)
    assert hermes_plugin.enforced(str(tmp_path))
    hermes_plugin.enable(str(tmp_path))  # an install without --enforce turns it off
    assert yaml.safe_load(config.read_text())["plugins"] == {
        "enabled": ["x", "redline"], "entries": {"x": {"a": 1}}
    }  # fmt: skip


def test_doctor_runs_the_middleware(env: Env, tmp_path: Path) -> None:
    home = tmp_path / "home"
    hermes_plugin.enable(str(home / ".hermes"), enforce=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "hermes"
    script.write_text(f"#!{sys.executable}\n")
    script.chmod(0o755)
    found = diagnose(str(home), None, {**env, "PATH": f"{bin_dir}:{os.environ.get('PATH', '')}"})
    [finding] = [f for f in found if f.host == "hermes"]
    assert finding.ok, finding.detail
    assert "enforcing: terminal commands run " in finding.detail
