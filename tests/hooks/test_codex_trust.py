"""Codex runs only the hooks it trusts: `install codex` records the trust,
`uninstall` takes it back, and `doctor` reports a hook Codex would skip.

The hashes below are what Codex 0.171.0 itself listed (`codex app-server`,
`hooks/list`, `currentHash`) for these hooks."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from hookkit import Env

from redline.hooks.doctor import diagnose
from redline.hooks.install import install, uninstall
from redline.hooks.install.codextrust import MARK, hook_hash, ours


@pytest.mark.parametrize(
    ("event", "matcher", "handler", "digest"),
    [
        (
            "PreToolUse",
            None,
            {"type": "command", "command": "echo hello", "timeout": 30},
            "sha256:5227056934da07164e3c17bc9ff6ad056f44bd3112746e3abbdeac648618329b",
        ),
        (
            "PreToolUse",
            "Bash",
            {"type": "command", "command": "echo 'é \"q\"'"},  # the default timeout, 600 s
            "sha256:852ba7652b2643c7985efbb75976ce3d3e48bf7b3db7cf653d6804b83a59adea",
        ),
        (
            "PermissionRequest",
            None,
            {"type": "command", "command": "x", "timeout": 5, "statusMessage": "checking"},
            "sha256:3b72f45d1f1c41e3ce3d1c7595ffa67b6416dcdd999a697cfbfeb8437e217480",
        ),
    ],
)
def test_the_hash_is_the_one_codex_computes(
    event: str, matcher: str | None, handler: dict[str, object], digest: str
) -> None:
    assert hook_hash(event, matcher, handler) == digest


def _state(home: Path) -> dict[str, object]:
    data = tomllib.loads((home / ".codex" / "config.toml").read_text())
    state = data["hooks"]["state"]
    assert isinstance(state, dict)
    return state


def test_install_records_the_trust_and_keeps_the_rest(env: Env, tmp_path: Path) -> None:
    home = tmp_path / "home"
    config = home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    hooks_json = home / ".codex" / "hooks.json"
    key = f"{hooks_json}:pre_tool_use:0:0"
    config.write_text(
        f'model = "m"\n\n[hooks.state."{key}"]\ntrusted_hash = "sha256:old"\n\n[other]\na = 1\n'
    )
    changes = install("codex", home=str(home), environ=env)
    assert [(c.path, c.changed, c.summary) for c in changes][1] == (
        str(config),
        True,
        "recorded Codex's trust for redline's hook",
    )
    handler = json.loads(hooks_json.read_text())["hooks"]["PreToolUse"][0]["hooks"][0]
    assert _state(home) == {key: {"trusted_hash": hook_hash("PreToolUse", None, handler)}}
    data = tomllib.loads(config.read_text())
    assert (data["model"], data["other"]) == ("m", {"a": 1})
    assert config.read_text().count(MARK) == 1
    again = install("codex", home=str(home), environ=env)
    assert again[1].summary == "Codex trusts redline's hook already"


def test_every_event_is_trusted_and_uninstall_takes_it_back(env: Env, tmp_path: Path) -> None:
    from redline.hooks.install import Options

    home = tmp_path / "home"
    options = Options(defer_ask=True, record_outcomes=True)
    install("codex", home=str(home), options=options, environ=env)
    hooks_json = str(home / ".codex" / "hooks.json")
    assert (
        sorted(_state(home))
        == sorted(ours(hooks_json))
        == [
            f"{hooks_json}:{event}:0:0"
            for event in ("permission_request", "post_tool_use", "pre_tool_use")
        ]
    )
    changes = uninstall("codex", home=str(home), environ=env)
    assert changes[-1].summary == "removed Codex's trust for redline's hook and the file"
    assert not (home / ".codex" / "config.toml").exists()  # only redline's trust was in it


def test_a_config_that_is_not_toml_is_left_alone_with_the_step_to_take(
    env: Env, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    config = home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("model = [\n")
    changes = install("codex", home=str(home), environ=env)
    assert config.read_text() == "model = [\n"
    summary = changes[1].summary
    assert summary.startswith("NOT TRUSTED (")
    key = f"{home / '.codex' / 'hooks.json'}:pre_tool_use:0:0"
    assert f'[hooks.state."{key}"] trusted_hash = "sha256:' in summary


def test_doctor_fails_a_hook_codex_would_skip(env: Env, tmp_path: Path) -> None:
    home = tmp_path / "home"
    install("codex", home=str(home), environ=env)
    path = str(home / ".codex" / "hooks.json")
    bare = {**env, "PATH": "/usr/bin:/bin"}  # no `codex` to ask: the recorded trust is read

    def codex_trust() -> list[tuple[bool, str]]:
        found = diagnose(str(home), None, bare)
        return [(f.ok, f.detail) for f in found if f.host == "codex" and f.event is None]

    how = "from config.toml (no `codex` answered)"
    assert codex_trust() == [(True, f"Codex trusts redline's hook ({how})")]
    config = home / ".codex" / "config.toml"
    config.write_text(config.read_text().replace("sha256:", "sha256:0"))
    again = "run `redline install codex` again (it records Codex's trust), then restart Codex"
    key = f"{path}:pre_tool_use:0:0"
    assert codex_trust() == [
        (False, f"redline's hook `{key}` changed since Codex trusted it; {again} ({how})")
    ]
    config.write_text("")
    assert codex_trust() == [
        (False, f"Codex does not trust redline's hook `{key}` and will skip it; {again} ({how})")
    ]


FAKE_CODEX = """#!{python}
# A stand-in for `codex app-server`: answers `hooks/list` with what it is told.
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("id") == 1:
        print(json.dumps({{"id": 1, "result": {{}}}}), flush=True)
    elif message.get("id") == 2:
        hooks = {hooks}
        print(json.dumps({{"id": 2, "result": {{"data": [{{"hooks": hooks}}]}}}}), flush=True)
