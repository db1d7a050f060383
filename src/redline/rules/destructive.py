"""Destroying files: recursive deletes that are not hard lines, batch deletes
(`find -delete`, `xargs rm`), shredding, truncating, and moving system or
home directories away (F-RULES-2)."""

from __future__ import annotations

from collections.abc import Iterator

from redline.decision import Severity
from redline.rules import argv, targets
from redline.rules.model import Rule, rule
from redline.shell import find, paths
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation
from redline.shell.model import DYNAMIC

D = Severity.DANGEROUS
H = Severity.HARDLINE

# Directories any build regenerates: deleting them inside the project is everyday cleanup.
ARTIFACT_DIRS = frozenset(
    {"node_modules", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".tox",
     ".nox", "dist", "build", "target", ".next", ".nuxt", "coverage", "htmlcov", ".cache",
     ".parcel-cache", ".turbo", "out", ".venv", "venv", ".eggs", ".deps"}
)  # fmt: skip
# File patterns `find -name ... -delete` may clean without asking.
ARTIFACT_FILES = frozenset({"*.pyc", "*.pyo", "*.o", "*.class", ".DS_Store", "Thumbs.db"})
# Names compared against, never files created here.
TEMP_DIRS = ("/tmp", "/var/tmp", "/private/tmp", "/private/var/tmp")  # noqa: S108
_REMOVERS = frozenset({"rm", "unlink", "shred", "srm", "wipe", "scrub"})
_FINDS = frozenset({"find", "bfs"})
_FDS = frozenset({"fd", "fdfind"})


def _is_artifact(part: str) -> bool:
    return part in ARTIFACT_DIRS or part.endswith(".egg-info")


def in_project_artifact(value: str) -> bool:
    """A relative path, not escaping the project, through a regenerable directory."""
    if value.startswith(("/", "~")) or DYNAMIC in value:
        return False
    path = paths.normalize(value)
    if path is None or path == "." or path.split("/")[0] == "..":
        return False
    return any(_is_artifact(part) for part in path.split("/"))


def in_temp(path: str) -> bool:
    """Something inside a temp directory, but neither the directory nor all of it."""
    for temp in TEMP_DIRS:
        if path.startswith(temp + "/"):
            first = path[len(temp) + 1 :].split("/")[0]
            return first.strip("*?.") != "" or "/" in path[len(temp) + 1 :]
    return False


def _hardline_target(path: str) -> bool:
    return paths.is_root(path) or paths.is_system_dir(path) or paths.is_home_dir(path)


def _from_find(inv: Invocation) -> bool:
    """Run by `find -exec`: `fs.find-delete` judges it, with `find`'s filters.
    (`find ... | xargs CMD` is not: its found paths stand in CMD's argv for the
    hard lines, but the names still come through `xargs`.)"""
    return (
        inv.appended_args
        and any(v.startswith(find.FOUND_BY) for v in inv.via)
        and find.PRINTED not in inv.via
    )


def _from_xargs(inv: Invocation) -> bool:
    """File names come at run time from `xargs` or `parallel`."""
    return inv.appended_args and not _from_find(inv)


def _mirror_delete(inv: Invocation) -> bool:
    """`rsync --delete` onto a local directory outside the project and temp:
    files there that the source lacks are deleted."""
    if not any(targets.rsync_deletes(v) for v in inv.values) or "--dry-run" in inv.values:
        return False
    operands = inv.options.operands
    if len(operands) < 2 or ":" in operands[-1].value.split("/")[0]:
        return False  # remote destinations (`host:dir`) are deploys
    path = targets.normalized(operands[-1], inv)
    outside = operands[-1].value.startswith(("/", "~", "$"))
    return path is None or (not in_temp(path) and (outside or path.split("/")[0] == ".."))


def _delete_recursive(inv: Invocation, analysis: Analysis) -> bool:
    if any(_hardline_target(p) for p in targets.deleted_trees(inv, analysis)):
        return False  # the whole command is a hard line already
    if inv.name == "rsync":
        return _mirror_delete(inv)
    removes_trees = inv.name in targets.TREE_REMOVERS  # `rimraf x` is `rm -rf x`
    if not (targets.recursive(inv) or removes_trees) or _from_find(inv):
        return False
    fed = targets.fed_words(inv)  # `echo build | xargs rm -rf`: the names are known
    found = _from_xargs(inv) and not fed
    for word in inv.options.operands + fed:
        path = targets.normalized(word, inv)
        if path is not None and _hardline_target(path):
            return False  # the whole command is a hard line already
        if path is None or DYNAMIC in path:
            found = True  # computed at run time
        elif not (in_temp(path) or in_project_artifact(word.value)):
            found = True
    return found


