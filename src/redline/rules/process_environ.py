"""Another process's environment read from `/proc/PID/environ` (attack round
of issue 18, family 1): it holds the secrets that service was started with
(database passwords, API tokens), which no command of the agent was given.
`/proc/self/environ` is the agent's own environment, judged as `env` is."""

from __future__ import annotations

from redline.decision import Severity
from redline.rules.model import Rule, rule
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex

S = Severity.SENSITIVE

# `/proc/1/environ`, `/proc/$pid/environ`, `/proc/*/environ`; not `self` or `thread-self`.
_OTHER_ENVIRON = lazy_regex(r"/proc/+(?!(?:self|thread-self)/)[^/\s]+/+environ\b")


def _reads_other_environ(inv: Invocation, analysis: Analysis) -> bool:
    words = [*inv.values, *(r.target.value for r in inv.redirects if r.target is not None)]
    return any("environ" in w and _OTHER_ENVIRON.search(w) for w in words)


PROCESS_ENVIRON_RULES: tuple[Rule, ...] = (
    rule(
        "secret.process-environ",
        "secret",
        S,
        "read another process's environment (`/proc/PID/environ`): the secrets it was started with",
        "ask the owner for the one setting you need, or read the service's own config",
        test=_reads_other_environ,
        must_match=(
            "cat /proc/1/environ",
            "tr '\\0' '\\n' < /proc/$(pgrep -n node)/environ",
            "strings /proc/*/environ",
            "xargs -0 -L1 -a /proc/4242/environ",
        ),
        must_not_match=(
            "cat /proc/self/environ",
            "cat /proc/1/status",
            "echo environ",
            "ls /proc/1/",
        ),
    ),
)
