"""Object stores and file sync: deleting buckets and trees of objects with
the stores' own clients (MinIO `mc`, `azcopy`, `s3cmd`, BigQuery `bq`,
Cloudflare `wrangler`, Firebase), and syncs that delete on the far side or
remove the source (`rclone sync`, `rsync --delete` to a host, `mc mirror
--remove`) (issue 13, family 9). `aws s3`, `gsutil` and `gcloud storage` are
judged by `cloud.storage-delete`."""

from __future__ import annotations

from redline.decision import Severity
from redline.rules import argv
from redline.rules.model import Rule, rule
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation

D = Severity.DANGEROUS

_RECURSIVE = ("-r", "-R", "--recursive")


def _dry_run(args: argv.Args) -> bool:
    return args.has("--dry-run", "--dryrun", "-n") or any(
        v.lower() in ("true", "") for v in args.value("--dry-run")
    )


def _truthy(values: tuple[str, ...]) -> bool:
    return any(v.lower() not in ("false", "0", "no") for v in values)


def _object_delete(inv: Invocation, analysis: Analysis) -> bool:
    args = argv.parse(inv.values)
    words = [o.lower() for o in args.operands]
    verb = words[:1]
    if args.has("--help", "-h") or (inv.name in ("azcopy", "s3cmd") and _dry_run(args)):
        return False
    if inv.name == "mc":
        return verb == ["rb"] or (verb == ["rm"] and args.has(*_RECURSIVE))
    if inv.name == "azcopy":
        recursive = args.has("--recursive") and _truthy(args.value("--recursive") or ("",))
        return verb in (["remove"], ["rm"]) and recursive
    if inv.name == "s3cmd":
        return verb == ["rb"] or (verb in (["del"], ["rm"]) and args.has(*_RECURSIVE))
    if inv.name == "bq":
        return verb == ["rm"]
    if inv.name == "wrangler":
        return "delete" in words[:4]
    # firebase
    if verb == ["firestore:delete"]:
        return args.has("--all-collections", "-r", "--recursive")
    return verb == ["database:remove"]


_RCLONE_SYNCS = frozenset({"sync", "move", "moveto", "dedupe", "cleanup", "bisync"})
# rsync's short options that take a value, so `-e ssh` is not an operand.
_RSYNC_VALUES = ("eBfMT", ("rsh", "rsync-path", "filter", "exclude", "include", "exclude-from",
                           "include-from", "files-from", "chmod", "chown", "backup-dir",
                           "suffix", "temp-dir", "compare-dest", "copy-dest", "link-dest",
                           "log-file", "password-file", "port", "timeout", "bwlimit"))  # fmt: skip


def _remote(operand: str) -> bool:
    return operand.startswith("rsync://") or ":" in operand.split("/", 1)[0]


def _sync_delete(inv: Invocation, analysis: Analysis) -> bool:
    name = inv.name
    if name == "rsync":
        args = argv.parse(inv.values, *_RSYNC_VALUES)
        if _dry_run(args) or len(args.operands) < 2:
            return False
        moves = args.has("--remove-source-files", "--remove-sent-files")
        deletes = any(f.startswith("--del") for f in args.flags)
        # a local destination with `--delete` is `fs.delete-recursive`'s
        return moves or (deletes and _remote(args.operands[-1]))
    args = argv.parse(inv.values)
    if args.has("--help", "-h") or _dry_run(args):
        return False
    verb = [o.lower() for o in args.operands[:1]]
    if name == "rclone":
        return bool(verb) and verb[0] in _RCLONE_SYNCS
    if name == "mc":
        return verb == ["mirror"] and args.has("--remove")
    if name == "azcopy":
        return verb == ["sync"] and _truthy(args.value("--delete-destination"))
    # s3cmd
    return verb == ["sync"] and args.has("--delete-removed", "--delete-after")


OBJECT_STORE_RULES: tuple[Rule, ...] = (
    rule(
        "cloud.object-delete",
        "cloud",
        D,
        "delete a bucket, a dataset or a whole tree of stored objects",
        "delete the specific objects by key, or ask the owner",
        programs=("mc", "azcopy", "s3cmd", "bq", "wrangler", "firebase"),
        test=_object_delete,
        must_match=(
            "mc rb --force local/bucket",
            "mc rm --recursive --force local/bucket/prefix",
            "azcopy remove 'https://acct.blob.core.windows.net/c/dir' --recursive",
            "s3cmd del --recursive --force s3://bkt/",
            "s3cmd rb s3://bkt",
            "bq rm -r -f -d myproject:analytics",
            "wrangler r2 bucket delete assets",
            "firebase firestore:delete --all-collections --force",
        ),
        must_not_match=(
            "mc ls local/b",
            "mc rm local/bucket/one.txt",
            "azcopy list 'https://acct.blob.core.windows.net/c'",
            "s3cmd ls s3://b",
            "bq ls",
            "bq query 'SELECT 1'",
            "wrangler r2 bucket list",
            "echo mc rb local/bucket",
        ),
    ),
    rule(
        "cloud.sync-delete",
        "cloud",
        D,
        "a sync that deletes files on the far side that the source lacks, or removes the source "
        "after copying",
        "copy without deleting (`rclone copy`, `rsync` without `--delete`), or preview with "
        "`--dry-run` and ask the owner",
        programs=("rclone", "rsync", "mc", "azcopy", "s3cmd"),
        test=_sync_delete,
        must_match=(
            "rclone sync ./empty remote:bucket",
            "rclone move remote:a remote:b",
            "rclone dedupe --dedupe-mode newest remote:x",
            "rsync -a --delete-excluded src/ user@host:/srv/",
            "rsync -avz --remove-source-files ./out/ backup:/data/",
            "rsync -a -e ssh --del ./site/ web:/var/www/",
            "mc mirror --remove ./site s3/site",
            "azcopy sync ./dir 'https://acct.blob.core.windows.net/c' --delete-destination=true",
            "s3cmd sync --delete-removed ./ s3://bkt/",
        ),
        must_not_match=(
            "rclone copy ./a remote:b",
            "rclone sync --dry-run ./a remote:b",
            "rclone ls remote:b",
            "rsync -av src/ host:/srv/",
            "rsync -an --delete src/ host:/srv/",
            "rsync -a --delete src/ backup/",
            "mc mirror ./site s3/site",
            "azcopy sync ./dir 'https://a.blob.core.windows.net/c' --delete-destination=false",
            "s3cmd sync ./ s3://b/",
            "echo rclone sync a b",
        ),
    ),
)