def _descendants(inv: Invocation, analysis: Analysis) -> Iterator[Invocation]:
    parents = {inv.index}
    for other in analysis.invocations[inv.index + 1 :]:
        if other.parent in parents:
            parents.add(other.index)
            yield other


def _has_alternatives(values: tuple[str, ...]) -> bool:
    return any(v in ("-o", "-or", "!", "-not", ",") for v in values)


def _find_filters_artifacts(values: tuple[str, ...]) -> bool:
    """Every `-name` test names a regenerable artifact, with no `-o` or `!`."""
    names = [values[k + 1] for k, v in enumerate(values[:-1]) if v in ("-name", "-iname")]
    if not names or _has_alternatives(values):
        return False
    return all(_is_artifact(name) or name in ARTIFACT_FILES for name in names)


def _find_delete(inv: Invocation, analysis: Analysis) -> bool:
    if inv.name in _FDS:
        return _fd_exec_remove(inv)
    deletes = "-delete" in inv.values
    removers = [d for d in _descendants(inv, analysis) if d.name in _REMOVERS and d.appended_args]
    if not (deletes or removers):
        return False
    roots = targets.find_roots(inv)
    normal = [targets.normalized(w, inv) for w in roots]
    hardline_roots = all(p is not None and _hardline_target(p) for p in normal)
    if hardline_roots and all(
        any(_hardline_target(p) for p in targets.deleted_trees(r, analysis)) for r in removers
    ):
        return False  # `-delete` and `-exec rm` from these roots are hard lines already
    if "-empty" in inv.values and not removers and not _has_alternatives(inv.values):
        return False  # only empty files and directories go: no content is lost
    return _finds_broadly(inv)


def _finds_broadly(inv: Invocation) -> bool:
    """`find`'s matches are more than regenerable artifacts of the project, or
    temporary files: removing them loses work."""
    roots = targets.find_roots(inv)
    normal = [targets.normalized(w, inv) for w in roots]
    if all(p is not None and in_temp(p) for p in normal):
        return False
    if find.narrowed(inv.argv) and all(p is not None and p in TEMP_DIRS for p in normal):
        return False  # `find /tmp -name 'pytest-*' -delete`: only the matches under /tmp
    relative = all(not w.value.startswith(("/", "~")) and not w.dynamic for w in roots)
    escapes = any(p is None or p.split("/")[0] == ".." for p in normal)
    return not (relative and not escapes and _find_filters_artifacts(inv.values))


# `fd -x CMD` / `fd -X CMD` run CMD on every match, like `find -exec`.
_FD_EXEC = frozenset({"-x", "--exec", "-X", "--exec-batch"})


def _fd_exec_remove(inv: Invocation) -> bool:
    values = inv.values
    for k, value in enumerate(values[:-1]):
        if value in _FD_EXEC:
            program = values[k + 1].rsplit("/", 1)[-1]
            if program in _REMOVERS:
                return True
    return False


def _xargs_rm(inv: Invocation, analysis: Analysis) -> bool:
    recursive = inv.name == "rm" and targets.recursive(inv)  # `fs.delete-recursive`
    if not _from_xargs(inv) or recursive:
        return False
    if find.PRINTED in inv.via:  # `find . -name '*.pyc' | xargs rm -f`: as `-delete` is judged
        finder = next(
            (analysis.invocations[k] for k in reversed(inv.upstream)
             if analysis.invocations[k].name == "find"), None,
        )  # fmt: skip
        return finder is None or _finds_broadly(finder)
    return True


def _shred(inv: Invocation, analysis: Analysis) -> bool:
    if inv.name == "scrub" and inv.has_flag("X", ("freespace",)):
        return False  # fills free space with a new file; erases nothing that exists
    for word in inv.options.operands:
        if targets.is_raw_device(word.value, inv) or word.value == "-":
            continue  # devices are `disk.wipe-device`
        path = targets.normalized(word, inv)
        if path is None or not in_temp(path):
            return True
    return False


def _emptied(inv: Invocation) -> list[str]:
    """Files `cp`, `mv`, `install` or `dd` replace with the empty `/dev/null`."""
    if inv.name == "dd":
        pairs = dict(v.split("=", 1) for v in inv.values if "=" in v)
        return [pairs["of"]] if pairs.get("if") == "/dev/null" and "of" in pairs else []
    if inv.name == "install":  # `-m MODE`, `-o OWNER`, `-g GROUP` take a value
        operands = list(argv.parse(inv.values, "mogS", ("mode", "owner", "group")).operands)
    else:
        operands = [w.value for w in inv.options.operands]
    if len(operands) == 2 and operands[0] == "/dev/null":
        return operands[1:]
    return []


