"""Git commands that destroy work or history: uncommitted changes, untracked
files, branches, stashes, the reflog, and the remote's history (F-RULES-2)."""

from __future__ import annotations

from collections.abc import Callable

from redline.decision import Severity
from redline.rules import argv
from redline.rules.git_argv import GITS, git_command
from redline.rules.model import Rule, rule
from redline.shell import paths
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation

D = Severity.DANGEROUS

# Pathspecs that name the whole working tree.
_EVERYTHING = frozenset({".", "./", ":/", ":", "*", ":/*", ":(top)", ":(top).", ":/."})


GitTest = Callable[[str, argv.Args], bool]


def _git(check: GitTest) -> Callable[[Invocation, Analysis], bool]:
    def test(inv: Invocation, analysis: Analysis) -> bool:
        parsed = git_command(inv, analysis)
        return parsed is not None and check(*parsed)

    return test


def _dry_run(args: argv.Args) -> bool:
    return args.has("-n", "--dry-run")


def _reset_hard(sub: str, args: argv.Args) -> bool:
    return sub == "reset" and args.has("--hard")


def _push_force(sub: str, args: argv.Args) -> bool:
    if sub != "push" or _dry_run(args):
        return False
    forced = args.has("-f", "--force", "--force-with-lease", "--force-if-includes")
    return forced or any(o.startswith("+") for o in args.operands[1:])


def _push_delete(sub: str, args: argv.Args) -> bool:
    if sub != "push" or _dry_run(args):
        return False
    if args.has("-d", "--delete", "--mirror", "--prune"):
        return True
    return any(o.startswith((":", "+:")) and o not in (":", "+:") for o in args.operands[1:])


def _clean_force(sub: str, args: argv.Args) -> bool:
    return sub == "clean" and args.has("-f", "--force") and not _dry_run(args)


def _branch_force_delete(sub: str, args: argv.Args) -> bool:
    if sub != "branch":
        return False
    return args.has("-D") or (args.has("-d", "--delete") and args.has("-f", "--force"))


def _discard_changes(sub: str, args: argv.Args) -> bool:
    # A directory (`src/`) or a glob (`'*.py'`) discards many files at once.
    everything = args.has("--pathspec-from-file") or any(
        o in _EVERYTHING or o.endswith("/") or paths.is_glob(o) for o in args.operands
    )
    if sub == "checkout":
        return args.has("-f", "--force") or everything
    if sub == "switch":
        return args.has("-f", "--force", "--discard-changes")
    if sub == "restore":
        staged_only = args.has("-S", "--staged") and not args.has("-W", "--worktree")
        return everything and not staged_only
    if sub == "rm":
        return args.has("-f", "--force") and not args.has("--cached") and not _dry_run(args)
    if sub == "worktree":
        return args.operands[:1] == ("remove",) and args.has("-f", "--force")
    if sub == "checkout-index":  # every tracked file written over from the index
        return args.has("-f", "--force") and args.has("-a", "--all")
    if sub == "read-tree":  # `-u --reset`: the tree written over the working files
        return args.has("-u") and args.has("--reset")
    if sub == "submodule":  # `deinit -f`: submodule trees removed with their changes
        return args.operands[:1] == ("deinit",) and args.has("-f", "--force")
    return False


def _stash_drop(sub: str, args: argv.Args) -> bool:
    return sub == "stash" and args.operands[:1] in (("drop",), ("clear",))


def _rewrite_history(sub: str, args: argv.Args) -> bool:
    return sub in ("filter-branch", "filter-repo")


_KEEPS = frozenset({"never", "false"})


def _drop_unreachable(sub: str, args: argv.Args) -> bool:
    if sub == "reflog":
        verb = args.operands[:1]
        if verb == ("delete",):
            return True
        expiry = args.value("--expire", "--expire-unreachable")
        return verb == ("expire",) and any(v.lower() not in _KEEPS for v in expiry)
    if sub == "gc":
        return any(v.lower() not in _KEEPS for v in args.value("--prune"))
    if sub == "prune":
        return not _dry_run(args) and all(v.lower() not in _KEEPS for v in args.value("--expire"))
    return False


