"""Deleting backups: snapshots forgotten or pruned, archives deleted or
rewritten, a repository compacted (restic, borg, kopia, velero, duplicity,
tarsnap) (issue 13, family 9). A backup is the last way back after any
other mistake."""

from __future__ import annotations

from redline.decision import Severity
from redline.rules import argv
from redline.rules.model import Rule, rule
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation

D = Severity.DANGEROUS

# Options that take a value before the verb (`restic -r REPO forget`).
_GLOBAL_VALUES = ("rpc", ("repo", "repository-file", "password-file", "password-command",
                          "cache-dir", "config", "namespace", "kubeconfig", "kubecontext",
                          "remote-path", "log-level", "option"))  # fmt: skip
_VERBS: dict[str, frozenset[str]] = {
    "restic": frozenset({"forget", "prune"}),
    "rustic": frozenset({"forget", "prune"}),
    "borg": frozenset({"delete", "prune", "recreate", "compact"}),
    "borgmatic": frozenset({"prune", "compact", "delete"}),
    "tarsnap": frozenset({"-d", "--nuke"}),
}
_OTHERS = ("kopia", "velero", "duplicity", "rdiff-backup", "tmutil", "timeshift", "snapper")
_NOUN_DELETES = frozenset({"delete", "remove", "rm"})


def _backup_delete(inv: Invocation, analysis: Analysis) -> bool:
    args = argv.parse(inv.values, *_GLOBAL_VALUES)
    name = inv.name
    # `-n` is a dry run for restic and borg, a namespace for velero
    dry = args.has("--dry-run") or (args.has("-n") and name in _VERBS)
    if args.has("--help", "-h") or dry:
        return False
    words = [o.lower() for o in args.operands]
    if name == "tarsnap":
        return args.has("-d", "--nuke")
    if name == "duplicity":
        return bool(words) and words[0].startswith("remove-")
    if name == "rdiff-backup":  # `--remove-older-than T`, or `remove increments` (2.2+)
        return any(v.startswith("--remove-older-than") for v in inv.values) or words[:1] == [
            "remove"
        ]
    if name == "tmutil":  # Time Machine: `delete`, `deletelocalsnapshots`...
        return bool(words) and words[0].startswith("delete")
    if name == "timeshift":
        return args.has("--delete", "--delete-all")
    if name == "snapper":
        return any(w in ("delete", "rm", "remove") for w in words[:1])
    if name == "restic" and words[:2] == ["key", "remove"]:
        return True
    if name in ("kopia", "velero"):
        # `kopia snapshot delete`, `velero backup delete`, `kopia maintenance run --full`
        return any(w in _NOUN_DELETES for w in words[1:3]) or words[:1] in (["delete"],)
    return bool(words) and words[0] in _VERBS[name]


BACKUP_RULES: tuple[Rule, ...] = (
    rule(
        "data.backup-delete",
        "data",
        D,
        "delete backups: forget, prune or delete snapshots and archives, or rewrite a repository",
        "keep the backups; preview with `--dry-run` and ask the owner before pruning",
        programs=(*_VERBS, *_OTHERS),
        test=_backup_delete,
        must_match=(
            "restic -r /srv/restic forget --keep-last 1 --prune",
            "restic prune",
            "borg delete /backup::archive-2024",
            "borg prune --keep-daily 1 /backup",
            "borg recreate --exclude '*.db' /backup",
            "borg compact /backup",
            "kopia snapshot delete k123 --delete",
            "velero backup delete nightly --confirm -n velero",
            "duplicity remove-older-than 1D --force file:///backup",
            "tarsnap -d -f nightly",
            "rdiff-backup --remove-older-than 1D /backup",
            "sudo tmutil delete -d /Volumes/TM -t 2024-01-01-000000",
            "timeshift --delete-all",
            "snapper -c root delete 42",
        ),
        must_not_match=(
            "restic snapshots",
            "restic forget --keep-last 5 --dry-run",
            "restic backup ~/work",
            "borg list /backup",
            "borg prune -n --keep-daily 7 /backup",
            "kopia snapshot list",
            "velero backup get",
            "velero backup create nightly",
            "echo restic prune",
            "tarsnap -c -f nightly ~/work",
            "rdiff-backup --list-increments /backup",
            "tmutil listbackups",
            "snapper list",
        ),
    ),
)
