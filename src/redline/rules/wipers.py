"""Commands that erase a whole block device, and the arguments that make them
do it: the test behind the `disk.wipe-device` hard line (F-RULES-1)."""

from __future__ import annotations

from redline.rules import targets
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation

WIPERS = frozenset({"shred", "wipefs", "blkdiscard", "sgdisk", "sfdisk", "badblocks", "nvme",
                    "hdparm", "scrub", "srm", "wipe", "diskutil", "cryptsetup",
                    "parted"})  # fmt: skip

# macOS names disks without `/dev/` (`disk2`), so the verb alone decides.
_DISKUTIL_ERASE = frozenset(
    {"erasedisk", "erasevolume", "zerodisk", "randomdisk", "secureerase", "partitiondisk",
     "reformat", "deletecontainer"}
)  # fmt: skip
# Destroying the LUKS header or key slots makes the encrypted data unreadable for good.
_LUKS_ERASE = frozenset({"luksErase", "erase", "luksFormat"})


def wipe_device(inv: Invocation, analysis: Analysis) -> bool:
    name, values = inv.name, inv.values
    if name == "diskutil":
        verbs = [v.lower() for v in values if not v.startswith("-")]
        if verbs[:1] == ["apfs"]:
            verbs = verbs[1:]
        return bool(verbs) and verbs[0] in _DISKUTIL_ERASE
    devices = [v for v in values if targets.is_raw_device(v, inv)]
    if not devices:
        return False
    if name == "cryptsetup":
        return any(v in _LUKS_ERASE for v in values)
    if name == "wipefs":
        if inv.has_flag("n", ("no-act",)):
            return False  # a dry run
        return inv.has_flag("a", ("all",)) or any(v.startswith(("-o", "--offset")) for v in values)
    if name == "sgdisk":
        return inv.has_flag("Zo", ("zap-all", "clear", "zap"))
    if name == "sfdisk":
        return inv.has_flag("", ("delete", "wipe")) or "--wipe" in " ".join(values)
    if name == "parted":
        # A new label drops every partition; `rm N` drops one with its data.
        return any(v.lower() in ("mklabel", "mktable", "rm") for v in values)
    if name == "badblocks":
        return inv.has_flag("w", ())
    if name == "nvme":
        return inv.subcommand() in ("format", "sanitize")
    if name == "hdparm":
        return any(v.startswith(("--security-erase", "--trim-sector")) for v in values)
    return True
