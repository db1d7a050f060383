"""Reading git's argv as the git rules need it: the subcommand after git's
global options, an alias set on the same line expanded, which options take
a separate value, and each subcommand's long options, since git takes any
unambiguous prefix of a long option (`git push --mirr`, `git reset --har`,
`git clean --forc`)."""

from __future__ import annotations

from redline.rules import argv
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation

GITS = ("git", "hub")

# Global options that take a separate value (`git -C dir`, `git -c k=v`).
GLOBAL_SHORT = "Cc"
GLOBAL_LONG = ("git-dir", "work-tree", "namespace", "config-env", "super-prefix")

# Per subcommand: short letters and long names of options that take a value.
VALUES: dict[str, tuple[str, tuple[str, ...]]] = {
    "push": ("o", ("repo", "push-option", "receive-pack", "exec")),
    "checkout": ("bB", ("orphan", "conflict")),
    "restore": ("s", ("source", "conflict")),
    "switch": ("cC", ("create", "force-create", "orphan", "conflict")),
    "reflog": ("", ("expire", "expire-unreachable")),
    "clean": ("e", ("exclude",)),
    "branch": ("u", ("set-upstream-to", "contains", "no-contains", "merged", "points-at")),
    "checkout-index": ("", ("prefix", "stage")),
    "read-tree": ("", ("prefix", "index-output")),
}

# `git config`'s options that take a value, so `--file F alias.x y` reads right.
CONFIG_VALUES = ("f", ("file", "blob", "type", "default", "comment", "value", "url"))

_PATHSPEC = "pathspec-from-file pathspec-file-nul recurse-submodules quiet progress"
# Per subcommand, the other long options it accepts: what a prefix may stand for.
LONG: dict[str, tuple[str, ...]] = {
    name: tuple(spec.split())
    for name, spec in {
        "push": "all branches mirror delete tags follow-tags dry-run porcelain force "
        "force-with-lease force-if-includes prune no-verify verify set-upstream thin no-thin "
        "quiet verbose progress atomic signed recurse-submodules ipv4 ipv6",
        "reset": f"hard soft mixed merge keep no-quiet refresh no-refresh {_PATHSPEC}",
        "checkout": "force ours theirs track no-track guess no-guess overlay no-overlay merge "
        "patch detach ignore-skip-worktree-bits ignore-other-worktrees overwrite-ignore "
        + _PATHSPEC,
        "restore": "staged worktree patch ours theirs merge ignore-unmerged overlay no-overlay "
        f"ignore-skip-worktree-bits {_PATHSPEC}",
        "switch": "detach guess no-guess discard-changes force merge track no-track "
        f"ignore-other-worktrees {_PATHSPEC}",
        "clean": "force dry-run quiet interactive",
        "branch": "delete force move copy list all remotes verbose quiet unset-upstream track "
        "no-track no-merged sort format color no-color column no-column create-reflog "
        "edit-description show-current abbrev no-abbrev ignore-case omit-empty recurse-submodules",
        "reflog": "all rewrite updateref stale-fix dry-run verbose single-worktree",
        "gc": "aggressive auto prune no-prune quiet force keep-largest-pack cruft no-cruft "
        "max-cruft-size detach no-detach",
        "prune": "dry-run verbose progress expire",
        "worktree": "force detach checkout no-checkout lock reason orphan track no-track "
        "guess-remote no-guess-remote quiet verbose expire",
        "tag": "delete list annotate sign no-sign local-user file message force verify "
        "contains no-contains merged no-merged points-at sort format column color create-reflog",
        "update-ref": "no-deref stdin create-reflog",
        "symbolic-ref": "delete quiet short no-recurse",
        "checkout-index": "all force index quiet no-create temp stdin ignore-skip-worktree-bits",
        "read-tree": "reset trivial aggressive dry-run quiet empty no-sparse-checkout "
        "recurse-submodules",
        "submodule": "force all quiet cached recursive init remote no-fetch checkout merge rebase",
        "rm": "force dry-run cached ignore-unmatch sparse quiet " + _PATHSPEC,
        "stash": "quiet index keep-index no-keep-index include-untracked all patch staged",
    }.items()
}


def _configured_aliases(inv: Invocation, analysis: Analysis | None) -> tuple[str, ...]:
    """`alias.NAME=BODY` set by `git config` earlier in the same command
    (`git config alias.nuke 'reset --hard' && git nuke`)."""
    found: list[str] = []
    for other in analysis.invocations if analysis is not None else ():
        if other.index >= inv.index or other.name not in GITS:
            continue
        top = argv.parse(other.values, GLOBAL_SHORT, GLOBAL_LONG, stop_at_operand=True)
        if top.rest[:1] != ("config",):
            continue
        words = argv.parse(top.rest[1:], *CONFIG_VALUES).operands
        words = words[1:] if words[:1] in (("set",), ("--add",)) else words
        if len(words) >= 2 and words[0].lower().startswith("alias."):
            found.append(f"{words[0]}={words[1]}")
    return tuple(found)


def git_command(inv: Invocation, analysis: Analysis | None = None) -> tuple[str, argv.Args] | None:
    """The subcommand after git's global options, and its arguments; an alias
    set on the same line (`git -c alias.NAME=...`, an earlier `git config
    alias.NAME ...`) is expanded."""
    top = argv.parse(inv.values, GLOBAL_SHORT, GLOBAL_LONG, stop_at_operand=True)
    if not top.rest:
        return None
    sub, rest = top.rest[0].lower(), top.rest[1:]
    for setting in (*top.value("-c"), *_configured_aliases(inv, analysis)):
        key, _, body = setting.partition("=")
        if key.lower() == "alias." + sub and body and not body.startswith("!"):
            import shlex  # only for an alias set on the line: off a hook's start

            try:
                words = shlex.split(body)
            except ValueError:
                break
            if words:
                sub, rest = words[0].lower(), (*words[1:], *rest)
            break
    short, long = VALUES.get(sub, ("", ()))
    args = argv.parse(rest, short, long, long_names=LONG.get(sub, ()))
    if "--help" in args.flags:
        return None  # git shows the manual page and does nothing else
    return sub, args
