"""Stopping services and removing the crontab."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Judge = Callable[..., tuple[str, tuple[str, ...]]]
STOP = ("ask", ("svc.systemctl-stop",))
SERVICE = ("ask", ("svc.service-stop",))


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("systemctl stop nginx", STOP),
        ("sudo systemctl restart postgresql", STOP),
        ("systemctl --user --no-block stop hermes-gateway", STOP),
        ("systemctl -H host disable --now sshd", STOP),
        ("systemctl --signal=KILL kill redis", STOP),
        ("systemctl mask bluetooth", STOP),
        ("timeout 10 systemctl try-restart x", STOP),
        ("systemctl status nginx", ("allow", ())),
        ("systemctl start nginx", ("allow", ())),
        ("systemctl enable --now nginx", ("allow", ())),
        ("systemctl reload nginx", ("allow", ())),
        ("systemctl --user list-units", ("allow", ())),
        ("systemctl -p ActiveState show stop.service", ("allow", ())),
        ("systemctl reboot", ("deny", ("sys.shutdown",))),
        ("service nginx stop", SERVICE),
        ("sudo service php-fpm restart", SERVICE),
        ("rc-service -q sshd stop", SERVICE),
        ("/etc/init.d/mysql stop", SERVICE),
        ("launchctl bootout system/com.example.agent", SERVICE),
        ("supervisorctl restart web", SERVICE),
        ("service nginx status", ("allow", ())),
        ("launchctl list", ("allow", ())),
        ("pm2 list", ("allow", ())),
        ("crontab -r", ("ask", ("svc.crontab-remove",))),
        ("crontab -u www-data -r", ("ask", ("svc.crontab-remove",))),
        ("crontab -l", ("allow", ())),
        ("echo 'systemctl stop nginx'", ("allow", ())),
    ],
)
def test_verdicts(judge: Judge, command: str, expected: tuple[str, tuple[str, ...]]) -> None:
    assert judge(command) == expected
