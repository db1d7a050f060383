"""`redline doctor`: wired agents are found and their hooks are run."""

from __future__ import annotations

import json
from pathlib import Path

from hookkit import Env

from redline.hooks.doctor import Finding, blocked, diagnose
from redline.hooks.install import install


def test_nothing_wired(env: Env, tmp_path: Path) -> None:
    findings = diagnose(str(tmp_path / "home"), None, env)
    assert [(f.host, f.ok, f.detail) for f in findings] == [
        ("redline", True, "only the owner can reach the gate's files"),
        *((host, True, "not wired up") for host in ("claude-code", "codex", "gemini", "hermes")),
    ]


def test_every_installed_hook_answers(env: Env, tmp_path: Path) -> None:
    home = str(tmp_path / "home")
    for host in ("claude-code", "codex", "gemini", "hermes"):
        install(host, home=home, environ=env)
    findings = diagnose(home, None, env)
    assert all(f.ok for f in findings), findings
    assert [(f.host, f.event) for f in findings] == [
        ("redline", None),
        ("claude-code", "PreToolUse"),
        ("codex", "PreToolUse"),
        ("codex", None),  # Codex trusts it
        ("gemini", "BeforeTool"),
        ("hermes", "pre_tool_call"),
    ]


def test_a_hook_that_cannot_run_is_reported(env: Env, tmp_path: Path) -> None:
    home = tmp_path / "home"
    install("claude-code", home=str(home), environ=env)
    path = home / ".claude" / "settings.json"
    data = json.loads(path.read_text())
    handler = data["hooks"]["PreToolUse"][0]["hooks"][0]
    handler["command"] = handler["command"].replace(" -I ", "-gone -I ", 1)
    path.write_text(json.dumps(data))
    findings = [f for f in diagnose(str(home), None, env) if f.host == "claude-code"]
    assert findings == [
        Finding(
            "claude-code",
            str(path),
            "PreToolUse",
            False,
            "the hook blocked a harmless `ls` (exit 2): "
            "redline: the hook could not run; the call is blocked",
        )
    ]


def test_blocked_reads_each_agents_answer() -> None:
    deny = {"hookSpecificOutput": {"permissionDecision": "deny"}}
    assert blocked("claude-code", 0, json.dumps(deny))
    assert blocked("codex", 2, "")
    assert blocked("gemini", 0, '{"decision": "deny"}')
    assert blocked("hermes", 0, '{"action": "block", "message": "m"}')
    assert not blocked("claude-code", 0, "")
    assert not blocked("gemini", 0, "{}")
    assert blocked("hermes", 1, '{"action": "block"}')  # Hermes reads stdout only
    assert blocked("hermes", 0, '{"decision": "block", "reason": "r"}')
    assert not blocked("hermes", 2, "")
    assert not blocked("hermes", 2, "redline blocked this call")


def test_a_service_that_is_down_is_one_clean_line(env: Env, tmp_path: Path) -> None:
    """Every agent's hook with `--service` and no service: the repair, nothing else."""
    from redline.approve.paths import ServicePaths
    from redline.approve.signing import Signer, encode_public
    from redline.hooks.doctor import SERVICE_DOWN
    from redline.hooks.install import Options

    key = encode_public(Signer.load_or_create(ServicePaths(env["REDLINE_HOME"])).public_raw)
    home = str(tmp_path / "home")
    env = {**env, "HERMES_HOME": str(tmp_path / "home" / ".hermes")}
    for host in ("claude-code", "codex", "gemini", "hermes"):
        install(host, home=home, options=Options(service=True, service_key=key), environ=env)
    findings = diagnose(home, None, env)
    probes = [
        f for f in findings if f.host != "redline" and not f.detail.startswith("Codex trusts")
    ]
    assert [(f.host, f.ok, f.detail) for f in probes] == [
        (host, False, SERVICE_DOWN) for host in ("claude-code", "codex", "gemini", "hermes")
    ]
    assert SERVICE_DOWN == (
        "the hook asks `redline serve`, which is not answering: start `redline serve`"
    )


def test_the_probes_are_logged_under_the_doctors_session(env: Env, tmp_path: Path) -> None:
    from redline.audit.store import Query, open_store
    from redline.hooks.doctor import SESSION

    home = str(tmp_path / "home")
    install("claude-code", home=home, environ=env)
    assert all(f.ok for f in diagnose(home, None, env))
    with open_store(f"sqlite://{env['REDLINE_HOME']}/log.sqlite3", create=False) as store:
        everything = store.query(Query())
    assert [
        (e.record.session, e.record.tool, e.record.verdict, e.record.arguments()["command"])
        for e in everything
    ] == [(SESSION, "Bash", "allow", "ls"), (SESSION, "Bash", "deny", "rm -rf /")]
    assert SESSION == "redline-doctor"


def test_a_home_others_can_reach_is_reported(env: Env, tmp_path: Path) -> None:
    home = Path(env["REDLINE_HOME"])
    (home / "sessions").mkdir(parents=True, mode=0o755)
    (home / "log.sqlite3").write_text("")
    for loose_dir in (home, home / "sessions"):
        loose_dir.chmod(0o755)  # as an older version left them
    (home / "log.sqlite3").chmod(0o644)
    [finding] = [f for f in diagnose(str(tmp_path / "home"), None, env) if f.host == "redline"]
    assert finding == Finding(
        "redline",
        str(home),
        None,
        False,
        f"other users can reach `{home}` (755, wants 700), `{home}/sessions` (755, wants 700), "
        f"`{home}/log.sqlite3` (644, wants 600); `redline serve`, `redline install` or the "
        "next hook makes them the owner's alone",
    )
