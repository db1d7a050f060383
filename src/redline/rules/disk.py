"""Disks short of the hard lines: reading a raw device, writing a device the
shell computes at run time, and rewriting partition tables (F-RULES-2)."""

from __future__ import annotations

from redline.decision import Severity
from redline.rules import argv, targets
from redline.rules.model import Rule, rule
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC

D = Severity.DANGEROUS


def _dd_reads_device(inv: Invocation, analysis: Analysis) -> bool:
    return any(v.startswith("if=") and targets.is_raw_device(v[3:], inv) for v in inv.values)


_MKFS = lazy_regex(r"\A(?:mkfs(?:\.\w+)?|mke2fs|mkswap|mkdosfs|mkntfs|mkexfatfs|newfs(?:_\w+)?)\Z")
_DEVICE_ONLY = frozenset({"wipefs", "blkdiscard"})


def _dynamic_device(inv: Invocation, analysis: Analysis) -> bool:
    if inv.name == "dd":
        return any(v.startswith("of=") and DYNAMIC in v for v in inv.values)
    # The prefix test first: most programs are not a mkfs, and the pattern
    # then never compiles in that process (ADR 0003).
    if (
        inv.name.startswith(targets.MKFS_PREFIXES) and _MKFS.match(inv.name)
    ) or inv.name in _DEVICE_ONLY:
        # The device is the last operand; a block count may follow it.
        operands = [w for w in inv.options.operands if not w.value.isdigit()]
        return bool(operands) and operands[-1].dynamic
    return False


# Per partitioning tool: options that only read (list, print, dump, verify).
_READ_ONLY: dict[str, frozenset[str]] = {
    "fdisk": frozenset({"-l", "--list", "-x", "--list-details", "--help", "-h", "-V", "--version"}),
    "sfdisk": frozenset({"-l", "--list", "-d", "--dump", "-J", "--json", "-s", "--show-size",
                         "-g", "--show-geometry", "-V", "--verify", "-F", "--list-free",
                         "--help", "-h", "--version", "-n", "--no-act"}),
    "gdisk": frozenset({"-l", "--help", "-h", "--version"}),
    "cgdisk": frozenset({"--help", "-h", "--version"}),
    "cfdisk": frozenset({"--help", "-h", "-V", "--version"}),
    "sgdisk": frozenset({"-p", "--print", "-i", "--info", "-v", "--verify", "-O", "--print-mbr",
                         "-L", "--list-types", "-P", "--pretend", "-b", "--backup", "-V",
                         "--version", "-?", "--help"}),
    "parted": frozenset({"-l", "--list", "-h", "--help", "-v", "--version"}),
}  # fmt: skip
# parted commands that change nothing.
_PARTED_READS = frozenset({"print", "p", "unit", "align-check", "help", "version", "quit"})
_PARTED_VALUES = frozenset({"unit", "align-check"})


def _device_like(value: str) -> bool:
    return targets.is_raw_device(value) or DYNAMIC in value


def _parted_writes(commands: tuple[str, ...]) -> bool:
    k = 0
    while k < len(commands):
        word = commands[k].lower()
        if word not in _PARTED_READS:
            return True
        k += 2 if word in _PARTED_VALUES else 1
    return not commands  # no commands: an interactive session that may write


def _partitions(inv: Invocation, analysis: Analysis) -> bool:
    read_only = _READ_ONLY[inv.name]
    words = inv.values
    if any(w in read_only for w in words):
        return False
    if inv.name == "parted":
        args = argv.parse(words, "", ())
        if not args.operands or not _device_like(args.operands[0]):
            return False
        return _parted_writes(args.operands[1:])
    if inv.name == "sgdisk":
        shorts = {f for w in words if w.startswith("-") and not w.startswith("--") for f in w[1:]}
        if shorts and shorts <= {c.lstrip("-") for c in read_only if len(c) == 2}:
            return False
    return any(_device_like(w) for w in words)


# Volume managers whose delete verbs take a pool's, volume's or array's data with them.
_VOLUME_DELETES = {
    "zpool": ("destroy", "labelclear"),
    "zfs": ("destroy",),
    "btrfs": ("subvolume delete", "su d", "subvolume d", "su delete"),
    "lvremove": ("",),
    "vgremove": ("",),
    "pvremove": ("",),
    "lvm": ("lvremove", "vgremove", "pvremove"),
}
_ONLY_INFO = frozenset({"--help", "-h", "--version", "-n", "--dry-run", "--test", "-t"})


