"""Exit codes: verdicts and failures never share a number."""

from __future__ import annotations

from redline.decision import Verdict

ALLOW = 0
ERROR = 1  # an internal error or bad input; also what an uncaught exception gives
USAGE = 2  # argparse's own code for a malformed command line
ASK = 3
DENY = 4
TAMPERED = 5  # `redline log verify` found the chain broken
POLICY_FAILED = 6  # `redline policy lint/test` found a problem

BY_VERDICT = {Verdict.ALLOW: ALLOW, Verdict.ASK: ASK, Verdict.DENY: DENY}