"""


def _fake_codex(folder: Path, hooks: list[dict[str, object]]) -> str:
    import sys

    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "codex"
    script.write_text(FAKE_CODEX.format(python=sys.executable, hooks=repr(hooks)))
    script.chmod(0o755)
    return str(folder)


@pytest.mark.parametrize(
    ("status", "enabled", "problem"),
    [
        ("trusted", True, None),
        ("untrusted", True, "Codex lists redline's hook `{key}` as untrusted and will skip it"),
        ("modified", True, "Codex lists redline's hook `{key}` as modified and will skip it"),
        ("trusted", False, "Codex has redline's hook `{key}` turned off; turn it on in `/hooks`"),
        (None, True, "Codex does not load redline's hook `{key}` (is the folder trusted?)"),
    ],
)
def test_doctor_and_install_ask_codex_itself(
    env: Env, tmp_path: Path, status: str | None, enabled: bool, problem: str | None
) -> None:
    home = tmp_path / "home"
    install("codex", home=str(home), environ=env)
    path = str(home / ".codex" / "hooks.json")
    key = f"{path}:pre_tool_use:0:0"
    command = json.loads(Path(path).read_text())["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    listed = (
        []
        if status is None
        else [{"key": key, "command": command, "trustStatus": status, "enabled": enabled}]
    )
    bin_dir = _fake_codex(tmp_path / "bin", listed)
    with_codex = {**env, "PATH": f"{bin_dir}:/usr/bin:/bin"}
    how = f"asked `{bin_dir}/codex app-server`"
    found = [
        (f.ok, f.detail)
        for f in diagnose(str(home), None, with_codex)
        if f.host == "codex" and f.event is None
    ]
    if problem is None:
        assert found == [(True, f"Codex trusts redline's hook ({how})")]
    else:
        assert found[0][0] is False
        assert found[0][1].startswith(problem.format(key=key))
        assert found[0][1].endswith(f"({how})")
    again = install("codex", home=str(home), environ=with_codex)
    warned = [c.summary for c in again if c.summary.startswith("warning: ")]
    assert warned == ([] if problem is None else [f"warning: {found[0][1]}"])