def _truncate(inv: Invocation, analysis: Analysis) -> bool:
    if inv.name != "truncate":
        operands = _emptied(inv)
    else:
        args = argv.parse(inv.values, "sr", ("size", "reference"))
        sizes = args.value("-s", "--size")
        grows = bool(sizes) and all(s.startswith(("+", ">", "%")) for s in sizes)
        if grows or not (sizes or args.value("-r", "--reference")):
            return False
        operands = list(args.operands)
    for operand in operands:
        path = paths.normalize(operand, inv.cwd)
        if path is None:
            return True
        if any(paths.is_under(path, d) for d in ("/etc", "/var")) and not in_temp(path):
            return True
        if path.startswith(("/", "~")) and not in_temp(path):
            return True
    return False


# Moving one of these away leaves a machine that cannot run `mv` to put it back.
CORE_DIRS = frozenset(
    {"/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/proc", "/run",
     "/sbin", "/sys", "/usr", "/usr/bin", "/usr/sbin", "/usr/lib", "/usr/lib64", "/usr/libexec",
     "/var", "/var/lib", "/System", "/Library", "/private", "/private/etc", "/private/var"}
)  # fmt: skip
_CORE_LOWER = frozenset(d.lower() for d in CORE_DIRS)


def _moved(inv: Invocation) -> Iterator[str]:
    args = argv.parse(inv.values, "tS", ("target-directory", "suffix"))
    operands = args.operands
    sources = operands if args.value("-t", "--target-directory") else operands[:-1]
    for source in sources:
        path = paths.normalize(source, inv.cwd)
        if path is not None:
            yield path


def _is_core(path: str) -> bool:
    if paths.is_root(path):
        return True
    head, _, last = path.rpartition("/")
    target = head if last and not last.strip("*?.") else path  # `/usr/*` is all of /usr
    return target.lower() in _CORE_LOWER or paths.could_name(target, CORE_DIRS)


def _move_core(inv: Invocation, analysis: Analysis) -> bool:
    return any(_is_core(p) for p in _moved(inv))


def _move_protected(inv: Invocation, analysis: Analysis) -> bool:
    return any(
        not _is_core(p) and (paths.is_system_dir(p) or paths.is_home_dir(p)) for p in _moved(inv)
    )


