"""Who owns the home: a recursive owner or mode change of the owner's home
(or of every home) is as final as deleting it. Handing the tree to another
account (`chown -R nobody ~`) or stripping the owner's own rights
(`chmod -R 000 ~`) needs root, or the lost modes, to undo: a hard line.
Lesser changes of the home, or of a tree inside it, are asked."""

from __future__ import annotations

from redline.decision import Severity
from redline.rules import argv, targets
from redline.rules.model import Rule, rule
from redline.rules.permissions import modes_of
from redline.shell import paths
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex

H = Severity.HARDLINE
D = Severity.DANGEROUS

_PROGRAMS = ("chown", "chgrp", "chmod", "setfacl", "chattr")
# Parents of every home: a change there reaches each user's home.
_HOME_PARENTS = frozenset({"/home", "/Users"})
# The owner themselves, as a command spells them: handing the home to yourself
# is the everyday repair after `sudo` left root-owned files behind.
_SELF = frozenset(
    {"$USER", "${USER}", "$LOGNAME", "${LOGNAME}", "$UID", "${UID}", "$(id -u)", "$(id -un)",
     "$(id -nu)", "$(whoami)", "`whoami`", "`id -u`", "`id -un`", "$(logname)"}
)  # fmt: skip
# Accounts no person logs in as: a home handed to one is lost to its owner.
_SERVICE_ACCOUNTS = frozenset(
    {"nobody", "nogroup", "nfsnobody", "daemon", "bin", "sys", "www-data", "nginx", "apache",
     "mail", "games", "man", "lp", "news", "uucp", "proxy", "backup", "list", "irc", "_apt"}
)  # fmt: skip
_OCTAL = lazy_regex(r"\A[0-7]{1,5}\Z")
_CLAUSE = lazy_regex(r"\A([ugoa]*)((?:[-+=][rwxXstugo]*)+)\Z")
_OPERATION = lazy_regex(r"([-+=])([rwxXstugo]*)")


def _applies_to_tree(inv: Invocation) -> bool:
    """`-R`, or run by `find -exec` on every file of an unfiltered root."""
    if inv.name == "chattr":
        return any(v.startswith("-") and "R" in v for v in inv.values)
    return targets.applies_to_tree(inv)


def _targets(inv: Invocation) -> list[str]:
    operands = inv.options.operands[inv.name != "setfacl" :]
    found = [targets.normalized(word, inv) for word in operands]
    return [path for path in found if path is not None]


def _whole_home(path: str) -> bool:
    """The home itself, its contents, every home, or `/home/*`; `/root` is
    a system directory (`fs.chmod-system-recursive`)."""
    if path in _HOME_PARENTS:
        return True
    return paths.is_home_dir(path) and not path.startswith(("/root", "/var/root"))


def _inside_home(path: str) -> bool:
    return path.startswith(("~/", "/home/", "/Users/")) and not _whole_home(path)


def _owner(inv: Invocation) -> tuple[str, str] | None:
    """The raw user and group a `chown`/`chgrp` sets (`''` where unchanged)."""
    args = argv.parse(inv.values, "", ("from", "reference"))
    if not args.operands or args.value("--reference"):
        return None
    raw = next((w.raw for w in inv.options.operands if w.value == args.operands[0]), "")
    raw = raw or args.operands[0]
    if inv.name == "chgrp":
        return "", raw
    user, _, group = raw.partition(":" if ":" in raw else ".")
    return user, group


def _other_user(user: str, targets_: list[str]) -> str:
    """`'service'` for an account nobody logs in as, `'other'` for another
    person or one the judge cannot tell from the owner, `''` for the owner."""
    if not user or user in _SELF:
        return ""
    if any(p.rstrip("/").rsplit("/", 1)[-1] == user for p in targets_ if p.count("/") == 2):
        return ""  # `chown -R me /home/me`
    if user in _SERVICE_ACCOUNTS or (user.isdigit() and int(user) < 1000) or user == "65534":
        return "service"
    return "other"


def _strips_owner(mode: str) -> bool:
    """The mode takes read or write away from the owner (`000`, `a-rwx`, `u=x`)."""
    if _OCTAL.match(mode):
        return len(mode) < 3 or int(mode[-3]) & 6 != 6
    for clause in mode.split(","):
        match = _CLAUSE.match(clause)
        if match is None or (match.group(1) and not any(c in match.group(1) for c in "ua")):
            continue
        for op, perms in _OPERATION.findall(match.group(2)):
            if (op == "-" and any(c in perms for c in "rw")) or (
                op == "=" and not ("r" in perms and "w" in perms)
            ):
                return True
    return False


