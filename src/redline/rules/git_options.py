"""Git's options, as the git rules need them: which take a separate value,
and each subcommand's long options, since git takes any unambiguous prefix
of a long option (`git push --mirr`, `git reset --har`, `git clean --forc`)."""

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
