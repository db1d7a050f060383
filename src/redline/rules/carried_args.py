"""An argument that is itself a command crossing a hard line (F-RULES-1).

The table of programs that run programs (`shell/run_carrier_table.py`) is
never complete: a program no one listed may run what it is given (`mytool
--hook 'rm -rf /'`). So an argument that parses as a shell command reaching
a hard line is denied, unless the program is one known to treat its
arguments as data (`grep`, `echo`, `git commit -m`), or a carrier whose
commands the analysis already follows (its carried commands are judged
there, and its other arguments are data).
"""

from __future__ import annotations

from redline.decision import Severity, Span
from redline.rules.model import Rule, rule
from redline.shell import embedded, run_carriers, runners
from redline.shell.analysis import Analysis, analyze
from redline.shell.carriers import CARRIER_NAMES, interpreter_family, quote
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC
from redline.shell.wrappers import WRAPPERS, split_wrapper

# Programs that take text as data: what they are given is searched, shown,
# stored or sent, never run.
_DATA = (
    "echo printf grep egrep fgrep zgrep rg ag ack ugrep man tldr apropos whatis info help last "
    "lastb journalctl apt-cache dpkg-query cat head tail less more wc sort uniq cut tr jq yq "
    "gron test [ [[ expr type which whereis hash compgen complete history logger notify-send "
    "wall write mail mailx cowsay figlet toilet say espeak banner printenv read declare typeset "
    "local export readonly set unset alias unalias true false : gh glab hub jira curl http "
    "https xh diff cmp basename dirname realpath readlink stat file ls touch mkdir pbcopy xclip "
    "xsel wl-copy trans git docker podman nerdctl kubectl tmux screen at batch openssl base64 "
    "md5sum sha256sum shasum ssh-keygen gpg age zenity dialog whiptail npm yarn pnpm pip pip3 "
    "cargo go bat batcat glow pandoc lolcat task todoist linear espeak-ng"
)
DATA_PROGRAMS = frozenset(_DATA.split())
# A command a hard-line rule looks at, as the first word or after a separator.
_HARDLINE_WORDS = lazy_regex(
    r"(?:^|[;&|(`\s])(?:sudo\s+|\S*/)?(?:rm|mkfs\S*|dd|shred|wipefs|wipe|kill|killall5|pkill|"
    r"reboot|shutdown|poweroff|halt|init|telinit|systemctl|loginctl|chmod|chown|chgrp|chattr|"
    r"setfacl|mv|cp|sfdisk|sgdisk|fdisk|parted|blkdiscard|hdparm|nvme|cryptsetup|find|xargs|"
    r"busctl|dbus-send|gdbus|srm|scrub|badblocks|sudo)(?=\s)|:\s*\(\s*\)|"
    r">\s*/(?:dev|proc)/"
)
_KNOWN_CARRIERS = frozenset(
    {*WRAPPERS, *CARRIER_NAMES, *run_carriers.NAMES, *runners.RUNNERS, *embedded.SPEC_NAMES,
     "parallel", "sqlite3", "sqlite", "less", "find", "fd", "fdfind", "env"}
)  # fmt: skip
MAX_ARGUMENT = 4096
_depth: list[int] = [0]


_HARDLINES: list[tuple[Rule, ...]] = []


def _hardlines() -> tuple[Rule, ...]:
    """The hard-line rules (loaded on the first argument that could be a command)."""
    if not _HARDLINES:
        # Every family's hard lines (kills and power live outside `hardline.py`),
        # but not this one. `_everything` is defined before the catalogue checks
        # its examples, which run this rule.
        from redline.rules.catalog import _everything

        rules = _everything()
        _HARDLINES.append(
            tuple(
                r
                for r in rules
                if r.severity is Severity.HARDLINE and r.id != "exec.hardline-argument"
            )
        )
    return _HARDLINES[0]


def _candidates(inv: Invocation) -> list[tuple[str, int]]:
    """The arguments that could be a command line, with their word's index."""
    found = []
    for k, value in enumerate(inv.values, 1):
        if value.startswith("-") and "=" in value:
            value = value.partition("=")[2]
        elif value.startswith("-") and not value.startswith("--"):
            value = value[2:]  # `-c'CMD'`: a short option's attached value
        plausible = " " in value and len(value) <= MAX_ARGUMENT and DYNAMIC not in value
        if plausible and _HARDLINE_WORDS.search(value):
            found.append((value, k))
    found.extend(_tails(inv))
    return found


