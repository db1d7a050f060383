"""Permission changes that open files to every user or hand a tree to root
(F-RULES-2). Recursive changes of system directories are hard lines."""

from __future__ import annotations

from redline.decision import Severity
from redline.rules import argv, targets
from redline.rules.model import Rule, rule
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC

D = Severity.DANGEROUS

_OCTAL = lazy_regex(r"\A[0-7]{1,5}\Z")
# One clause of a symbolic mode: who, then operations (`o+w`, `a=rwx`, `go+rw-x`).
_CLAUSE = lazy_regex(r"\A([ugoa]*)((?:[-+=][rwxXstugo]*)+)\Z")
_OPERATION = lazy_regex(r"([-+=])([rwxXstugo]*)")


def _computed_target(inv: Invocation, analysis: Analysis) -> bool:
    """A recursive change whose target comes from `$(...)` or backticks."""
    if not targets.recursive(inv):
        return False
    return any(
        w.value.startswith(DYNAMIC) and w.raw.startswith(("$(", "`", '"$(', '"`'))
        for w in inv.options.operands[1:]
    )


def world_writable(mode: str) -> bool:
    """The mode lets every user write (`777`, `0666`, `o+w`, `a=rwx`, `u=rwx,o=u`)."""
    if _OCTAL.match(mode):
        return int(mode[-1]) & 2 == 2
    for clause in mode.split(","):
        match = _CLAUSE.match(clause)
        if match is None or not any(c in match.group(1) for c in "oa"):
            continue  # without `o` or `a`, the umask still applies
        for op, perms in _OPERATION.findall(match.group(2)):
            if op in "+=" and any(c in perms for c in "wug"):
                return True
    return False


def modes_of(inv: Invocation) -> tuple[str, ...]:
    if inv.name == "chmod":
        values = [v for v in inv.values if not v.startswith("--")]
        while values and values[0].startswith("-") and not _CLAUSE.match(values[0][1:] or "x"):
            values.pop(0)  # `-R`, `-v`; `-w` is a mode
        return tuple(values[:1])
    if inv.name == "umask":
        operands = inv.options.operands
        # umask names the bits to clear: others may write unless bit 2 is set.
        if operands and _OCTAL.match(operands[0].value):
            return ("7",) if int(operands[0].value[-1]) & 2 == 0 else ()
        return tuple(w.value for w in operands[:1])
    return argv.parse(inv.values, "m", ("mode",)).value("-m", "--mode")


def _world_writable(inv: Invocation, analysis: Analysis) -> bool:
    return any(world_writable(mode) for mode in modes_of(inv))


def _sets_setuid(mode: str) -> bool:
    """The mode gives the file its owner's rights when run (`u+s`, `+s`, `4755`)."""
    if _OCTAL.match(mode):
        return len(mode) >= 4 and int(mode[-4]) & 4 == 4
    for clause in mode.split(","):
        match = _CLAUSE.match(clause)
        if match is None or (match.group(1) and not any(c in match.group(1) for c in "ua")):
            continue  # `g+s` on a directory is everyday group inheritance
        if any(op in "+=" and "s" in perms for op, perms in _OPERATION.findall(match.group(2))):
            return True
    return False


def _setuid(inv: Invocation, analysis: Analysis) -> bool:
    return any(_sets_setuid(mode) for mode in modes_of(inv))


ROOT_USERS = frozenset({"root", "0"})
ROOT_GROUPS = frozenset({"root", "0", "wheel"})


def _chown_root(inv: Invocation, analysis: Analysis) -> bool:
    if not targets.recursive(inv):
        return False
    args = argv.parse(inv.values, "", ("from", "reference"))
    if not args.operands or args.value("--reference"):
        return False
    owner = args.operands[0]
    if inv.name == "chgrp":
        return owner in ROOT_GROUPS
    user, _, group = owner.partition(":" if ":" in owner else ".")
    return user in ROOT_USERS or group in ROOT_GROUPS


PERMISSION_RULES: tuple[Rule, ...] = (
    rule(
        "fs.chmod-world-writable",
        "filesystem",
        D,
        "make files writable by every user (`chmod 777`, `o+w`, `umask 000`)",
        "grant write access to the owner or group only (`chmod 755`, `chmod u+w`, `chmod g+w`)",
        programs=("chmod", "mkdir", "install", "umask"),
        test=_world_writable,
        must_match=(
            "chmod 777 app.sh",
            "chmod --recursive 777 ./public",
            "sudo chmod -R a+w data",
            "chmod 0666 /dev/ttyUSB0",
            "chmod u=rwx,g=rwx,o=rwx f",
            "chmod o+w f",
            "bash -c 'chmod 1777 shared'",
            "mkdir -m 777 drop",
            "umask 000",
            "install -m 0666 x /usr/local/share/x",
        ),
        must_not_match=(
            "chmod 755 script.sh",
            "chmod +x run.sh",
            "chmod -R g+w shared",
            "chmod o-w file",
            "echo chmod 777 f",
            "umask 022",
            "mkdir -p a/b",
            "chmod =rwx f",
            "chmod -w file",
        ),
    ),
    rule(
        "fs.chmod-computed-target",
        "filesystem",
        D,
        "recursive permission or owner change of a directory computed at run time "
        "(it may be a system directory)",
        "name the directory you mean, literally, so it can be checked",
        programs=("chmod", "chown", "chgrp"),
        test=_computed_target,
        must_match=(
            "chmod -R 000 $(dirname $(which bash))",
            "chown -R nobody $(cat target.txt)",
            "chgrp -R staff `pwd`/..",
        ),
        must_not_match=(
            "chmod -R u+w ./vendor",
            "chmod 644 $(git ls-files '*.txt')",
            "chown -R $USER:$USER ~/project",
        ),
    ),
    rule(
        "fs.chown-root-recursive",
        "filesystem",
        D,
        "recursively hand a directory tree to root",
        "change the owner of the specific files that need it, or use your own user",
        programs=("chown", "chgrp"),
        test=_chown_root,
        must_match=(
            "chown -R root ./app",
            "sudo chown --recursive root:root ~/project",
            "chown -R 0:0 build",
            "chown -hR :root data",
            "chgrp -R wheel shared",
            "env chown -Rv root.root /opt/app",
        ),
        must_not_match=(
            "chown -R $USER:$USER ~/project",
            "chown root file",
            "chown -R www-data x",
            "echo chown -R root /",
            "chown -R rooter x",
        ),
    ),
    rule(
        "fs.chmod-setuid",
        "filesystem",
        D,
        "make a program run with its owner's rights (setuid: `chmod u+s`, `chmod 4755`)",
        "run the program with `sudo` when it needs root, rather than marking it setuid",
        programs=("chmod", "install"),
        test=_setuid,
        must_match=(
            "chmod u+s /usr/local/bin/tool",
            "chmod 4755 ./helper",
            "sudo chmod +s bin/x",
            "install -m 4755 x /usr/local/bin/x",
            "chmod 6755 f",
        ),
        must_not_match=(
            "chmod 755 script.sh",
            "chmod g+s shared/",
            "chmod u-s f",
            "chmod 2775 shared",
            "echo chmod u+s f",
        ),
    ),
)
