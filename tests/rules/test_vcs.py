"""Git commands that destroy work or history."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from redline.rules.git_argv import git_command
from redline.shell.analysis import analyze

Judge = Callable[..., tuple[str, tuple[str, ...]]]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git -C /srv/app push -f", ("push", ("-f",), ())),
        ("git -c core.pager=cat --no-pager reset --hard", ("reset", ("--hard",), ())),
        ("git --git-dir .git --work-tree . clean -fd", ("clean", ("-d", "-f"), ())),
        ("git -c alias.wipe='reset --hard' wipe HEAD~1", ("reset", ("--hard",), ("HEAD~1",))),
        ("git -c alias.x='!rm -rf .' x", ("x", (), ())),
    ],
)
def test_git_command_reads_global_options_and_aliases(
    command: str, expected: tuple[str, tuple[str, ...], tuple[str, ...]]
) -> None:
    parsed = git_command(analyze(command).invocations[0])
    assert parsed is not None
    sub, args = parsed
    assert (sub, tuple(sorted(args.flags)), args.operands) == expected


def test_git_without_subcommand() -> None:
    assert git_command(analyze("git --version").invocations[0]) is None


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git reset --hard", ("ask", ("vcs.reset-hard",))),
        ("/usr/bin/git reset --hard origin/main", ("ask", ("vcs.reset-hard",))),
        ("sudo git -C repo reset --hard", ("ask", ("vcs.reset-hard",))),
        ("git push --force origin main", ("ask", ("vcs.push-force",))),
        ("git push -fu origin x", ("ask", ("vcs.push-force",))),
        ("git push --force-with-lease", ("ask", ("vcs.push-force",))),
        ("git push origin +main:main", ("ask", ("vcs.push-force",))),
        ("git push --mirror", ("ask", ("vcs.push-delete",))),
        ("git push origin :feature", ("ask", ("vcs.push-delete",))),
        ("git push origin --delete feature", ("ask", ("vcs.push-delete",))),
        ("git clean -fdx", ("ask", ("vcs.clean-force",))),
        ("git clean --force", ("ask", ("vcs.clean-force",))),
        ("git branch -D old", ("ask", ("vcs.branch-force-delete",))),
        ("git branch --delete --force old", ("ask", ("vcs.branch-force-delete",))),
        ("git checkout -- .", ("ask", ("vcs.discard-changes",))),
        ("git restore .", ("ask", ("vcs.discard-changes",))),
        ("git stash clear", ("ask", ("vcs.stash-drop",))),
        ("git filter-repo --invert-paths --path x", ("ask", ("vcs.rewrite-history",))),
        ("git reflog expire --expire=now --all", ("ask", ("vcs.drop-unreachable",))),
        ("git gc --prune=now", ("ask", ("vcs.drop-unreachable",))),
        ("git update-ref -d refs/heads/x", ("ask", ("vcs.delete-ref",))),
        (
            "git reset --hard && git clean -fd",
            ("ask", ("vcs.reset-hard", "vcs.clean-force")),
        ),
        ("git status", ("allow", ())),
        ("git log --grep=force", ("allow", ())),
        ("git diff HEAD~1", ("allow", ())),
        ("git commit -m 'git reset --hard is bad'", ("allow", ())),
        ("git push origin main", ("allow", ())),
        ("git push -u origin feature", ("allow", ())),
        ("git push --tags", ("allow", ())),
        ("git pull --rebase", ("allow", ())),
        ("git fetch --prune", ("allow", ())),
        ("git checkout -b feature", ("allow", ())),
        ("git switch main", ("allow", ())),
        ("git branch -d merged", ("allow", ())),
        ("git restore --staged .", ("allow", ())),
        ("git clean -n", ("allow", ())),
        ("git rebase -i HEAD~3", ("allow", ())),
        ("git stash pop", ("allow", ())),
        ("git gc", ("allow", ())),
        ("echo 'git reset --hard'", ("allow", ())),
        ("grep -r 'push --force' docs", ("allow", ())),
    ],
)
def test_verdicts(judge: Judge, command: str, expected: tuple[str, tuple[str, ...]]) -> None:
    assert judge(command) == expected


def test_carriers_are_followed(judge: Judge) -> None:
    for command in ("bash -c 'git reset --hard'", 'sh -c "g\\it push -f"', "eval git clean -f"):
        assert judge(command)[0] == "ask", command
