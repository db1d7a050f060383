"""Disks short of the hard lines: reading raw devices, dynamic targets,
partition tables."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Judge = Callable[..., tuple[str, tuple[str, ...]]]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("dd if=/dev/sda of=disk.img bs=4M", ("ask", ("disk.dd-read-device",))),
        ("sudo dd if=/dev/nvme0n1 | gzip > img.gz", ("ask", ("disk.dd-read-device",))),
        ("dd if=/dev/zero of=swap.img bs=1M count=512", ("allow", ())),
        ("dd if=ubuntu.iso of=copy.iso", ("allow", ())),
        ("dd if=x.iso of=/dev/sdb", ("deny", ("disk.dd-device",))),
        ("dd if=x.iso of=$DEV bs=4M", ("ask", ("disk.dynamic-device",))),
        ('mkfs.ext4 "$DISK"', ("ask", ("disk.dynamic-device",))),
        ("mkfs.ext4 -F disk.img", ("allow", ())),
        ("mkfs.vfat -C floppy.img 1440", ("allow", ())),
        ("mkfs.ext4 /dev/sdb1", ("deny", ("disk.mkfs-device",))),
        # A new label drops every partition, as `sgdisk --zap-all` does: a hard line.
        ("parted /dev/sda mklabel gpt", ("deny", ("disk.wipe-device", "disk.partition-table"))),
        ("parted --script /dev/sdb mkpart primary 0% 100%", ("ask", ("disk.partition-table",))),
        ("fdisk /dev/nvme0n1", ("ask", ("disk.partition-table",))),
        ("sfdisk /dev/sda < layout", ("ask", ("disk.partition-table",))),
        ("gdisk /dev/sdc", ("ask", ("disk.partition-table",))),
        ("sgdisk -d 2 /dev/sda", ("ask", ("disk.partition-table",))),
        ("fdisk -l", ("allow", ())),
        ("sudo fdisk -l /dev/sda", ("allow", ())),
        ("parted -l", ("allow", ())),
        ("parted /dev/sda print", ("allow", ())),
        ("sfdisk --dump /dev/sda", ("allow", ())),
        ("lsblk -f", ("allow", ())),
        ("parted disk.img mklabel msdos", ("allow", ())),
    ],
)
def test_verdicts(judge: Judge, command: str, expected: tuple[str, tuple[str, ...]]) -> None:
    assert judge(command) == expected
