"""Abbreviated long options (F-SHELL-4): GNU getopt and argp take any
unambiguous prefix of a long option, so `rm --recur --force` is
`rm --recursive --force`.

Each program's long options are data; a prefix resolves only when exactly
one of them starts with it. An exact name always wins (`--force` is never
read as `--force-with-lease`).
"""

from __future__ import annotations

_RM = (
    "recursive force interactive one-file-system no-preserve-root preserve-root dir verbose "
    "help version"
)
_CP_MV = (
    "recursive force interactive archive backup copy-contents dereference no-clobber "
    "link no-dereference preserve no-preserve parents reflink remove-destination "
    "sparse strip-trailing-slashes suffix symbolic-link target-directory "
    "no-target-directory update verbose one-file-system attributes-only context exchange "
    "debug help version"
)
_OWNERSHIP = (
    "recursive changes quiet silent verbose dereference no-dereference from "
    "no-preserve-root preserve-root reference help version"
)

_SORT = (
    "ignore-leading-blanks dictionary-order ignore-case general-numeric-sort ignore-nonprinting "
    "month-sort human-numeric-sort numeric-sort random-sort random-source reverse sort "
    "version-sort batch-size check compress-program debug files0-from key merge output stable "
    "buffer-size field-separator temporary-directory parallel unique zero-terminated help version"
)
_MAKE = (
    "always-make directory debug environment-overrides eval file ignore-errors include-dir "
    "jobs jobserver-style keep-going load-average check-symlink-times just-print dry-run recon "
    "no-print-directory old-file assume-old output-sync print-data-base question "
    "no-builtin-rules no-builtin-variables shuffle silent quiet no-silent stop touch trace "
    "version print-directory what-if new-file assume-new warn-undefined-variables makefile help"
)
_MAN = (
    "pager html config-file debug default warnings whatis apropos global-apropos local-file "
    "where path location where-cat location-cat catman recode locale systems extension "
    "ignore-case match-case regex wildcard names-only all update no-subpages no-hyphenation "
    "no-justification preprocessor troff troff-device ditroff gxditview prompt ascii encoding "
    "help usage version"
)

_SYSTEMCTL = (
    "all recursive reverse after before with-dependencies show-types job-mode fail "
    "irreversible ignore-dependencies ignore-inhibitors kill-whom kill-value signal what now "
    "dry-run quiet no-warn wait no-block user system failed no-legend no-pager no-reload "
    "no-ask-password global runtime force preset-mode root image lines output firmware-setup "
    "boot-loader-menu boot-loader-entry reboot-argument kernel-cmdline plain timestamp mkdir "
    "marked read-only host machine type state property value message check-inhibitors when "
    "help version"
)
_IPTABLES = (
    "append delete insert replace check list list-rules flush zero new-chain delete-chain "
    "policy rename-chain table jump goto protocol source destination in-interface "
    "out-interface match numeric verbose exact line-numbers modprobe wait set-counters "
    "ipv4 ipv6 fragment help version"
)

# Programs whose option parser accepts abbreviations, with their long options.
LONG_OPTIONS: dict[str, frozenset[str]] = {
    name: frozenset(spec.split())
    for name, spec in {
        "rm": _RM,
        "cp": _CP_MV,
        "mv": _CP_MV,
        "chmod": _OWNERSHIP,
        "chown": _OWNERSHIP,
        "chgrp": _OWNERSHIP,
        "shred": "force iterations random-source size remove verbose exact zero help version",
        "rmdir": "ignore-fail-on-non-empty parents verbose help version",
        "sed": "quiet silent debug expression file follow-symlinks in-place line-length "
        "null-data zero-terminated posix regexp-extended separate sandbox unbuffered help version",
        "tar": "checkpoint checkpoint-action to-command use-compress-program to-stdout "
        "extract create list append update delete directory file exclude remove-files "
        "overwrite unlink-first recursive-unlink verbose gzip bzip2 xz zstd help version "
        "info-script new-volume-script rsh-command multi-volume absolute-names keep-old-files "
        "skip-old-files transform exclude-from files-from null owner group mode mtime "
        "preserve-permissions same-owner numeric-owner one-file-system sparse totals wildcards "
        "listed-incremental lzip lzma lzop compress auto-compress",
        "sort": _SORT,
        "make": _MAKE,
        "gmake": _MAKE,
        "man": _MAN,
        "wipefs": "all backup force help no-act noheadings offset output parsable quiet types "
        "json lock version",
        "umount": "all all-targets no-canonicalize detach-loop fake force internal-only "
        "no-mtab lazy test-opts recursive read-only types verbose quiet namespace help version",
        "truncate": "no-create io-blocks reference size help version",
        "systemctl": _SYSTEMCTL,
        "swapoff": "all help verbose version",
        "mdadm": "zero-superblock assemble build create grow incremental monitor misc detail "
        "examine stop run readonly force verbose quiet scan help version",
        "modprobe": "remove all show-depends dry-run force verbose quiet first-time "
        "ignore-install ignore-remove remove-dependencies wait help version",
        "passwd": "delete expire help keep-tokens inactive lock mindays quiet repository root "
        "prefix status unlock warndays maxdays stdin all",
        "deluser": "remove-home remove-all-files backup backup-to system only-if-empty group "
        "conf quiet debug help version",
        "dropdb": "if-exists force interactive echo host port username no-password password "
        "maintenance-db help version",
        "iptables": _IPTABLES,
        "ip6tables": _IPTABLES,
        "shutdown": "help halt poweroff reboot kexec no-wall wall show",
        "userdel": "force help remove root prefix selinux-user badname",
        "wget": "use-askpass output-document output-file append-output quiet verbose "
        "post-data post-file method body-data body-file header input-file execute",
        "emacs": "eval execute batch script load funcall file insert kill no-init-file "
        "no-site-file quick daemon chdir debug-init",
        "gdb": "eval-command init-eval-command command init-command batch args quiet "
        "silent nx nh pid core exec symbols directory cd tty version help",
    }.items()
}


def expand(values: tuple[str, ...], known: frozenset[str]) -> tuple[str, ...]:
    """The words with each unambiguous prefix written whole (`--recur=x` as
    `--recursive=x`), up to `--`: what every rule reading them sees."""
    out: list[str] | None = None
    for k, value in enumerate(values):
        if value == "--":
            break
        if not value.startswith("--") or len(value) < 3:
            continue
        key, eq, rest = value[2:].partition("=")
        if key in known:
            continue
        matches = [name for name in known if name.startswith(key)]
        if len(matches) == 1:
            out = out if out is not None else list(values)
            out[k] = "--" + matches[0] + eq + rest
    return values if out is None else tuple(out)


def candidates(program: str, key: str) -> tuple[str, ...]:
    """Every long option `key` could stand for in `program`: one when it is
    exact or unambiguous, several when it is ambiguous (counted as each, so
    a rule fails closed), or `key` itself."""
    known = LONG_OPTIONS.get(program)
    if known is None or key in known:
        return (key,)
    return tuple(sorted(name for name in known if name.startswith(key))) or (key,)


def resolve(program: str, key: str) -> str:
    """The long option `key` (without `--`) stands for in `program`."""
    known = LONG_OPTIONS.get(program)
    if known is None or key in known:
        return key
    matches = [name for name in known if name.startswith(key)]
    return matches[0] if len(matches) == 1 else key
