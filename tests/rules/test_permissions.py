"""World-writable modes and recursive hand-overs to root."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from redline.rules.permissions import world_writable

Judge = Callable[..., tuple[str, tuple[str, ...]]]


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("777", True),
        ("0666", True),
        ("1777", True),
        ("702", True),
        ("o+w", True),
        ("a+rwx", True),
        ("ugo=rwx", True),
        ("u+x,o+w", True),
        ("go+rw-x", True),
        ("o=u", True),
        ("755", False),
        ("0644", False),
        ("775", False),
        ("+x", False),
        ("=rwx", False),
        ("o-w", False),
        ("g+w", False),
        ("u=rwx,go=rx", False),
    ],
)
def test_world_writable(mode: str, expected: bool) -> None:
    assert world_writable(mode) is expected


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("chmod 777 run.sh", ("ask", ("fs.chmod-world-writable",))),
        ("chmod --recursive 777 public", ("ask", ("fs.chmod-world-writable",))),
        ("sudo chmod -R a+w data", ("ask", ("fs.chmod-world-writable",))),
        ("mkdir -m 1777 shared", ("ask", ("fs.chmod-world-writable",))),
        ("umask 000", ("ask", ("fs.chmod-world-writable",))),
        ("chmod -R 777 /", ("deny", ("fs.chmod-system-recursive", "fs.chmod-world-writable"))),
        ("chmod 755 run.sh", ("allow", ())),
        ("chmod +x run.sh", ("allow", ())),
        ("chmod -R u+rwX,go+rX site", ("allow", ())),
        ("umask 022", ("allow", ())),
        ("chown -R root:root ./app", ("ask", ("fs.chown-root-recursive",))),
        ("sudo chown --recursive 0:0 build", ("ask", ("fs.chown-root-recursive",))),
        ("chgrp -R root shared", ("ask", ("fs.chown-root-recursive",))),
        ("chown -R :wheel data", ("ask", ("fs.chown-root-recursive",))),
        # Not recursive, but it changes a file under /etc: system configuration.
        ("chown root:root /etc/app.conf", ("ask", ("sensitive.write-system-config",))),
        ("chown root:root ./app.conf", ("allow", ())),
        ("chown -R alice:alice ~/project", ("allow", ())),
        ("chown -R --reference=ref dir", ("allow", ())),
        ("echo chmod 777 x", ("allow", ())),
    ],
)
def test_verdicts(judge: Judge, command: str, expected: tuple[str, tuple[str, ...]]) -> None:
    assert judge(command) == expected
