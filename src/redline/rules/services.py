"""Stopping services and removing scheduled jobs: systemd units, init
scripts and other service managers, the crontab (F-RULES-2)."""

from __future__ import annotations

from redline.decision import Severity
from redline.rules import argv, power
from redline.rules.model import Rule, rule
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex

D = Severity.DANGEROUS

_SYSTEMCTL_VALUES = (
    "tspHMonP",
    ("type", "signal", "property", "host", "machine", "output", "lines", "root", "image",
     "state", "kill-whom", "kill-value", "job-mode", "what", "timestamp", "when", "message",
     "preset-mode", "drop-in", "check-inhibitors", "boot-loader-entry", "reboot-argument"),
)  # fmt: skip
_SYSTEMCTL_STOPS = frozenset(
    {"stop", "restart", "try-restart", "reload-or-restart", "try-reload-or-restart",
     "condrestart", "force-reload", "kill", "disable", "mask", "isolate", "rescue",
     "emergency", "default", "clean", "freeze", "exit", "switch-root"}
)  # fmt: skip


def _systemctl_stop(inv: Invocation, analysis: Analysis) -> bool:
    operands = argv.parse(inv.values, *_SYSTEMCTL_VALUES).operands
    return bool(operands) and operands[0].lower() in _SYSTEMCTL_STOPS


_STOP_VERBS = frozenset(
    {"stop", "restart", "force-reload", "try-restart", "condrestart", "zap", "force-stop",
     "force-restart", "force-shutdown", "down", "kill", "unload", "remove", "bootout",
     "disable", "shutdown", "delete", "exit"}
)  # fmt: skip
# Service managers: where the verb is among the operands (`service NAME stop`).
_VERB_AT = {"service": 1, "rc-service": 1, "launchctl": 0, "sv": 0, "supervisorctl": 0, "pm2": 0}
_INIT_SCRIPT = lazy_regex(r"\A/(?:etc/init\.d|etc/rc\.d|etc/rc\.d/init\.d)/[^/]+\Z")


def _service_stop(inv: Invocation, analysis: Analysis) -> bool:
    if not inv.argv:
        return False
    position = _VERB_AT.get(inv.name)
    if position is None:
        script = inv.argv[0].value
        if not (script.startswith("/etc/") and _INIT_SCRIPT.match(script)):
            return False
        position = 0
    operands = argv.parse(inv.values, "", ()).operands  # only for service managers
    return len(operands) > position and operands[position].lower() in _STOP_VERBS


def _crontab_remove(inv: Invocation, analysis: Analysis) -> bool:
    return argv.parse(inv.values, "u", ()).has("-r")


SERVICE_RULES: tuple[Rule, ...] = (
    rule(
        "svc.systemctl-stop",
        "service",
        D,
        "stop, restart, disable or mask a systemd unit",
        "check it with `systemctl status UNIT`; ask the owner before stopping or restarting it",
        programs=("systemctl",),
        test=_systemctl_stop,
        must_match=(
            "systemctl stop nginx",
            "sudo systemctl --no-block restart postgresql",
            "systemctl -q disable --now ssh",
            "systemctl --user mask hermes-gateway",
            "systemctl kill -s KILL redis",
            "systemctl isolate rescue.target",
            "bash -c 'systemctl stop firewalld'",
        ),
        must_not_match=(
            "systemctl status nginx",
            "systemctl start nginx",
            "systemctl daemon-reload",
            "systemctl list-units --state=failed",
            "echo systemctl stop x",
            "journalctl -u nginx --since stop",
        ),
    ),
    rule(
        "svc.service-stop",
        "service",
        D,
        "stop or restart a service through its service manager",
        "check the service's status instead; ask the owner before stopping or restarting it",
        test=_service_stop,
        must_match=(
            "service nginx stop",
            "sudo service mysql restart",
            "rc-service sshd stop",
            "launchctl unload ~/Library/LaunchAgents/x.plist",
            "launchctl bootout gui/501",
            "/etc/init.d/apache2 stop",
            "supervisorctl stop all",
            "pm2 delete all",
            "sv down nginx",
        ),
        must_not_match=(
            "service nginx status",
            "service --status-all",
            "launchctl list",
            "pm2 logs",
            "/etc/init.d/nginx status",
            "echo service nginx stop",
            "./stop",
        ),
    ),
    rule(
        "svc.crontab-remove",
        "service",
        D,
        "remove the whole crontab",
        "edit the crontab and remove only the lines you added (`crontab -l` shows them)",
        programs=("crontab",),
        test=_crontab_remove,
        must_match=("crontab -r", "crontab -u bob -r", "sudo crontab -ir", "env crontab -r"),
        must_not_match=("crontab -l", "crontab -e", "crontab mycron.txt", "echo crontab -r"),
    ),
    rule(
        "sys.suspend",
        "system",
        D,
        "suspend or hibernate the machine: it stops answering until someone wakes it",
        "ask the owner to suspend the machine",
        # No program list: any program's redirect can write `/sys/power/state`
        # (this family is loaded for every call anyway).
        test=power.sleeps,
        must_match=(
            "systemctl suspend",
            "systemctl hibernate",
            "rtcwake -m mem -s 600",
            "echo mem > /sys/power/state",
            "echo disk | sudo tee /sys/power/state",
            "pm-suspend",
            "busctl call org.freedesktop.login1 /org/freedesktop/login1 "
            "org.freedesktop.login1.Manager Suspend b false",
        ),
        must_not_match=(
            "systemctl status",
            "cat /sys/power/state",
            "rtcwake -m show",
            "busctl get-property org.freedesktop.login1 /org/freedesktop/login1 "
            "org.freedesktop.login1.Manager CanSuspend",
            "echo systemctl suspend",
        ),
    ),
)
