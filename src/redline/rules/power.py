"""How a command powers off, reboots or crashes the machine: the tests of the
`sys.shutdown` and `sys.sysrq-trigger` hard lines (the rules themselves, with
their examples, are in `hardline`)."""

from __future__ import annotations

from redline.rules import targets
from redline.shell import paths
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex

_POWER_VERBS = frozenset({"poweroff", "reboot", "halt", "kexec", "soft-reboot"})


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
    return starts and any(v.strip("'\"").removesuffix(".target") in _POWER_VERBS for v in values)


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
        if verb in ("start", "isolate"):  # `systemctl start reboot.target`
            return any(v.removesuffix(".target") in _POWER_VERBS for v in inv.values)
        return verb in _POWER_VERBS
    if name == "openrc-shutdown":
        return inv.has_flag("HprkP", ("halt", "poweroff", "reboot", "kexec"))
    if name in DBUS_CLIENTS:
        return _dbus_power(inv.values)
    if name in ("init", "telinit"):
        return inv.subcommand() in ("0", "6")
    return False


def writes_sysrq(inv: Invocation, analysis: Analysis) -> bool:
    # Every spelling of the file keeps its name: normalise only those that can be it.
    return any(
        paths.normalize(v, inv.cwd) == "/proc/sysrq-trigger"
        for v in targets.written_files(inv)
        if "sysrq-trigger" in v
    )