def _tails(inv: Invocation) -> list[tuple[str, int]]:
    """`proot rm -rf ~`, `kitty shutdown now`: the words from a hard-line
    program's name on, as the command an unknown wrapper runs."""
    values = inv.values
    for k, value in enumerate(values, 1):
        if value.rsplit("/", 1)[-1] in _TAIL_PROGRAMS:
            rest = values[k - 1 :]
            if any(DYNAMIC in v for v in rest) or sum(map(len, rest)) > MAX_ARGUMENT:
                return []
            return [(" ".join(quote(v) for v in rest), k)]
    return []


# Programs whose command lines the hard-line rules judge, looked for among
# an unknown program's words (the first one found starts the wrapped
# command). Not the power and kill verbs: as subcommands they are everyday
# words (`adb reboot`, `vagrant halt`, `docker kill`).
_TAIL_PROGRAMS = frozenset({
    "rm", "dd", "shred", "wipefs", "wipe", "mkfs", "mkfs.ext2", "mkfs.ext3", "mkfs.ext4",
    "mkfs.xfs", "mkfs.btrfs", "mkfs.vfat", "mkfs.fat", "mkswap", "sfdisk", "sgdisk", "fdisk",
    "parted", "blkdiscard", "sh", "bash", "dash", "zsh", "ksh", "srm", "scrub", "badblocks",
    "chmod", "chown", "find", "xargs",
})  # fmt: skip


def _hardline_argument(inv: Invocation, analysis: Analysis) -> bool | Span:
    # Most calls have no argument with a space nor a hard-line program: the cheapest test first.
    words = inv.argv[1:]
    if not any(" " in w.value or w.value.rsplit("/", 1)[-1] in _TAIL_PROGRAMS for w in words):
        return False
    name = inv.name
    if not name or name in DATA_PROGRAMS:
        return False
    if name in _KNOWN_CARRIERS:
        # What it runs is followed; one spelling the table does not know
        # (`kitty --hold CMD`, `cmake -E env CMD`) leaves it running nothing.
        if analysis.children(inv):
            return False
        if name in WRAPPERS:
            split = split_wrapper(name, inv.argv)
            if split is not None and split[1]:
                return False  # `sudo -l CMD`, `command -v CMD`: only looked up
        candidates = _tails(inv)
    else:
        if interpreter_family(name) is not None:
            from redline.shell.carriers import inline_code  # only for interpreters

            if inline_code(inv) is not None:
                return False  # its code is judged as code, not as a shell line
        candidates = _candidates(inv)
    if not candidates or _depth[0] > 2:
        return False
    from redline.rules.catalog import evaluate  # the catalogue holds this rule

    _depth[0] += 1
    try:
        for text, k in candidates:
            if evaluate(analyze(text), _hardlines()):
                return inv.argv[k].span
    finally:
        _depth[0] -= 1
    return False


CARRIED_ARG_RULES: tuple[Rule, ...] = (
    rule(
        "exec.hardline-argument",
        "exec",
        Severity.HARDLINE,
        "an argument is a command that crosses a hard line, given to a program that may run it",
        "do not hand a program a command that wipes, kills or shuts down; if it is text, "
        "write it to a file or pass it to a program that only reads it",
        must_match=[
            "mytool --run 'rm -rf ~'",
            "someprog --hook='kill -9 -1'",
            "./deploy.sh --after 'shutdown -h now'",
            "foo 'mkfs.ext4 /dev/sda'",
            "runner exec 'dd if=/dev/zero of=/dev/sda'",
            "tool -c'rm -rf /'",
            "proot rm -rf ~",
            "kitty --hold rm -rf /",
            "guix shell -- rm -rf /",
            "cmake -E env FOO=1 rm -rf ~",
            "flatpak-spawn --host dd if=/dev/zero of=/dev/sda",
            "distrobox-host-exec /bin/rm -rf /home/me",
            "mytool run sh -c 'kill -9 -1'",
        ],
        must_not_match=[
            "grep -r 'rm -rf /' .",
            "git commit -m 'never rm -rf /'",
            "echo 'rm -rf /' > notes.txt",
            "mytool --run 'rm -rf ./build'",
            "last reboot",
            "python3 -c 'print(\"rm -rf /\")'",
            "journalctl -g 'shutdown -h'",
            "task add 'call mom'",
            "proot rm -rf ./build",
            "man rm",
            "tldr rm -rf",
            "apt-get install shred",
            "mytool --kill-timeout 5 run",
            "cmake -E env FOO=1 make",
        ],
        test=_hardline_argument,
    ),
)
