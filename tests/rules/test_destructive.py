"""Recursive deletes short of the hard lines, batch deletes, shredding,
truncating and moving directories away."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from redline.rules.destructive import in_project_artifact, in_temp

Judge = Callable[..., tuple[str, tuple[str, ...]]]

ASK = "ask"
ALLOW = "allow"
DENY = "deny"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("rm file.txt", (ALLOW, ())),
        ("rm -f /tmp/out.log", (ALLOW, ())),
        ("rm -rf node_modules dist build", (ALLOW, ())),
        ("rm -rf ./packages/*/node_modules", (ALLOW, ())),
        ("rm -rf src/__pycache__ .pytest_cache .mypy_cache .ruff_cache", (ALLOW, ())),
        ("rm -rf mypkg.egg-info .tox .nox htmlcov coverage", (ALLOW, ())),
        ("rm -rf /tmp/build-42 /var/tmp/x", (ALLOW, ())),
        ("rm -rf src", (ASK, ("fs.delete-recursive",))),
        ("rm --recursive --force docs", (ASK, ("fs.delete-recursive",))),
        ("sudo rm -fr /opt/app", (ASK, ("fs.delete-recursive",))),
        ("\\rm -R ../node_modules", (ASK, ("fs.delete-recursive",))),
        ("/bin/rm -rf node_modules/../../src", (ASK, ("fs.delete-recursive",))),
        ("rm -rf /tmp", (ASK, ("fs.delete-recursive",))),
        ("rm -rf /tmp/*", (ASK, ("fs.delete-recursive",))),
        ("rm -rf ~/.cache/pip", (ASK, ("fs.delete-recursive",))),
        ("rm -rf dist src", (ASK, ("fs.delete-recursive",))),
        ("rm -rf /etc", (DENY, ("fs.delete-system-dir",))),
        ("rm -rf $DIR", (ASK, ("fs.delete-recursive",))),
        ('rm -rf "$OUT"/*', (ASK, ("fs.delete-recursive",))),
        ("ls | xargs rm -rf", (ASK, ("fs.delete-recursive",))),
        ("find / -name '*.tmp' -exec rm {} \\;", (ASK, ("fs.find-delete",))),
        ("rm -f $FILE", (ALLOW, ())),
        ("find . -name '*.log' -delete", (ASK, ("fs.find-delete",))),
        ("find . -type f -exec rm {} +", (ASK, ("fs.find-delete",))),
        ("find . -name '*.pyc' -delete", (ALLOW, ())),
        ("find . -name __pycache__ -type d -exec rm -rf {} +", (ALLOW, ())),
        ("find /tmp/cache -mtime +7 -delete", (ALLOW, ())),
        ("find . -name '*.log'", (ALLOW, ())),
        ("ls | xargs rm", (ASK, ("fs.xargs-rm",))),
        ("find . -print0 | xargs -0 rm -f", (ASK, ("fs.xargs-rm",))),
        ("shred -u key.pem", (ASK, ("fs.shred",))),
        ("truncate -s 0 /var/log/app.log", (ASK, ("fs.truncate",))),
        ("truncate -s 0 /tmp/x.log", (ALLOW, ())),
        ("truncate -s 0 app.log", (ALLOW, ())),
        ("truncate -s 2G disk.img", (ALLOW, ())),
        ("mv /etc /etc.old", (DENY, ("fs.move-system-dir",))),
        ("mv /usr/bin /tmp/bin", (DENY, ("fs.move-system-dir",))),
        ("mv ~ /tmp/old-home", (ASK, ("fs.move-protected-dir",))),
        # Not a move of a system directory; asked only because it rewrites /etc.
        ("mv /etc/nginx/a.conf /etc/nginx/b.conf", (ASK, ("sensitive.write-system-config",))),
        ("mv build/a.conf build/b.conf", (ALLOW, ())),
        ("echo rm -rf src", (ALLOW, ())),
        ("git commit -m 'rm -rf src'", (ALLOW, ())),
    ],
)
def test_verdicts(judge: Judge, command: str, expected: tuple[str, tuple[str, ...]]) -> None:
    assert judge(command) == expected


def test_carriers_and_wrappers_are_followed(judge: Judge) -> None:
    for command in ("bash -c 'rm -rf src'", "timeout 5 rm -rf src", "env A=1 r''m -rf src"):
        assert "fs.delete-recursive" in judge(command)[1], command


def test_working_directory_decides_relative_targets(judge: Judge) -> None:
    assert judge("rm -rf work", cwd="/tmp") == (ALLOW, ())
    assert judge("cd /tmp && rm -rf work") == (ALLOW, ())
    assert judge("rm -rf work", cwd="/srv") == (ASK, ("fs.delete-recursive",))
    assert judge("cd /srv && truncate -s 0 motd") == (ASK, ("fs.truncate",))
    assert judge("cd /etc && truncate -s 0 motd") == (
        ASK,
        ("fs.truncate", "sensitive.write-system-config"),
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("node_modules", True),
        ("web/node_modules/.cache", True),
        ("x.egg-info", True),
        ("../node_modules", False),
        ("build/../../etc", False),
        ("/abs/node_modules", False),
        ("~/build", False),
        ("src", False),
        (".", False),
    ],
)
def test_in_project_artifact(value: str, expected: bool) -> None:
    assert in_project_artifact(value) is expected


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/tmp/x", True),
        ("/tmp/*.log", True),
        ("/var/tmp/a/b", True),
        ("/tmp", False),
        ("/tmp/*", False),
        ("/tmp/.*", False),
        ("/tmpfoo", False),
    ],
)
def test_in_temp(path: str, expected: bool) -> None:
    assert in_temp(path) is expected
