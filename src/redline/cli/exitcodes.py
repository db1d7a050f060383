"""Exit codes: verdicts and failures never share a number.

`TABLE` is the one list of them: `redline --help` renders it, and a test
checks that the README's table says the same.
"""

from __future__ import annotations

from redline.decision import Verdict

ALLOW = 0
ERROR = 1  # an internal error or bad input; also what an uncaught exception gives
USAGE = 2  # argparse's own code for a malformed command line
ASK = 3
DENY = 4
TAMPERED = 5  # `redline log verify` found the chain broken
POLICY_FAILED = 6  # the policy cannot be loaded, or `redline policy lint/test` found a problem

BY_VERDICT = {Verdict.ALLOW: ALLOW, Verdict.ASK: ASK, Verdict.DENY: DENY}

TABLE: tuple[tuple[int, str], ...] = (
    (ALLOW, "allow (or the command succeeded)"),
    (ASK, "ask: the owner must approve"),
    (DENY, "deny"),
    (TAMPERED, "the log was tampered with (`redline log verify`)"),
    (POLICY_FAILED, "the policy is broken (named by `file:line`)"),
    (ERROR, "error"),
    (USAGE, "usage: a malformed command line"),
)


def epilog() -> str:
    """The table for `--help`, one code per line."""
    return "exit codes:\n" + "\n".join(f"  {code}  {meaning}" for code, meaning in TABLE)
