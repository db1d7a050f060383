"""System changes that cut the machine off or take parts of it away: the
firewall, kernel modules, user accounts, swap and mounts (F-RULES-2)."""

from __future__ import annotations

from redline.decision import Severity
from redline.rules import argv
from redline.rules.destructive import CORE_DIRS
from redline.rules.model import Rule, rule
from redline.shell import paths
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex

D = Severity.DANGEROUS

_IPTABLES = frozenset({"iptables", "ip6tables", "iptables-legacy", "ip6tables-legacy",
                       "iptables-nft", "ip6tables-nft", "ebtables", "arptables"})  # fmt: skip
_NFT_FLUSH = lazy_regex(r"\A\s*(?:flush\s+(?:ruleset|table|chain)|delete\s+(?:table|chain))\b")


def _firewall_flush(inv: Invocation, analysis: Analysis) -> bool:
    name, values = inv.name, inv.values
    if name in _IPTABLES:
        args = argv.parse(values, "tPjpsdio", ("table", "policy", "jump", "protocol"))
        drops = any(v.upper() in ("DROP", "REJECT") for v in args.operands)
        return args.has("-F", "--flush") or (args.has("-P", "--policy") and drops)
    if name == "nft":
        text = " ".join(argv.parse(values, "fI", ("file", "includepath")).operands)
        return bool(_NFT_FLUSH.match(text.lower()))
    if name == "ufw":
        if "--dry-run" in values:
            return False
        words = [v.lower() for v in values if not v.startswith("-")]
        return words[:1] in (["disable"], ["reset"]) or words[:2] == ["default", "allow"]
    if name == "firewall-cmd":
        return "--panic-on" in values
    if name == "pfctl":
        args = argv.parse(values, "Fafs", ())
        return args.has("-d") or "all" in args.value("-F")
    return False


def _kernel_module(inv: Invocation, analysis: Analysis) -> bool:
    if inv.name == "rmmod":
        return bool(inv.options.operands)
    return inv.has_flag("r", ("remove",))


def _user_delete(inv: Invocation, analysis: Analysis) -> bool:
    name = inv.name
    if name in ("userdel", "deluser", "groupdel", "delgroup"):
        return bool(inv.options.operands)
    if name == "passwd":
        return inv.has_flag("d", ("delete",))
    if name == "dscl":
        return "-delete" in inv.values and any(v.startswith("/Users") for v in inv.values)
    return name == "sysadminctl" and "-deleteUser" in inv.values


_MOUNT_ROOTS = CORE_DIRS | {"/", "/home", "/boot/efi", "/nix", "/opt"}


def _umount(inv: Invocation, analysis: Analysis) -> bool:
    if inv.has_flag("flaR", ("force", "lazy", "all", "recursive")):
        return True
    return any(paths.normalize(w.value) in _MOUNT_ROOTS for w in inv.options.operands)


SYSTEM_RULES: tuple[Rule, ...] = (
    rule(
        "net.firewall-flush",
        "network",
        D,
        "flush, disable or reset the firewall, or make it drop all traffic",
        "add or remove the single firewall rule you need, and keep remote access open",
        programs=(*_IPTABLES, "nft", "ufw", "firewall-cmd", "pfctl"),
        test=_firewall_flush,
        must_match=(
            "iptables -F",
            "sudo iptables --flush",
            "iptables -t nat -F",
            "iptables -P INPUT DROP",
            "nft flush ruleset",
            "ufw disable",
            "sudo ufw --force reset",
            "ip6tables --policy INPUT DROP",
            "pfctl -d",
        ),
        must_not_match=(
            "iptables -L -n",
            "iptables -A INPUT -p tcp --dport 22 -j ACCEPT",
            "iptables -P INPUT ACCEPT",
            "nft list ruleset",
            "ufw status",
            "ufw allow 22",
            "ufw --dry-run disable",
            "echo iptables -F",
        ),
    ),
    rule(
        "sys.kernel-module-remove",
        "system",
        D,
        "unload a kernel module",
        "leave loaded modules alone; ask the owner if a driver must be unloaded",
        programs=("rmmod", "modprobe"),
        test=_kernel_module,
        must_match=(
            "rmmod nvidia",
            "sudo modprobe -r e1000e",
            "modprobe --remove kvm_intel",
            "modprobe -rf bluetooth",
        ),
        must_not_match=(
            "modprobe nvidia",
            "lsmod",
            "modinfo e1000e",
            "echo rmmod x",
            "rmmod --help",
        ),
    ),
    rule(
        "sys.user-delete",
        "system",
        D,
        "delete a user or group account, or its password",
        "lock the account (`usermod -L`) and ask the owner to delete it",
        programs=("userdel", "deluser", "groupdel", "delgroup", "passwd", "dscl", "sysadminctl"),
        test=_user_delete,
        must_match=(
            "userdel -r bob",
            "sudo deluser --remove-home alice",
            "passwd -d root",
            "groupdel devs",
            "dscl . -delete /Users/bob",
            "passwd --delete bob",
        ),
        must_not_match=(
            "passwd",
            "passwd -S bob",
            "id bob",
            "useradd bob",
            "echo userdel bob",
            "dscl . -read /Users/bob",
        ),
    ),
    rule(
        "sys.swapoff",
        "system",
        D,
        "turn off all swap: memory-hungry processes may be killed",
        "turn off one swap file by path when memory allows, or ask the owner",
        programs=("swapoff",),
        test=lambda inv, analysis: inv.has_flag("a", ("all",)),
        must_match=("swapoff -a", "sudo swapoff --all", "bash -c 'swapoff -av'"),
        must_not_match=("swapon -a", "swapon --show", "free -h", "echo swapoff -a"),
    ),
    rule(
        "sys.umount-force",
        "system",
        D,
        "force, lazy or mass unmount, or unmount a system filesystem",
        "unmount the one filesystem you mounted, without `-f`/`-l`, after closing its files",
        programs=("umount",),
        test=_umount,
        must_match=(
            "umount -l /mnt/data",
            "sudo umount -f /mnt/nfs",
            "umount -a",
            "umount /",
            "umount /boot",
            "umount --lazy /media/usb",
        ),
        must_not_match=(
            "umount /mnt/usb",
            "umount ./mnt",
            "mount",
            "echo umount -a",
            "umount /media/alice/disk",
        ),
    ),
)
