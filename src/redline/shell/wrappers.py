"""Commands that run another command given in their arguments (F-SHELL-2).

Each wrapper is data: which of its options take a value, how many leading
operands it consumes before the wrapped command, and whether the wrapped
command gets more arguments at run time (`xargs`, `find -exec`).
"""

from redline.fasttuple import NamedTuple
from redline.shell.model import DYNAMIC, Word


class Wrapper(NamedTuple):
    # Short options (`u` for `-u`) and long options (`user`) that take a value.
    short_args: frozenset[str] = frozenset()
    long_args: frozenset[str] = frozenset()
    # Operands to skip after the options: `timeout DURATION`, `chroot DIR`.
    operands: int = 0
    # `env NAME=VALUE cmd`: assignments come before the command.
    assignments: bool = False
    # Options after which no command runs (`command -v rm` only looks it up).
    lookup_only: frozenset[str] = frozenset()
    # The wrapped command receives extra arguments at run time.
    appends_args: bool = False
    # The wrapped command runs on another machine (`ssh host cmd`).
    remote: bool = False
    # Long options that take more than one value (`bwrap --bind SRC DEST`).
    arity: tuple[tuple[str, int], ...] = ()


def _w(short: str = "", long: str = "", **kwargs: object) -> Wrapper:
    return Wrapper(frozenset(short), frozenset(long.split()), **kwargs)  # type: ignore[arg-type]


_BWRAP_PAIRS = (
    "bind bind-try dev-bind dev-bind-try ro-bind ro-bind-try bind-fd ro-bind-fd symlink setenv "
    "file bind-data ro-bind-data chmod"
)
WRAPPERS: dict[str, Wrapper] = {
    "sudo": _w(
        "ughpCDrtUTR",
        "user group host prompt close-from chdir role type other-user command-timeout chroot",
        lookup_only=frozenset({"-l", "--list", "-v", "-V", "--validate", "--version", "-k", "-K"}),
    ),
    "doas": _w("uC", ""),
    "run0": _w("u", "user unit property description slice"),
    "pkexec": _w("", "user"),
    "env": _w("uCS", "unset chdir split-string", assignments=True),
    "exec": _w("a", ""),
    "command": _w("", "", lookup_only=frozenset({"-v", "-V"})),
    "builtin": _w(),
    "nohup": _w(),
    "setsid": _w(),
    "time": _w("fo", "format output"),
    "nice": _w("n", "adjustment"),
    "ionice": _w("cnpPu", "class classdata pid pgid uid"),
    "chrt": _w("T", "sched-runtime sched-period sched-deadline", operands=1),
    "taskset": _w("", "", operands=1),
    "stdbuf": _w("ioe", "input output error"),
    "timeout": _w("sk", "signal kill-after", operands=1),
    "watch": _w("nqd", "interval differences equexit"),
    "xargs": _w(
        "adEeIiLlnPs",
        "arg-file delimiter eof replace max-lines max-args max-procs max-chars process-slot-var",
        appends_args=True,
    ),
    "parallel": _w("jSIaNnd", "jobs sshlogin arg-file delimiter", appends_args=True),
    "strace": _w("eoOpPsSuIXbE", "output trace signal"),
    "ltrace": _w("eoOpnSsuAa", "output"),
    "chroot": _w("", "userspec groups", operands=1),
    "unshare": _w("", "map-user map-group setgroups"),
    "nsenter": _w("tSGwr", "target setuid setgid wd root"),
    "flock": _w("wEc", "timeout conflict-exit-code command", operands=1),
    "firejail": _w(),
    "proxychains": _w("f", ""),
    "proxychains4": _w("f", ""),
    "torsocks": _w(),
    "fakeroot": _w(),
    "faketime": _w("", "", operands=1),
    "sshpass": _w("pfde", ""),
    "runuser": _w("ugG", "user group supp-group"),
    "sg": _w("", "", operands=1),
    # Multi-call binaries: the first operand names the applet they run.
    "busybox": _w(),
    "toybox": _w(),
    "coreutils": _w(),
    "caffeinate": _w("tw", ""),
    "xvfb-run": _w("afnsewp", "server-num server-args error-file auth-file"),
    "dbus-run-session": _w(),
    "systemd-run": _w("pEu", "property setenv unit description uid gid working-directory"),
    "catchsegv": _w(),
    "unbuffer": _w(),
    "rlwrap": _w(),
    "ssh": _w("BbcDEeFIiJLlmOopQRSWw", "", operands=1, remote=True),
    "chronic": _w("ev", ""),
    "gosu": _w("", "", operands=1),
    "su-exec": _w("", "", operands=1),
    "setpriv": _w(
        "",
        "reuid regid groups inh-caps ambient-caps bounding-set securebits "
        "selinux-label apparmor-profile pdeathsig landlock-access landlock-rule",
    ),
    "prlimit": _w("p", "pid output"),
    "numactl": _w("NmCiPp", "cpunodebind membind physcpubind interleave preferred preferred-many"),
    "cgexec": _w("g", ""),
    "systemd-inhibit": _w("", "what who why mode"),
    "eatmydata": _w(),
    "nocache": _w("n", ""),
    "ifne": _w(),
    "lckdo": _w("W", "", operands=1),
    "with-lock-ex": _w("", "", operands=1),
    "tini": _w("peg", ""),
    # bubblewrap: every option is long; `--args FD` is handled in `split_wrapper`.
    "bwrap": _w(
        "",
        "args argv0 unsetenv lock-file sync-fd userns userns2 pidns uid gid hostname chdir "
        "remount-ro mkdir tmpfs dev proc mqueue seccomp add-seccomp-fd block-fd "
        "userns-block-fd info-fd json-status-fd cap-add cap-drop perms size exec-label "
        "file-label overlay-src tmp-overlay ro-overlay",
        arity=(*((name, 2) for name in _BWRAP_PAIRS.split()), ("overlay", 3)),
    ),
    "dumb-init": _w("r", "rewrite"),
}

