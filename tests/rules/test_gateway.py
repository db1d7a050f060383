"""Killing, stopping or detaching the agent's own gateway."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from redline.rules.gateway import could_match_agent

Judge = Callable[..., tuple[str, tuple[str, ...]]]
KILL = ("ask", ("proc.kill-agent",))
KILL_USER = ("ask", ("proc.kill-agent", "proc.kill-user"))  # every process of a user


@pytest.mark.parametrize(
    ("pattern", "whole_line", "expected"),
    [
        ("hermes", False, True),
        ("HERMES", False, True),
        ("herm", False, True),
        ("[h]ermes", False, True),
        ("clau.e", False, True),
        ("node", False, True),
        ("python3", False, True),
        (".", False, True),
        ("^", False, True),
        ("foo|codex", False, True),
        ("gateway run", True, True),
        ("\x00", False, True),
        ("nginx", False, False),
        ("node server.js", True, False),
        ("python manage.py runserver", True, False),
        ("[w]ebpack", True, False),
        ("firefox", False, False),
    ],
)
def test_could_match_agent(pattern: str, whole_line: bool, expected: bool) -> None:
    assert could_match_agent(pattern, whole_line) is expected


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("pkill hermes", KILL),
        ("pkill -9 -f 'hermes gateway'", KILL),
        ("pkill --full claude", KILL),
        ("sudo killall node", KILL),
        ("killall -r '^py'", KILL),
        ("killall -u alice", KILL_USER),
        ("pkill -U 1000", KILL_USER),
        ("pkill -F ~/.hermes/gateway.pid", KILL),
        ("kill -9 $(pgrep -f gateway)", KILL),
        ("kill `pidof codex`", KILL),
        ("sudo kill $(pgrep gemini)", KILL),
        ("pgrep -f redline | xargs kill", KILL),
        ("kill $(cat ~/.hermes/gateway.pid)", KILL),
        ("kill $(ps aux | grep [h]ermes | awk '{print $2}')", KILL),
        ("pkill nginx", ("allow", ())),
        ("killall firefox", ("allow", ())),
        ("kill 4242", ("allow", ())),
        ("kill -HUP $(cat /run/nginx.pid)", ("allow", ())),
        ("kill $(pgrep -f 'celery worker')", ("allow", ())),
        ("pgrep -fl hermes", ("allow", ())),
        ("killall --list", ("allow", ())),
        ("hermes gateway stop", ("ask", ("proc.gateway-stop",))),
        ("hermes gateway restart", ("ask", ("proc.gateway-stop",))),
        ("hermes update", ("ask", ("proc.gateway-stop",))),
        ("hermes gateway status", ("allow", ())),
        ("hermes gateway run &", ("ask", ("proc.gateway-unsupervised",))),
        ("nohup hermes gateway run >/dev/null 2>&1 &", ("ask", ("proc.gateway-unsupervised",))),
        ("setsid hermes gateway run", ("ask", ("proc.gateway-unsupervised",))),
        ("hermes gateway run & disown", ("ask", ("proc.gateway-unsupervised",))),
        ("tmux new -d 'hermes gateway run'", ("ask", ("proc.gateway-unsupervised",))),
        ("hermes gateway run", ("allow", ())),
        ("hermes gateway run && echo done", ("allow", ())),
        ("echo 'pkill hermes; hermes gateway run &'", ("allow", ())),
    ],
)
def test_verdicts(judge: Judge, command: str, expected: tuple[str, tuple[str, ...]]) -> None:
    assert judge(command) == expected
