"""Bash globs matched as bash matches them, classes and extended globs included."""

from __future__ import annotations

import pytest

from redline.shell.globs import is_extglob, matches


@pytest.mark.parametrize(
    ("pattern", "name"),
    [
        ("/e?c", "/etc"),
        ("/u*r", "/usr"),
        ("/[e]tc", "/etc"),
        ("/e[!x]c", "/etc"),
        ("/e[^x]c", "/etc"),
        ("/[[:alpha:]]tc", "/etc"),
        ("/dev/sd[[:lower:]]", "/dev/sda"),
        ("/dev/nvme[0-9]n1", "/dev/nvme0n1"),
        ("/@(etc|usr)", "/usr"),
        ("/+(e)tc", "/etc"),
        ("/!(tmp)", "/etc"),
        ("/?(x)etc", "/etc"),
        ("/**", "/usr/bin"),
    ],
)
def test_a_pattern_matches_what_bash_would_match(pattern: str, name: str) -> None:
    assert matches(pattern, name)


@pytest.mark.parametrize(
    ("pattern", "name"),
    [
        ("/*", "/usr/bin"),  # one `*` stays in its directory
        ("/e?c", "/e/c"),
        ("/!(etc)", "/etc"),
        ("/[[:digit:]]tc", "/etc"),
        ("/tmp/b?ild", "/etc"),
        ("/[[:nope:]]", "/e"),  # an unknown class is a literal bracket
    ],
)
def test_a_pattern_does_not_match_what_bash_would_not(pattern: str, name: str) -> None:
    assert not matches(pattern, name)


def test_extended_globs_are_recognised_by_their_opener() -> None:
    assert is_extglob("/@(etc|usr)") and is_extglob("x+(y)") and not is_extglob("f(x)")
