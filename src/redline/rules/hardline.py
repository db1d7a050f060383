"""Hard lines: irrecoverable damage to the machine. No mode, policy, allowlist
or approval can lift them (F-RULES-1)."""

from __future__ import annotations

from collections.abc import Callable

from redline.decision import Severity, Span
from redline.rules import fork_bombs, output_options, power, targets
from redline.rules.model import InvocationTest, Rule, rule
from redline.rules.wipers import WIPERS, wipe_device
from redline.shell import paths
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex

H = Severity.HARDLINE


def _deletes(predicate: Callable[[str], bool]) -> InvocationTest:
    def test(inv: Invocation, analysis: Analysis) -> bool:
        return targets.may_delete_trees(inv) and any(
            predicate(p) for p in targets.deleted_trees(inv, analysis)
        )

    return test


def _delete_system(inv: Invocation, analysis: Analysis) -> bool:
    return targets.may_delete_trees(inv) and any(
        paths.is_system_dir(p) and not paths.is_root(p)
        for p in targets.deleted_trees(inv, analysis)
    )


_MKFS = lazy_regex(
    r"\A(?:mkfs(?:\.\w+)?|mke2fs|mkswap|mkdosfs|mkntfs|mkexfatfs|mkfs_\w+|newfs(?:_\w+)?)\Z"
)


def _mkfs_device(inv: Invocation, analysis: Analysis) -> bool:
    return (
        inv.name.startswith(targets.MKFS_PREFIXES)
        and bool(_MKFS.match(inv.name))
        and any(targets.is_raw_device(w.value, inv) for w in inv.options.operands)
    )


def _dd_device(inv: Invocation, analysis: Analysis) -> bool:
    return any(v.startswith("of=") and targets.is_raw_device(v[3:], inv) for v in inv.values)


def _redirect_device(inv: Invocation, analysis: Analysis) -> bool | Span:
    for r in inv.redirects:
        if r.writes and r.target and targets.is_raw_device(r.target.value, inv):
            return r.span
    return False


_COPIERS = frozenset({"cp", "mv", "tee", "install", "rsync", "pv", "ddrescue", "dcfldd", "dc3dd"})


def _copy_device(inv: Invocation, analysis: Analysis) -> bool:
    return any(targets.is_raw_device(v, inv) for v in targets.written_files(inv)) and not any(
        r.writes and r.target and targets.is_raw_device(r.target.value, inv) for r in inv.redirects
    )


def _stdin_option(value: str) -> bool:
    """`--stdin` or a prefix of it sudo's getopt_long takes (`--std`)."""
    return len(value) >= 5 and "--stdin".startswith(value)


def _sudo_stdin(inv: Invocation, analysis: Analysis) -> bool:
    values = inv.values
    flags_end = next((k for k, v in enumerate(values) if not v.startswith("-")), len(values))
    if not any(
        v.startswith("-") and not v.startswith("--") and "S" in v for v in values[:flags_end]
    ) and not any(_stdin_option(v) for v in values[:flags_end]):
        return False
    fed = inv.upstream or inv.stdin_text is not None
    return bool(fed) or any(r.op == "<" for r in inv.redirects)


_CHMOD_ROOTS = frozenset({"/", "/bin", "/boot", "/etc", "/lib", "/lib64", "/sbin", "/usr",
                          "/var", "/usr/bin", "/usr/lib", "/usr/sbin", "/System", "/Library",
                          "/private/etc", "/root", "/dev", "/lib32", "/var/lib", "/usr/local",
                          "/usr/local/bin", "/usr/libexec", "/usr/share", "/etc/ssh", "/etc/ssl",
                          "/etc/sudoers.d", "/etc/pam.d", "/boot/efi", "/private/var"})  # fmt: skip


def _chmod_system(inv: Invocation, analysis: Analysis) -> bool:
    if not targets.applies_to_tree(inv):
        return False
    # chmod, chown, chgrp and chattr take a mode or owner first; setfacl a flag value.
    for word in inv.options.operands[inv.name != "setfacl" :]:
        path = targets.normalized(word, inv)
        if path is not None and (
            paths.is_root(path) or path in _CHMOD_ROOTS or paths.could_name(path, _CHMOD_ROOTS)
        ):
            return True
    return False