DESTRUCTIVE_RULES: tuple[Rule, ...] = (
    rule(
        "fs.delete-recursive",
        "filesystem",
        D,
        "recursive delete outside temp directories and build artifacts, or of paths "
        "computed at run time",
        "delete only what you created, by its exact path, or move it to a temp directory; "
        "build outputs (`node_modules`, `dist`, `__pycache__`...) inside the project are fine",
        programs=("rm", "rsync", *targets.TREE_REMOVERS),
        test=_delete_recursive,
        must_match=(
            "rm -rf src",
            "rm --recursive --force ~/projects/app",
            "npx rimraf ~/projects/app",
            "sudo rm -fr /opt/app",
            "timeout 5 bash -c '\"r\"m -R ../node_modules'",
            "rm -r /tmp",
            "env X=1 /bin/rm -rf ./dist docs",
            "rm -rf ~/.cache/pip",
            "cd /srv/app && rm -rf build/../data",
            "rm -rf $DIR",
            'rm -rf "$BUILD_DIR/"*',
            "rm -rf /tmp/$NAME",
            "ls | xargs rm -rf",
            "cat dirs.txt | sudo xargs -n1 rm --recursive",
            "rsync -a --delete empty/ ~/projects/",
            "rsync -av --delete-after src/ /srv/www/",
        ),
        must_not_match=(
            "rm file.txt",
            "rm -f /tmp/out.log",
            "rm -rf node_modules",
            "npx rimraf dist coverage",
            "rm -rf ./dist build *.egg-info",
            "rm -rf .venv build dist *.egg-info",
            "rm -rf /tmp/build-123",
            "rm -rf packages/web/.next",
            "echo 'rm -rf src'",
            "rm -rf /etc",
            "rm -f $FILE",
            "cd /tmp && rm -rf work",
            "find . -name x -exec rm -rf {} +",
            "rsync -a --delete src/ backup/",
            "rsync -a --delete dist/ host:/srv/app/",
            "rsync -a --delete src/ /tmp/mirror/",
        ),
    ),
    rule(
        "fs.find-delete",
        "filesystem",
        D,
        "`find` deleting every file it matches (`-delete`, `-exec rm`)",
        "run the same `find` with `-print` first, then delete the listed files by name",
        programs=(*_FINDS, *_FDS),
        test=_find_delete,
        must_match=(
            "find . -name '*.log' -delete",
            "find ~/data -type f -mtime +30 -delete",
            "find . -exec rm -rf {} +",
            "sudo find /srv -name x -exec /bin/rm {} \\;",
            "find src -iname '*.bak' -execdir rm -- {} ';'",
            "find . -name '*.pyc' -o -name '*.py' -delete",
            "bfs . -delete",
            "find / -name core -exec rm {} \\;",
            "fd -e log -x rm",
            "fd -t f . --exec-batch /bin/rm -f",
        ),
        must_not_match=(
            "find . -name '*.log'",
            "find / -delete",
            "find / -exec rm -rf {} +",
            "find . -name '*.pyc' -delete",
            "find . -name __pycache__ -exec rm -rf {} +",
            "find /tmp/x -mtime +7 -delete",
            "grep -r -- -delete .",
            "fd -e log -x wc -l",
            "find . -type f -empty -delete",
            "find /tmp -name 'pytest-*' -mtime +1 -exec rm -rf {} +",
            "fd rm",
        ),
    ),
    rule(
        "fs.xargs-rm",
        "filesystem",
        D,
        "`xargs` or `parallel` feeding file names to `rm`",
        "list the files first, then delete them by name",
        programs=_REMOVERS,
        test=_xargs_rm,
        must_match=(
            "ls | xargs rm",
            "find . -name '*.py' -print0 | xargs -0 rm -f",
            "find ~ -name '*.tmp' | xargs rm -f",
            "cat list | sudo xargs -n1 unlink",
            "git ls-files -z | xargs -0 /bin/rm",
            "parallel rm :::: list.txt",
        ),
        must_not_match=(
            "ls | xargs echo rm",
            "rm -f a b",
            "xargs -a list grep rm",
            "echo 'xargs rm'",
            "ls | xargs rm -rf",
            "parallel rm ::: a b",
            "find . -name '*.pyc' -print0 | xargs -0 rm -f",
        ),
    ),
    rule(
        "fs.shred",
        "filesystem",
        D,
        "shred or securely erase files: they cannot be recovered",
        "delete the file with `rm` (recoverable from backups), or ask the owner before shredding",
        programs=("shred", "srm", "wipe", "scrub"),
        test=_shred,
        must_match=(
            "shred -u secret.txt",
            "shred --remove --zero notes.db",
            "sudo srm -r dir",
            "bash -c 'shred -n 1 ~/.bash_history'",
        ),
        must_not_match=(
            "shred --help",
            "shred /dev/sda",
            "echo shred f",
            "man shred",
            "shred -u /tmp/old-key.tmp",
            "scrub --freespace /mnt/data/fill",
        ),
    ),
    rule(
        "fs.truncate",
        "filesystem",
        D,
        "truncate a file outside the temp directories (`truncate`, or `/dev/null` copied over it)",
        "truncate only files you created under /tmp, or rotate the log with its own tool",
        programs=("truncate", "cp", "mv", "install", "dd"),
        test=_truncate,
        must_match=(
            "truncate -s 0 /var/log/syslog",
            "sudo truncate --size=0 /etc/hosts",
            "truncate -s0 ~/.bash_history",
            "cd /etc && truncate -s 0 motd",
            "truncate -s 0 $LOG",
            "cp /dev/null ~/projects/app/prod.sqlite3",
            "mv /dev/null ~/projects/app/app.db",
            "dd if=/dev/null of=/srv/app/prod.db",
            "install -m 600 /dev/null ~/projects/app/data.json",
        ),
        must_not_match=(
            "cp /dev/null /tmp/scratch.log",
            "cp /dev/null out.log",
            "cp a.txt ~/b.txt",
            "truncate -s 0 /tmp/out.log",
            "truncate -s 10G disk.img",
            "truncate -s +1M /srv/data.img",
            "echo truncate -s 0 /etc/hosts",
        ),
    ),
    rule(
        "fs.move-system-dir",
        "filesystem",
        H,
        "move a core system directory away (`/etc`, `/usr`, `/bin`...)",
        "move or copy the single file you mean; core system directories must stay in place",
        programs=("mv",),
        test=_move_core,
        must_match=(
            "mv /etc /tmp/etc.bak",
            "sudo mv /usr /usr.old",
            "mv -t /tmp /bin",
            "bash -c 'mv /lib/ /x'",
            "mv /usr/* /tmp/",
            "mv --target-directory=/x /sbin",
        ),
        must_not_match=(
            "mv /etc/hosts.new /etc/hosts",
            "mv /tmp/etc ./etc",
            "mv a b",
            "echo mv /etc /tmp",
            "mv ./usr ./usr.old",
        ),
    ),
    rule(
        "fs.move-protected-dir",
        "filesystem",
        D,
        "move the home directory or a system directory away",
        "move the specific files you mean instead of the whole directory",
        programs=("mv",),
        test=_move_protected,
        must_match=(
            "mv ~ /tmp/home",
            "mv $HOME/ x",
            "sudo mv /home/alice /home/bob",
            "mv /opt /opt.old",
            "mv -f /var/www /srv/www-old",
        ),
        must_not_match=(
            "mv ~/a.txt ~/b.txt",
            "mv /opt/app/x /opt/app/y",
            "mv /etc /x",
            "mv file ~",
        ),
    ),
)