def _delete_ref(sub: str, args: argv.Args) -> bool:
    if sub in ("update-ref", "symbolic-ref", "tag"):
        return args.has("-d", "--delete")
    return False


VCS_RULES: tuple[Rule, ...] = (
    rule(
        "vcs.reset-hard",
        "vcs",
        D,
        "`git reset --hard` throws away uncommitted changes",
        "keep the changes with `git stash` first, or use `git reset --keep`",
        programs=GITS,
        test=_git(_reset_hard),
        must_match=(
            "git reset --hard",
            "git reset --hard HEAD~3",
            "sudo git -C /srv/app reset --hard",
            "/usr/bin/git -c core.pager=cat reset --hard origin/main",
            "bash -c 'g\"i\"t reset --hard'",
            "git -c alias.nuke='reset --hard' nuke",
            "git reset --har HEAD~1",
            "git config alias.nuke 'reset --hard' && git nuke",
        ),
        must_not_match=(
            "git reset",
            "git reset --soft HEAD~1",
            "echo 'git reset --hard'",
            "git log --grep='reset --hard'",
            "git commit -m 'git reset --hard'",
            "git config alias.undo 'reset --soft HEAD~1' && git undo",
            "git nuke && git config alias.nuke 'reset --hard'",
        ),
    ),
    rule(
        "vcs.push-force",
        "vcs",
        D,
        "force push: rewrites the remote branch's history",
        "push without force; if history must be rewritten, ask the owner first",
        programs=GITS,
        test=_git(_push_force),
        must_match=(
            "git push --force",
            "git push -f origin main",
            "git push -uf origin feature",
            "git push --force-with-lease",
            "git push origin +main",
            "timeout 5 git push --force-with-lease=main:abc origin main",
            "env GIT_SSH_COMMAND=ssh git push origin +HEAD:main",
        ),
        must_not_match=(
            "git push origin main",
            "git push -u origin feature",
            "git push --dry-run -f",
            "git push --force --help",
            "git log --grep=force",
            "echo git push --force",
            "git pull --force",
        ),
    ),
    rule(
        "vcs.push-delete",
        "vcs",
        D,
        "push that deletes remote branches or tags (`--delete`, `:branch`, `--mirror`, `--prune`)",
        "delete remote branches only when the owner asks; name each one",
        programs=GITS,
        test=_git(_push_delete),
        must_match=(
            "git push origin --delete feature",
            "git push origin :old-branch",
            "git push --mirror backup",
            "git push -d origin v1.0",
            "git push --prune origin 'refs/heads/*:refs/heads/*'",
            "git push origin :refs/tags/v1",
            "git push --mirr backup",
            "git push --del origin feature",
        ),
        must_not_match=(
            "git push origin main",
            "git push origin :",
            "git push origin HEAD:main",
            "git branch --delete old",
            "git push -n --delete origin x",
            "git push --dry --mirror backup",
        ),
    ),
    rule(
        "vcs.clean-force",
        "vcs",
        D,
        "`git clean -f` deletes untracked files, which git cannot bring back",
        "preview with `git clean -n` and delete only the files you created",
        programs=GITS,
        test=_git(_clean_force),
        must_match=(
            "git clean -f",
            "git clean -fdx",
            "git clean --force -d",
            "git -C ../repo clean -xdf",
            "git clean -ffX",
            "git clean --forc -d",
            "git submodule foreach --recursive 'git clean -fdx'",
        ),
        must_not_match=(
            "git clean -n",
            "git clean -fdn",
            "git clean --dry-run -f",
            "git clean --dry -f",
            "git status --ignored",
            "echo git clean -fdx",
        ),
    ),
    rule(
        "vcs.branch-force-delete",
        "vcs",
        D,
        "force-delete a branch, even with commits merged nowhere",
        "delete merged branches with `git branch -d`; keep unmerged ones or ask the owner",
        programs=GITS,
        test=_git(_branch_force_delete),
        must_match=(
            "git branch -D feature",
            "git branch --delete --force old",
            "git branch -d -f tmp",
            "git branch -df tmp",
            "git branch --del --forc feat",
            "sudo git branch -D x",
        ),
        must_not_match=(
            "git branch -d merged",
            "git branch -a",
            "git checkout -b new",
            "git branch --force new main",
            "echo git branch -D x",
        ),
    ),
    rule(
        "vcs.discard-changes",
        "vcs",
        D,
        "discard uncommitted changes in the working tree",
        "save the changes with `git stash` or a commit first, or discard single files by name",
        programs=GITS,
        test=_git(_discard_changes),
        must_match=(
            "git checkout -- .",
            "git checkout .",
            "git restore .",
            "git checkout -f main",
            "git restore --staged --worktree :/",
            "git switch --discard-changes main",
            "git checkout HEAD -- '*'",
            "git restore src/",
            "git checkout HEAD -- 'src/*.py'",
            "git rm -rf src",
            "git worktree remove --force ../wt",
            "git worktree remove --forc ../wt",
            "git checkout-index --all --force",
            "git read-tree -u --reset HEAD",
            "git submodule deinit -f --all",
            "git switch --discard main",
            "git restore --pathspec-from-file=list.txt",
        ),
        must_not_match=(
            "git restore --staged .",
            "git checkout -b feature",
            "git checkout main",
            "git restore README.md",
            "git rm --cached -r -f .",
            "git checkout -- src/app.py",
            "echo git checkout .",
            "git checkout-index -a",
            "git read-tree HEAD",
            "git submodule deinit lib/vendored",
            "git checkout --help",
        ),
    ),
    rule(
        "vcs.stash-drop",
        "vcs",
        D,
        "drop or clear stashed changes",
        "apply the stash (`git stash pop`) or leave it; stashes cost nothing to keep",
        programs=GITS,
        test=_git(_stash_drop),
        must_match=(
            "git stash drop",
            "git stash clear",
            "git stash drop stash@{2}",
            "git -C repo stash clear",
        ),
        must_not_match=("git stash", "git stash pop", "git stash list", "git log --grep=clear"),
    ),
    rule(
        "vcs.rewrite-history",
        "vcs",
        D,
        "rewrite the whole repository's history (`filter-branch`, `filter-repo`)",
        "work on a fresh clone and ask the owner before rewriting shared history",
        programs=GITS,
        test=_git(_rewrite_history),
        must_match=(
            "git filter-branch --tree-filter 'rm -f secret' HEAD",
            "git filter-repo --path secrets --invert-paths",
            "git -c x=y filter-branch -f -- --all",
        ),
        must_not_match=(
            "git log --all",
            "git rebase -i HEAD~3",
            "echo git filter-repo",
            "git help filter-branch",
            "git filter-branch --help",
        ),
    ),
    rule(
        "vcs.drop-unreachable",
        "vcs",
        D,
        "expire the reflog or prune unreachable commits: the last way back to lost work",
        "let git's default expiry run; `git gc` without `--prune=now` is enough",
        programs=GITS,
        test=_git(_drop_unreachable),
        must_match=(
            "git reflog expire --expire=now --all",
            "git gc --prune=now",
            "git gc --aggressive --prune=all",
            "git prune",
            "git reflog expire --expire-unreachable=now --all",
            "git reflog delete HEAD@{1}",
            "git gc --pru=now",
            "git reflog expire --expire-unr=now --all",
        ),
        must_not_match=(
            "git gc",
            "git reflog",
            "git remote prune origin",
            "git prune --dry-run",
            "git worktree prune",
            "git fetch --prune",
        ),
    ),
    rule(
        "vcs.delete-ref",
        "vcs",
        D,
        "delete a tag or ref directly",
        "leave tags and refs in place unless the owner asks to remove them",
        programs=GITS,
        test=_git(_delete_ref),
        must_match=(
            "git tag -d v1.0",
            "git update-ref -d refs/heads/old",
            "git tag --delete v1 v2",
            "git symbolic-ref --delete HEAD",
        ),
        must_not_match=(
            "git tag v1.0",
            "git tag -l",
            "git update-ref refs/heads/x HEAD",
            "echo git tag -d v1",
        ),
    ),
)
