"""How a command powers off, reboots or crashes the machine: the tests of the
`sys.shutdown` and `sys.sysrq-trigger` hard lines (the rules themselves, with
their examples, are in `hardline`)."""

from __future__ import annotations

from redline.rules import argv, targets
from redline.shell import paths
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex

_POWER_VERBS = frozenset({"poweroff", "reboot", "halt", "kexec", "soft-reboot"})
# Rescue and emergency mode stop every service but a root shell on the console.
_RESCUE = frozenset({"rescue", "emergency"})
_TARGETS = _POWER_VERBS | _RESCUE | {"ctrl-alt-del", "shutdown", "final"}


# A call to logind or systemd over D-Bus does what `systemctl poweroff` does.
DBUS_CLIENTS = frozenset({"busctl", "dbus-send", "gdbus", "qdbus", "qdbus6", "dbus"})
_DBUS_POWER = lazy_regex(
    r"(?i)(?:\A|[.\s/])(?:PowerOff|Reboot|Halt|KExec|SoftReboot)(?:WithFlags)?\Z"
)


def _dbus_power(values: tuple[str, ...]) -> bool:
    joined = " ".join(values)
    if "login1" not in joined and "systemd1" not in joined:
        return False
    if any(_DBUS_POWER.search(v) for v in values):
        return True
    starts = any(v.rsplit(".", 1)[-1].lower() in ("startunit", "startunitreplace") for v in values)
    if starts and any(v.strip("'\"").removesuffix(".target") in _TARGETS for v in values):
        return True
    # `ScheduleShutdown st poweroff 0`
    scheduled = any(v.rsplit(".", 1)[-1].lower() == "scheduleshutdown" for v in values)
    return scheduled and any(v.strip("'\"") in _POWER_VERBS for v in values)  # not `dry-reboot`


def shuts_down(inv: Invocation, analysis: Analysis) -> bool:
    name = inv.name
    if name in ("shutdown", "reboot", "halt", "poweroff"):
        values = inv.values
        # cancel, warn only, or only write the wtmp record (`-w`, `--wtmp-only`)
        harmless = ("-c", "--help", "--version", "-k", "--show", "-w", "--wtmp-only")
        return not any(v in harmless for v in values)
    if name in ("systemctl", "loginctl"):
        verb = inv.subcommand()
        if "cancel" in inv.values:  # `systemctl reboot --when cancel`
            return False
        if verb in ("start", "isolate", "restart"):  # `systemctl start reboot.target`
            return any(v.removesuffix(".target") in _TARGETS for v in inv.values)
        return verb in _POWER_VERBS or verb in _RESCUE
    if name == "openrc-shutdown":
        return inv.has_flag("HprkP", ("halt", "poweroff", "reboot", "kexec"))
    if name in DBUS_CLIENTS:
        return _dbus_power(inv.values)
    if name in ("init", "telinit"):
        return inv.subcommand() in ("0", "6", "1", "s", "S", "single")
    if name == "kexec":
        return kexec_runs(inv.values)
    if name == "rtcwake":
        return rtcwake_mode(inv.values) == "off"
    return False


def kexec_runs(values: tuple[str, ...]) -> bool:
    """`kexec -e`, `-f`, or a kernel given with no other action: boot into it now."""
    if any(v in ("-e", "--exec", "-f", "--force") for v in values):
        return True
    quiet = ("-l", "--load", "-p", "--load-panic", "-u", "--unload", "-S", "--status", "-h",
             "--help", "-v", "--version")  # fmt: skip
    return not any(v in quiet or v.startswith(("--load", "--unload")) for v in values)


def rtcwake_mode(values: tuple[str, ...]) -> str:
    """The mode `rtcwake` goes into (its default is `standby`)."""
    args = argv.parse(values, "mdstAl", ("mode", "device", "seconds", "time", "adjfile"))
    if args.has("-n", "--dry-run"):
        return "no"
    modes = args.value("-m", "--mode")
    return modes[-1].lower() if modes else "standby"


_SLEEP_VERBS = frozenset({"suspend", "hibernate", "hybrid-sleep", "suspend-then-hibernate",
                          "sleep"})  # fmt: skip
_SLEEP_PROGRAMS = frozenset({"pm-suspend", "pm-hibernate", "pm-suspend-hybrid", "zzz", "ZZZ",
                             "s2ram", "s2disk", "s2both"})  # fmt: skip
_DBUS_SLEEP = lazy_regex(
    r"(?i)(?:\A|[.\s/])(?:Suspend|Hibernate|HybridSleep|SuspendThenHibernate|Sleep)"
    r"(?:WithFlags)?\Z"
)


def sleeps(inv: Invocation, analysis: Analysis) -> bool:
    """Suspend or hibernate the machine: it stops answering until woken."""
    name = inv.name
    if name in ("systemctl", "loginctl"):
        verb = inv.subcommand()
        if verb in ("start", "isolate"):
            return any(v.removesuffix(".target") in _SLEEP_VERBS for v in inv.values)
        return verb in _SLEEP_VERBS
    if name == "rtcwake":
        return rtcwake_mode(inv.values) in ("standby", "freeze", "mem", "disk")
    if name in DBUS_CLIENTS:
        return "login1" in " ".join(inv.values) and any(_DBUS_SLEEP.search(v) for v in inv.values)
    if name in _SLEEP_PROGRAMS:
        return "--help" not in inv.values
    return any(
        paths.normalize(v, inv.cwd) == "/sys/power/state"
        for v in targets.written_files(inv)
        if "power" in v
    )


def writes_sysrq(inv: Invocation, analysis: Analysis) -> bool:
    # Every spelling of the file keeps its name: normalise only those that can be it.
    for value in targets.written_files(inv):
        if "sysrq-trigger" in value:
            if paths.normalize(value, inv.cwd) == "/proc/sysrq-trigger":
                return True
        elif "sys" in value and _GLOB.search(value):  # `/proc/sysrq-*` matches only it
            import fnmatch

            pattern = paths.normalize(value, inv.cwd)
            if pattern and fnmatch.fnmatchcase("/proc/sysrq-trigger", pattern):
                return True
    return False


_GLOB = lazy_regex(r"[*?\[]")