def _only_closes(mode: str) -> bool:
    """The mode only takes rights from group and others, or gives the owner
    more (`go-rwx`, `o-w`, `u+rwX`, `700`)."""
    if _OCTAL.match(mode):
        return mode[-2:] == "00"
    for clause in mode.split(","):
        match = _CLAUSE.match(clause)
        if match is None or not match.group(1):
            return False
        for op, _ in _OPERATION.findall(match.group(2)):
            if not (op == "-" and "u" not in match.group(1) and "a" not in match.group(1)) and not (
                op == "+" and match.group(1) == "u"
            ):
                return False
    return True


def _hands_away_home(inv: Invocation, analysis: Analysis) -> bool:
    if not _applies_to_tree(inv):
        return False
    found = _targets(inv)
    homes = [p for p in found if _whole_home(p)]
    if not homes:
        return False
    if inv.name == "chmod":
        return any(_strips_owner(mode) for mode in modes_of(inv))
    if inv.name != "chown":
        return False
    owner = _owner(inv)
    if owner is None:
        return False
    kind = _other_user(owner[0], homes)
    return kind == "service" or (kind == "other" and any(p in _HOME_PARENTS for p in homes))


def _changes_home(inv: Invocation, analysis: Analysis) -> bool:
    if not _applies_to_tree(inv):
        return False
    found = _targets(inv)
    whole = [p for p in found if _whole_home(p)]
    inside = [p for p in found if _inside_home(p)]
    if not whole and not inside:
        return False
    if inv.name == "chmod":
        modes = modes_of(inv)
        if whole:
            return any(not _only_closes(mode) for mode in modes)
        return any(_strips_owner(mode) for mode in modes)
    if inv.name in ("setfacl", "chattr"):
        return bool(whole)
    owner = _owner(inv)
    if owner is None:
        return False
    user, group = owner
    # Inside the home, a named person may be the owner themselves (`alice`).
    if (whole and _other_user(user, whole)) or _other_user(user, inside) == "service":
        return True
    # A group handed the whole home may read what only its owner should.
    return bool(whole and group and group not in _SELF and _other_user(group, whole))


OWNERSHIP_RULES: tuple[Rule, ...] = (
    rule(
        "fs.home-handed-away",
        "filesystem",
        H,
        "recursive owner or mode change that takes the home directory (or every home) "
        "away from its owner",
        "change only the files that need it, by their paths, and to your own user "
        "(`chown -R $USER: ./dir`)",
        programs=_PROGRAMS,
        test=_hands_away_home,
        must_match=(
            "chown -R nobody ~",
            "chown -R nobody /home",
            'sudo chown -R 65534:65534 "$HOME"',
            "chown --recursive daemon: /home/me",
            "chown -R alice /home",
            "chmod -R 000 ~",
            'chmod -R a-rwx "$HOME"',
            "chmod --recursive u=x /home/me",
            "find ~ -exec chmod 000 {} +",
            "find /home -exec chown nobody {} +",
            "chown -R www-data ~/*",
        ),
        must_not_match=(
            "sudo chown -R $USER:$USER $HOME",
            "sudo chown -R me:me /home/me",
            "chown -R $(id -u):$(id -g) ~",
            "chown -R nobody ~/projects/app/uploads",
            "chmod -R go-rwx ~",
            "chmod -R 700 ~",
            "chmod 000 ~",
            "chown nobody ~",
            "find ~ -name '*.sh' -exec chmod 000 {} +",
            "echo chown -R nobody ~",
        ),
    ),
    rule(
        "fs.home-permissions",
        "filesystem",
        D,
        "recursive owner or mode change of the home directory, or another owner "
        "or locked-out owner for a tree inside it",
        "change only the files that need it, by their paths, and to your own user",
        programs=_PROGRAMS,
        test=_changes_home,
        must_match=(
            "chmod -R 777 ~",
            "chown -R alice ~",
            "chown -R nobody ~/projects",
            "chmod -R 000 ~/projects",
            "chgrp -R nogroup ~",
            "setfacl -R -m u:nobody:rwx ~",
            "chattr -R +i ~",
        ),
        must_not_match=(
            "chmod -R u+w ~/projects/app/build",
            "chmod -R go-w ~/projects/app",
            "sudo chown -R $(whoami) ~/.npm",
            "chown -R $USER:$USER ~/project",
            "chown -R alice:alice ~/project",
            "chmod -R go-rwx ~",
            "chmod -R 755 ./scripts",
            "chown -R node:node ./app",
            "chgrp -R staff ./shared",
        ),
    ),
)
