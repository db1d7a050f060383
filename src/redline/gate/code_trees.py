"""Commands that change the gate's own code without naming its files.

`git stash`, `git checkout BRANCH`, `git reset --hard`, `git clean` in the
checkout the hook imports redline from rewrite its source; `pyenv uninstall`
removes the Python that runs the hook; `patch` and `git apply` write the
files their diff names. Each is judged by the trees it changes.
"""

from __future__ import annotations

import os

from redline.gate.patchfile import patch_paths
from redline.gate.program_names import CODE_TREE_PROGRAMS
from redline.shell import paths
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation

TYPE_CHECKING = False  # not `typing`'s: kept off the hook's start (ADR 0004)
if TYPE_CHECKING:
    from redline.gate.never_run import Guard

PROGRAMS = CODE_TREE_PROGRAMS
# Verbs that rewrite a work tree's files (or the Python installs).
_GIT_REWRITES = frozenset({"checkout", "stash", "restore", "reset", "switch", "clean",
                           "merge", "rebase", "pull", "am", "cherry-pick", "revert", "apply",
                           "read-tree"})  # fmt: skip
_GIT_VALUED = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"})
_CODE = "the gate's own code"
# A diff larger than this is not read (it is judged by its name only).
MAX_DIFF = 256_000


def _source_trees(guard: Guard) -> list[str]:
    """The gate's code trees that are source checkouts (not an installed
    Python's `lib/python3.X` or `site-packages`)."""
    return [
        e.path
        for e in guard.table.entries
        if e.tree and e.what == _CODE and "/lib/python" not in e.path and "-packages" not in e.path
    ]


def _rewrites_code(guard: Guard, folder: str) -> str | None:
    """The checkout of the gate's code a rewrite of the work tree `folder`
    reaches: `folder` is in it (`src/` of a repo and all beside it), or
    holds it (not the home folder: a dotfiles repo there does not)."""
    home = guard.places.home.rstrip("/")
    for tree in _source_trees(guard):
        checkout = os.path.dirname(tree)
        if folder == checkout or folder.startswith(checkout + "/"):
            return tree
        if folder not in (home, "~", "/") and tree.startswith(folder + "/"):
            return tree
    return None


def _git_folder(inv: Invocation) -> tuple[str | None, str | None]:
    """The verb and the folder `git` works in (`-C DIR` or the cwd)."""
    values, folder = inv.values, inv.cwd
    k = 0
    while k < len(values):
        value = values[k]
        if value in _GIT_VALUED and k + 1 < len(values):
            if value == "-C":
                folder = paths.normalize(values[k + 1], folder) or folder
            k += 2
            continue
        if value.startswith("-"):
            k += 1
            continue
        return value, folder
    return None, folder


def _diff_hit(guard: Guard, inv: Invocation, analysis: Analysis, folder: str | None) -> str | None:
    """`patch -p1 < x.diff`, `git apply x.diff`: the diff's targets are written."""
    sources = [r.target.value for r in inv.redirects if r.target is not None]
    sources += [w.value for w in inv.options.operands if w.value.endswith((".diff", ".patch"))]
    values = inv.values
    sources += [values[k + 1] for k, v in enumerate(values[:-1]) if v in ("-i", "--input")]
    sources += [v.split("=", 1)[1] for v in values if v.startswith("--input=")]
    for k in inv.upstream:  # `cat x.diff | patch -p1`
        before = analysis.invocations[k]
        if before.name.rsplit("/", 1)[-1] in ("cat", "tac", "zcat", "less"):
            sources += [w.value for w in before.options.operands]
    text = inv.stdin_text or ""
    for source in sources:
        where = paths.normalize(source, inv.cwd)
        read = guard.world.read_script(where) if where else None
        if read and len(read) <= MAX_DIFF:
            text += "\n" + read
    for target in patch_paths(text):
        for strip in (target, target.split("/", 1)[-1]):
            path = guard.canon(strip, folder)
            if path is not None and guard.table.lookup(path, True) is not None:
                return f"the diff writes `{path}`, protected"
    return None


def changes_code(guard: Guard, inv: Invocation, analysis: Analysis) -> str | None:
    """Why `inv` changes the gate's code or its Python, or `None`."""
    name = inv.name.rsplit("/", 1)[-1]
    if name == "patch":
        return _diff_hit(guard, inv, analysis, inv.cwd)
    if name in ("pyenv", "asdf", "uv"):
        values = [v.lower() for v in inv.values]
        if "uninstall" in values and (name != "uv" or "python" in values):
            return f"`{name} uninstall` removes a Python (the gate's may be among them)"
        return None
    verb, folder = _git_folder(inv)
    if verb not in _GIT_REWRITES or folder is None:
        return None
    if verb == "apply" or verb == "am":
        found = _diff_hit(guard, inv, analysis, folder)
        if found:
            return found
    if verb == "apply":
        return None
    tree = _rewrites_code(guard, folder)
    if tree is not None:
        return f"`git {verb}` in `{folder}` rewrites `{tree}`, {_CODE}"
    return None