HARDLINES: tuple[Rule, ...] = (
    rule(
        "fs.delete-root",
        "filesystem",
        H,
        "recursive delete of the root filesystem",
        "delete the specific directory you mean, by its full path; never `/`",
        test=_deletes(paths.is_root),
        aliases=("rm-root", "hardline.rm-root"),
        must_match=(
            "rm -rf /",
            "rm -r -f //",
            "rm --recursive --force /*",
            "rm -rf / *",
            "find / -delete",
            "rm -rf /./..",
            "sudo rm -rf --no-preserve-root /",
            "echo / | xargs rm -rf",
            "python3 -c 'import shutil; shutil.rmtree(\"/\")'",
        ),
        must_not_match=(
            "rm -rf /tmp/build",
            "rm -f /",
            "rm -rf ./",
            "echo rm -rf /",
            "find / -name '*.log'",
            "python3 -c 'import shutil; shutil.rmtree(\"build\")'",
            "echo build | xargs rm -rf",
        ),
    ),
    rule(
        "fs.delete-system-dir",
        "filesystem",
        H,
        "recursive delete of a system directory",
        "delete only the files you created, by their full paths; system directories "
        "are managed by the package manager",
        test=_delete_system,
        aliases=("hardline.rm-system-dir",),
        must_match=(
            "rm -rf /etc",
            "sudo -u root rm -rf /usr/",
            "rm -fr /var/*",
            "rm -rf /e*",
            "find /boot -delete",
            "rm -Rf /USR",
            "rsync -a --delete empty/ /etc/",
            "rsync --del -a /tmp/empty/ /usr/",
            "tar --remove-files -cf /dev/null /etc",
            "find /etc -type f -exec shred -u {} +",
        ),
        must_not_match=(
            "rm -rf /etc/nginx/sites-enabled/old",
            "rm /etc/motd",
            "rm -rf /tmp/etc",
            "rm -rf ./usr",
            "ls -R /usr",
            "find /etc -name '*.bak' -exec rm {} +",
            "tar -cf /tmp/etc.tar /etc",
            "tar --remove-files -czf logs.tgz build/logs",
        ),
    ),
    rule(
        "fs.delete-home",
        "filesystem",
        H,
        "recursive delete of the home directory",
        "delete the specific project or cache directory inside your home instead",
        test=_deletes(paths.is_home_dir),
        aliases=("hardline.rm-home",),
        must_match=(
            "rm -rf ~",
            "rm -rf ~/",
            "rm -rf $HOME",
            'rm -rf "${HOME}/"',
            "rm -rf ~/*",
            "rm -rf /home/alice",
            "rm -rf /root",
            "perl -MFile::Path -e 'remove_tree(\"/home/alice\")'",
        ),
        must_not_match=(
            "rm -rf ~/projects/tmp",
            "rm ~/notes.txt",
            "rm -rf $HOME/.cache/pip",
            "ls ~",
        ),
    ),
    rule(
        "disk.mkfs-device",
        "disk",
        H,
        "format a filesystem onto a block device",
        "format an image file instead (`mkfs.ext4 disk.img`), or ask the owner to do it",
        test=_mkfs_device,
        aliases=("hardline.mkfs",),
        must_match=(
            "mkfs.ext4 /dev/sda1",
            "sudo mkfs -t xfs /dev/nvme0n1p2",
            "mkswap /dev/sdb2",
            "mke2fs -F /dev/vdb",
        ),
        must_not_match=(
            "mkfs.ext4 disk.img",
            "mkfs.vfat -C floppy.img 1440",
            "man mkfs",
            "echo mkfs /dev/sda",
        ),
    ),
    rule(
        "disk.dd-device",
        "disk",
        H,
        "`dd` onto a raw block device",
        "write to an image file (`of=disk.img`) instead of a device",
        programs=("dd",),
        test=_dd_device,
        aliases=("hardline.dd",),
        must_match=(
            "dd if=/dev/zero of=/dev/sda bs=1M",
            "sudo dd if=img.iso of=/dev/sdb",
            "dd of=/dev/nvme0n1 if=x",
            "dd if=/dev/urandom of=/dev/mapper/root",
        ),
        must_not_match=(
            "dd if=/dev/zero of=test.img bs=1M count=10",
            "dd if=/dev/sda of=backup.img",
            "dd if=x of=/dev/null",
        ),
    ),
    rule(
        "disk.redirect-device",
        "disk",
        H,
        "shell redirect onto a raw block device",
        "redirect into a regular file instead",
        test=_redirect_device,
        aliases=("hardline.redirect-device",),
        must_match=(
            "echo hi > /dev/sda",
            "cat img >/dev/sdb1",
            "cat x 1>>/dev/nvme0n1",
            "for i in 1; do echo; done > /dev/vda",
            'echo "$(cat f > /dev/sda)"',
        ),
        must_not_match=(
            "echo 'cat f > /dev/sda'",
            "echo hi > /dev/null",
            "cat /dev/sda > disk.img",
            "ls 2>/dev/stderr",
        ),
    ),
    rule(
        "disk.copy-to-device",
        "disk",
        H,
        "copy or tee onto a raw block device",
        "copy into a regular file instead",
        programs=_COPIERS | output_options.PROGRAMS,
        test=_copy_device,
        must_match=(
            "cp image.iso /dev/sdb",
            "tee /dev/sda < img",
            "sort -o /dev/sda image.txt",
            "gcc -o /dev/nvme0n1 x.c",
            "curl -o /dev/sda https://example.com/image",
            "zstd -d image.zst -o /dev/sda",
            "sudo install -m 644 x /dev/vda",
            "ddrescue in.img /dev/sdc",
            "pv image.iso -o /dev/sda",
            "ffmpeg -i clip.mp4 -f data /dev/sdb",
            "awk '{print > \"/dev/sda\"}' image.txt",
        ),
        must_not_match=(
            "cp /dev/sda disk.img",
            "tee out.log",
            "cp a b",
            "pv /dev/sda > disk.img",
            "ffmpeg -i /dev/video0 out.mp4",
            "ffmpeg -i in.mp4 -f null /dev/null",
        ),
    ),
    rule(
        "disk.wipe-device",
        "disk",
        H,
        "wipe or erase a block device (`shred`, `wipefs`, `blkdiscard`...)",
        "wipe an image file instead, or ask the owner to erase the device",
        programs=WIPERS,
        test=wipe_device,
        must_match=(
            "shred -n 3 /dev/sda",
            "wipefs -a /dev/sdb",
            "blkdiscard /dev/nvme0n1",
            "sgdisk --zap-all /dev/sda",
            "wipefs --all /dev/sdb1",
            "diskutil eraseDisk JHFS+ Empty disk2",
            "cryptsetup luksErase /dev/sda2",
            "parted -s /dev/nvme0n1 mklabel msdos",
            "parted -s /dev/sda rm 1",
        ),
        must_not_match=(
            "shred -u secret.txt",
            "parted /dev/sda print",
            "parted disk.img mklabel gpt",
            "diskutil list",
            "cryptsetup luksFormat vault.img",
            "wipefs --all --no-act /dev/sdb",
            "wipefs /dev/sda",
            "wipefs -a disk.img",
            "sgdisk -p /dev/sda",
        ),
    ),
    rule(
        "proc.fork-bomb",
        "process",
        H,
        "fork bomb: a function that spawns copies of itself without end",
        "run a bounded number of background jobs instead",
        scan=fork_bombs.fork_bomb,
        aliases=("hardline.fork-bomb",),
        must_match=(
            ":(){ :|:& };:",
            "bomb() { bomb | bomb & }; bomb",
            "f(){ f|f & }; f",
            "perl -e 'fork while fork'",
            "python3 -c 'import os\nwhile True: os.fork()'",
            "perl -e 'fork while 1'",
            "perl -e 'while(1){fork}'",
            "ruby -e 'fork while true'",
            "ruby -e 'loop do fork end'",
            "python3 -c 'import os\nwhile 1:\n    os.fork()'",
        ),
        must_not_match=(
            "perl -e 'fork; print 1'",
            "perl -e 'for (1..4) { fork }'",
            "python3 -c 'import os\nfor i in range(3): os.fork()'",
            "perl -e 'while (1) { last if fork; }'",
            "perl -e 'fork while $n--'",
            "echo ':(){ :|:& };:'",
            "f() { echo hi & }; f",
            "g() { g; }",
            "git log --format=':(){'",
        ),
    ),
    rule(
        "sys.shutdown",
        "system",
        H,
        "shut down, reboot or halt the machine, or drop it to rescue mode",
        "ask the owner to restart the machine; restart only the service you changed",
        programs=(
            "shutdown",
            "reboot",
            "halt",
            "poweroff",
            "systemctl",
            "loginctl",
            "init",
            "telinit",
            "openrc-shutdown",
            "kexec",
            "rtcwake",
            *sorted(power.DBUS_CLIENTS),
        ),
        test=power.shuts_down,
        aliases=("hardline.shutdown",),
        must_match=(
            "shutdown -h now",
            "sudo reboot",
            "systemctl poweroff",
            "init 0",
            "telinit 6",
            "halt -f",
            "systemctl kexec",
            "loginctl reboot",
            "systemctl isolate poweroff.target",
            "systemctl rescue",
            "systemctl isolate emergency.target",
            "telinit 1",
            "kexec -e",
            "rtcwake -m off -s 60",
            "openrc-shutdown -p now",
            "busctl call org.freedesktop.login1 /org/freedesktop/login1 "
            "org.freedesktop.login1.Manager Reboot b false",
            "dbus-send --system --print-reply --dest=org.freedesktop.login1 "
            "/org/freedesktop/login1 org.freedesktop.login1.Manager.PowerOff boolean:true",
            "gdbus call --system --dest org.freedesktop.login1 --object-path "
            "/org/freedesktop/login1 --method org.freedesktop.login1.Manager.Halt false",
            "busctl call org.freedesktop.systemd1 /org/freedesktop/systemd1 "
            "org.freedesktop.systemd1.Manager StartUnit ss reboot.target replace-irreversibly",
        ),
        must_not_match=(
            "shutdown -c",
            "busctl list",
            "busctl introspect org.freedesktop.login1 /org/freedesktop/login1",
            "gdbus call --system --dest org.freedesktop.login1 --object-path "
            "/org/freedesktop/login1 --method org.freedesktop.login1.Manager.ListSessions",
            "systemctl restart nginx",
            "init --version",
            "echo reboot",
            "systemctl status",
            "systemctl start nginx.service",
            "systemctl status reboot.target",
            "halt --wtmp-only",
            "kexec -l /boot/vmlinuz",
            "rtcwake -m no -s 60",
            "systemctl soft-reboot --when cancel",
        ),
    ),
    rule(
        "sys.sysrq-trigger",
        "system",
        H,
        "write to `/proc/sysrq-trigger` (instant reboot, crash or kill-all)",
        "do not use magic SysRq; ask the owner",
        test=power.writes_sysrq,
        must_match=(
            "echo b > /proc/sysrq-trigger",
            "echo c | sudo tee /proc/sysrq-trigger",
            "printf o >/proc/sysrq-trigger",
            "echo b > /proc/sysrq-*",
        ),
        must_not_match=("cat /proc/sys/kernel/sysrq", "echo 1 > /tmp/sysrq-trigger", "ls /proc"),
    ),
    rule(
        "priv.sudo-stdin-password",
        "privilege",
        H,
        "password piped into `sudo -S`",
        "never feed sudo a password; ask the owner to run the command",
        programs=("sudo",),
        test=_sudo_stdin,
        aliases=("hardline.sudo-stdin",),
        must_match=(
            "echo hunter2 | sudo -S apt install x",
            "sudo -S rm x <<< 'pw'",
            "printf 'pw\\n' | sudo --stdin ls",
            "cat pw.txt | sudo -kS id",
            "sudo --std ls <<< pw",
            "echo pw | sudo --stdi -u root id",
        ),
        must_not_match=(
            "sudo apt install x",
            "echo hi | sudo --preserve-env tee f",
            "echo hi | sudo tee f",
            "sudo -u bob ls -S",
            "sudo ls -S",
        ),
    ),
    rule(
        "fs.chmod-system-recursive",
        "filesystem",
        H,
        "recursive permission or owner change of `/` or a system directory",
        "change only the files you own, by their paths",
        programs=("chmod", "chown", "chgrp", "setfacl", "chattr"),
        test=_chmod_system,
        must_match=(
            "chmod -R 777 /",
            "sudo chown -R me /usr",
            "chmod -R 000 /etc/",
            "chown -R nobody /u?r",
            "chown --recursive nobody /var",
            "chgrp -R staff /bin",
            "setfacl -R -m u:nobody:rwx /",
            "chmod -R 777 /var/lib",
            "find / -exec chown nobody {} +",
        ),
        must_not_match=(
            "chmod -R 755 ./build",
            "chmod -R 755 /tmp/b?ild",
            "chown -R me ~/project",
            "chmod 644 /etc/hosts",
            "chown -R www-data /var/www/site",
            "setfacl -R -m u:me:rwx ./data",
            "find /etc -name '*.conf' -exec chmod 644 {} +",
        ),
    ),
)