def _volume_destroy(inv: Invocation, analysis: Analysis) -> bool:
    values = inv.values
    if any(v in _ONLY_INFO for v in values):
        return False
    if inv.name == "mdadm":
        return "--zero-superblock" in values
    verbs = " ".join(v for v in values if not v.startswith("-"))
    return any(
        verbs == verb or verbs.startswith(verb + " ") or not verb
        for verb in _VOLUME_DELETES.get(inv.name, ())
    )


DISK_RULES: tuple[Rule, ...] = (
    rule(
        "disk.dd-read-device",
        "disk",
        D,
        "`dd` reading a raw block device (a whole disk's data)",
        "copy the specific files you need instead of imaging the device",
        programs=("dd",),
        test=_dd_reads_device,
        must_match=(
            "dd if=/dev/sda of=disk.img bs=4M",
            "sudo dd if=/dev/nvme0n1p1 of=/tmp/p1.img",
            "bash -c 'dd if=/dev/mmcblk0 | gzip > sd.img.gz'",
            "timeout 60 dd bs=1M if=/dev/disk2 of=backup.img",
        ),
        must_not_match=(
            "dd if=/dev/zero of=test.img bs=1M count=10",
            "dd if=/dev/urandom of=key.bin bs=32 count=1",
            "echo dd if=/dev/sda",
            "dd if=image.iso of=copy.iso",
        ),
    ),
    rule(
        "disk.dynamic-device",
        "disk",
        D,
        "format, wipe or `dd` onto a target computed at run time",
        "write the device or image path out literally, so the command shows what it overwrites",
        test=_dynamic_device,  # every mkfs.* name
        must_match=(
            "mkfs.ext4 $DEV",
            'sudo mkfs -t xfs "${DISK}1"',
            "dd if=x.iso of=$TARGET",
            'wipefs -a "$1"',
            "bash -c 'mkswap $(losetup -f)'",
        ),
        must_not_match=(
            "mkfs.ext4 disk.img",
            "dd if=$SRC of=out.img",
            "echo mkfs $DEV",
            "mkfs.ext4 -L $LABEL disk.img",
        ),
    ),
    rule(
        "disk.partition-table",
        "disk",
        D,
        "change a disk's partition table (`parted`, `fdisk`, `sfdisk`, `gdisk`)",
        "list the layout first (`lsblk`, `fdisk -l`) and ask the owner to repartition",
        programs=tuple(_READ_ONLY),
        test=_partitions,
        must_match=(
            "parted /dev/sda mklabel gpt",
            "sudo parted -s /dev/nvme0n1 -- mkpart p 1MiB 100%",
            "fdisk /dev/sdb",
            "sfdisk /dev/sda < layout.sfdisk",
            "gdisk /dev/sdc",
            "sgdisk -n 1:0:+512M /dev/sda",
            "cfdisk /dev/vda",
            "parted /dev/sda",
        ),
        must_not_match=(
            "fdisk -l",
            "fdisk --list /dev/sda",
            "parted -l",
            "parted /dev/sda print",
            "sfdisk -d /dev/sda > table.bak",
            "gdisk -l /dev/sda",
            "lsblk",
            "parted disk.img mklabel gpt",
            "sgdisk -p /dev/sda",
            "parted /dev/sda unit s print",
        ),
    ),
    rule(
        "disk.volume-destroy",
        "disk",
        D,
        "destroy a storage pool, volume, snapshot or RAID member with the data on it",
        "list what the volume holds first (`zfs list`, `lvs`), and ask the owner to remove it",
        programs=(*_VOLUME_DELETES, "mdadm"),
        test=_volume_destroy,
        must_match=(
            "zpool destroy tank",
            "zfs destroy pool/data@snap",
            "sudo lvremove -f vg0/root",
            "vgremove vg0",
            "pvremove /dev/sdb1",
            "btrfs subvolume delete /mnt/@old",
            "mdadm --zero-superblock /dev/sdb1",
        ),
        must_not_match=(
            "zpool status",
            "zfs list -t snapshot",
            "lvremove --help",
            "zfs destroy -n pool/data@snap",
            "btrfs subvolume list /",
            "mdadm --detail /dev/md0",
            "lvs",
        ),
    ),
)
