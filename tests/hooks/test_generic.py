"""The generic hook: the Decision as JSON, the verdict as the exit code."""

from __future__ import annotations

import json

from hookkit import Env, gate_decision, run_inproc, run_process


def test_decision_json_and_exit_codes(env: Env) -> None:
    cases = [
        ({"command": "ls", "workdir": "/srv"}, 0),
        ({"command": "git push --force origin main", "workdir": "/srv"}, 3),
        ({"command": "rm -rf /", "workdir": "/"}, 4),
    ]
    for args, code in cases:
        call = {"tool": "terminal", "args": args, "session": "g1"}
        reply = run_inproc("generic", call, env)
        decision = gate_decision(env, "terminal", args, None)
        assert reply == (code, json.dumps(decision.to_json()) + "\n", "")


def test_context_in_the_call(env: Env) -> None:
    call = {
        "tool": "terminal",
        "args": {"command": "git push --force", "workdir": "/srv"},
        "context": "cron",
    }
    reply = run_inproc("generic", call, env)
    out = json.loads(reply.stdout)
    assert (reply.code, out["verdict"], out["code"], out["context"]) == (
        4,
        "deny",
        "no-approver",
        "cron",
    )


def test_failure_is_a_deny_decision(env: Env) -> None:
    done = run_process("generic", '{"tool": "terminal", "args": [1, 2]}', env)
    out = json.loads(done.stdout)
    assert (done.returncode, out["verdict"], out["code"]) == (4, "deny", "hook-failed")
    assert out["reason"] == "redline blocked this call: `args` must be a JSON object, not list"
