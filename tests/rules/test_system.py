"""Firewalls, kernel modules, user accounts, swap and mounts."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Judge = Callable[..., tuple[str, tuple[str, ...]]]
FIREWALL = ("ask", ("net.firewall-flush",))


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("iptables -F", FIREWALL),
        ("sudo iptables -t filter --flush INPUT", FIREWALL),
        ("ip6tables -P INPUT DROP", FIREWALL),
        ("iptables --policy FORWARD REJECT", FIREWALL),
        ("nft flush ruleset", FIREWALL),
        ("nft 'flush ruleset'", FIREWALL),
        ("ufw disable", FIREWALL),
        ("ufw --force reset", FIREWALL),
        ("ufw default allow incoming", FIREWALL),
        ("firewall-cmd --panic-on", FIREWALL),
        ("iptables -L -n -v", ("allow", ())),
        ("iptables -A INPUT -s 10.0.0.5 -j DROP", ("allow", ())),
        ("iptables -S", ("allow", ())),
        ("nft list ruleset", ("allow", ())),
        ("ufw allow 443/tcp", ("allow", ())),
        ("ufw status verbose", ("allow", ())),
        ("rmmod nouveau", ("ask", ("sys.kernel-module-remove",))),
        ("modprobe -r snd_hda_intel", ("ask", ("sys.kernel-module-remove",))),
        ("modprobe vfio", ("allow", ())),
        ("userdel -r bob", ("ask", ("sys.user-delete",))),
        ("deluser alice", ("ask", ("sys.user-delete",))),
        ("passwd -d root", ("ask", ("sys.user-delete",))),
        ("passwd alice", ("allow", ())),
        ("useradd -m carol", ("allow", ())),
        ("swapoff -a", ("ask", ("sys.swapoff",))),
        ("swapoff /swapfile", ("allow", ())),
        ("umount -l /mnt/nfs", ("ask", ("sys.umount-force",))),
        ("umount --force /mnt/x", ("ask", ("sys.umount-force",))),
        ("umount /usr", ("ask", ("sys.umount-force",))),
        ("umount /mnt/usb", ("allow", ())),
        ("echo iptables -F", ("allow", ())),
    ],
)
def test_verdicts(judge: Judge, command: str, expected: tuple[str, tuple[str, ...]]) -> None:
    assert judge(command) == expected