_COREUTILS_PROG = "--coreutils-prog="
# Wrappers that pass the rest of their words to a shell as one script.
SCRIPT_JOINERS = frozenset({"watch", "ssh"})


def split_wrapper(name: str, argv: tuple[Word, ...]) -> tuple[tuple[Word, ...], bool] | None:
    """The wrapped argv of `argv` (whose program is wrapper `name`), if any.

    Returns the inner argv and whether the wrapper ran it only as a lookup.
    `None` means `name` is not a wrapper.
    """
    spec = WRAPPERS.get(name)
    if spec is None:
        return None
    if name == "coreutils" and len(argv) > 1 and argv[1].value.startswith(_COREUTILS_PROG):
        # GNU's single binary: `coreutils --coreutils-prog=rm -rf /` runs `rm -rf /`.
        word = argv[1]
        return (word._replace(value=word.value[len(_COREUTILS_PROG) :]), *argv[2:]), False
    i = skip_options(name, spec, argv, 1)
    if i is None:
        return (), True
    if name == "bwrap" and any(w.value.partition("=")[0] == "--args" for w in argv[1:i]):
        # More options, and maybe the command, come from a file descriptor.
        return (argv[0]._replace(value=DYNAMIC),), False
    i += spec.operands
    if name == "parallel":
        # `parallel CMD ::: ARGS` runs scripts (see `embedded`); with `::::`
        # the arguments come from files, appended to CMD at run time.
        separators = [k for k in range(i, len(argv)) if argv[k].value.startswith(":::")]
        if separators:
            files = any(argv[k].value.startswith("::::") for k in separators)
            return (argv[i : separators[0]] if files else ()), False
    if spec.remote and i < len(argv) and argv[i - 1].value != "--":
        # OpenSSH reads options after the destination too: `ssh host -- cmd`.
        i = skip_options(name, spec, argv, i) or i
    return argv[i:], False


def skip_options(name: str, spec: Wrapper, argv: tuple[Word, ...], i: int) -> int | None:
    """The index past the options from `i`; `None` when one makes it a lookup."""
    n = len(argv)
    while i < n:
        text = argv[i].value
        if text == "--":
            return i + 1
        if text in spec.lookup_only:
            return None
        if text.startswith("--") and len(text) > 2:
            key, eq, _ = text[2:].partition("=")
            values = dict(spec.arity).get(key, 1 if key in spec.long_args else 0)
            i += 1 + (values if not eq else 0)
            continue
        if text.startswith("-") and len(text) > 1 and not (name == "xargs" and text == "-"):
            if name == "nice" and text[1:].lstrip("-").isdigit():
                i += 1  # `nice -10 cmd`
                continue
            takes = next((k for k, ch in enumerate(text[1:], 1) if ch in spec.short_args), 0)
            i += 2 if takes and takes == len(text) - 1 else 1
            continue
        if spec.assignments and "=" in text and not text.startswith("="):
            i += 1
            continue
        break
    return i


def xargs_replace(argv: tuple[Word, ...]) -> str | None:
    """The string `xargs -I R` replaces with each input line, if any."""
    takes = WRAPPERS["xargs"].short_args
    k, n = 1, len(argv)
    while k < n:
        text = argv[k].value
        following = argv[k + 1].value if k + 1 < n else ""
        if text.startswith("--replace"):
            return text.partition("=")[2] or "{}"
        if text == "--" or not text.startswith("-") or text == "-":
            return None
        if text.startswith("-i"):
            return text[2:] or "{}"
        if text.startswith("-I"):
            return text[2:] or following
        if text.startswith("--"):
            k += 1
            continue
        k += 2 if text[-1] in takes and len(text) == 2 else 1
    return None


def run_time_input(inner: tuple[Word, ...], replace: str) -> tuple[Word, ...]:
    """`xargs -I{} {} x`, `xargs -I{} sh -c '{}'`: input lines that become the
    program or the start of a script are code computed at run time."""
    if not inner or not replace:
        return inner
    starts = [w.value.lstrip().startswith(replace) for w in inner]
    if (not starts[0] and not any(starts[1:])) or (not starts[0] and inner[0].value not in _SHELLS):
        return inner
    return tuple(
        w._replace(value=w.value.replace(replace, DYNAMIC)) if start else w
        for w, start in zip(inner, starts, strict=True)
    )


_SHELLS = frozenset({"sh", "bash", "zsh", "ksh", "dash", "ash", "mksh", "/bin/sh", "/bin/bash"})
