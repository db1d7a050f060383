"""F-SHELL-6: targets reduce to one spelling before rules judge them."""

from __future__ import annotations

import pytest

from redline.shell import paths
from redline.shell.model import DYNAMIC


@pytest.mark.parametrize(
    ("value", "cwd", "expected"),
    [
        ("/", None, "/"),
        ("//", None, "/"),
        ("/./", None, "/"),
        ("/..", None, "/"),
        ("/etc/", None, "/etc"),
        ("/usr/./bin//", None, "/usr/bin"),
        ("/tmp/../etc", None, "/etc"),
        ("~", None, "~"),
        ("~/", None, "~"),
        ("~/x/../y", None, "~/y"),
        ("~/..", None, "/home"),
        ("~bob/x", None, "/home/bob/x"),
        ("x/y", None, "x/y"),
        ("../x", None, "../x"),
        (".", None, "."),
        (".", "/srv/app", "/srv/app"),
        ("..", "/srv", "/"),
        ("*", "/", "/*"),
        ("x", "~", "~/x"),
        (DYNAMIC + "/x", None, None),
        ("", None, None),
    ],
)
def test_normalize(value: str, cwd: str | None, expected: str | None) -> None:
    assert paths.normalize(value, cwd) == expected


@pytest.mark.parametrize("path", ["/", "/*", "/.*"])
def test_root(path: str) -> None:
    assert paths.is_root(path)


@pytest.mark.parametrize(
    "path", ["/etc", "/etc/*", "/USR", "/e*", "/[u]sr", "/usr/lib", "/var/*", "/home/*"]
)
def test_system_dirs(path: str) -> None:
    assert paths.is_system_dir(path)


@pytest.mark.parametrize(
    "path", ["/etc/nginx", "/tmp", "/tmp/*", "*", "etc", "/usr/lib/x/y", "/srv/app"]
)
def test_not_system_dirs(path: str) -> None:
    assert not paths.is_system_dir(path)


@pytest.mark.parametrize("path", ["~", "~/*", "/home/alice", "/root", "/Users/bob", "/home/bob/*"])
def test_home_dirs(path: str) -> None:
    assert paths.is_home_dir(path)


@pytest.mark.parametrize("path", ["~/x", "/home/alice/src", "/home", "home"])
def test_not_home_dirs(path: str) -> None:
    assert not paths.is_home_dir(path)
