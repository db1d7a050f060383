"""Kills that reach further than the processes they name: init, every
process of a user, the command's own process group, the way in from outside,
or a process group computed at run time (issue 13, family 8). How far a
kill reaches is worked out in `process_selection`; killing every process
is the `proc.kill-all` hard line (`hardline`)."""

from __future__ import annotations

from redline.decision import Severity
from redline.rules import argv
from redline.rules.model import InvocationTest, Rule, rule
from redline.rules.process_selection import KILLERS, Reach, harmless_to_init, reach
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation

H = Severity.HARDLINE
D = Severity.DANGEROUS
_PROGRAMS = tuple(sorted(KILLERS - {"killall5"}))


# `kill -1` as bash's `kill` reads its numbers (`-01`, `$((-1))`, `' -1'`, `-$x`).
_KILL_ALL_SPELLINGS = ("kill -9 -1", "kill -KILL -1", "kill -s KILL -1", "kill -- -1",
                       "kill -9 -01", "kill -9 -0001", "kill -9 $((-1))", "kill -9 -$((1))",
                       "kill -9 ' -1'", "x=1; kill -9 -$x",
                       "n=2; ((n--)); kill -9 -$n")  # fmt: skip
_NOT_KILL_ALL = ("kill -1 1234", "kill -9 1234", "kill %1", "kill -HUP 42", "kill $!",
                 "kill -9 -12345", "kill -9 $((2-0))", "pkill -f webpack",
                 "ps aux | grep [m]yapp | awk '{print $2}' | xargs kill")  # fmt: skip


def _reaches(level: Reach) -> InvocationTest:
    def test(inv: Invocation, analysis: Analysis) -> bool:
        return reach(inv, analysis) is level

    return test


def _kills_init(inv: Invocation, analysis: Analysis) -> bool:
    if inv.name == "systemctl":
        args = argv.parse(inv.values, "sHMn", ("signal", "kill-whom", "kill-value", "host",
                                               "machine", "kill-who"))  # fmt: skip
        operands = [o.lower() for o in args.operands]
        return operands[:1] == ["kill"] and any(
            o.removesuffix(".scope") == "init" for o in operands[1:]
        )
    return reach(inv, analysis) is Reach.INIT and not harmless_to_init(inv)


PROCESS_CONTROL_RULES: tuple[Rule, ...] = (
    rule(
        "proc.kill-all",
        "process",
        H,
        "kill every process on the machine (`kill -1`, `pkill .`, every PID listed or swept)",
        "kill the specific process by its PID",
        programs=("kill", "killall5", "pkill", "killall"),
        test=_reaches(Reach.EVERYTHING),
        aliases=("hardline.kill-all",),
        must_match=(
            *_KILL_ALL_SPELLINGS,
            "killall5 -9",
            "pkill -9 .",
            "ps -e -o pid= | xargs kill",
            "kill -9 {2..999}",
            "for p in /proc/[0-9]*; do kill -9 ${p#/proc/}; done",
        ),
        must_not_match=_NOT_KILL_ALL,
    ),
    rule(
        "proc.kill-init",
        "process",
        H,
        "signal init (PID 1): it halts, reboots or takes every process with it",
        "signal the one service's process, or restart it with `systemctl restart UNIT`",
        programs=(*_PROGRAMS, "systemctl"),
        test=_kills_init,
        must_match=(
            "kill -9 1",
            "kill 1",
            "kill -s SEGV 1",
            "kill -RTMIN+4 1",
            "kill -9 $(pidof systemd)",
            "pkill -x init",
            "killall -9 systemd",
            "systemctl kill init.scope",
        ),
        must_not_match=(
            "kill -HUP 1",
            "kill -0 1",
            "kill -9 12",
            "pkill -HUP systemd",
            "systemctl kill nginx",
            "echo kill 1",
        ),
    ),
    rule(
        "proc.kill-user",
        "process",
        D,
        "kill every process of a user: their sessions, shells and the agent's own",
        "kill the processes you started by their name or PID",
        programs=_PROGRAMS,
        test=_reaches(Reach.USER),
        must_match=(
            "pkill -u $USER",
            "killall -u alice",
            "pkill -9 -U 0",
            "pgrep -u root | xargs kill -9",
            "kill -9 $(ps -u www-data -o pid=)",
        ),
        must_not_match=(
            "pkill -u $USER vite",
            "killall firefox",
            "pgrep -u root",
            "kill $(pgrep -u alice -f 'sleep 100')",
        ),
    ),
    rule(
        "proc.kill-own-group",
        "process",
        D,
        "signal the command's own process group, shell or parent (`kill 0`, `$$`, `$PPID`): "
        "ends the agent's shell and what runs in it",
        "signal the process you started by its PID (`$!`)",
        programs=_PROGRAMS,
        test=_reaches(Reach.OWN_GROUP),
        must_match=(
            "kill 0",
            "kill -9 -$$",
            "kill -9 $PPID",
            "pkill -s 0",
            "kill -TERM -- -\"$(ps -o pgid= $$ | tr -d ' ')\"",
        ),
        must_not_match=("kill $!", "kill -- -$!", "kill -9 1234", "kill %1"),
    ),
    rule(
        "proc.kill-remote-access",
        "process",
        D,
        "kill the SSH daemon (or another way in): the machine may be cut off",
        "restart it through its service (`systemctl reload ssh`) if it must change",
        programs=_PROGRAMS,
        test=_reaches(Reach.REMOTE_ACCESS),
        must_match=(
            "pkill sshd",
            "killall -9 sshd",
            "kill $(pidof sshd)",
            "pkill -f /usr/sbin/sshd",
        ),
        must_not_match=("pkill ssh-agent", "pgrep sshd", "kill -HUP 4242", "killall ssh"),
    ),
    rule(
        "proc.kill-computed",
        "process",
        D,
        "signal a process group or PID computed at run time: it can be every process",
        "look the PID up first and kill that one number",
        programs=_PROGRAMS,
        test=_reaches(Reach.COMPUTED),
        must_match=("kill -9 -$PGID", "kill -- -$(cat /tmp/group)", "kill -9 $((PID-1))"),
        must_not_match=("kill $PID", "kill -9 $((4000+2))", "kill -- -$!", "kill -9 -4242"),
    ),
)
