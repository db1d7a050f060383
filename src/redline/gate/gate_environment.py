"""The gate's own environment variables, set by the agent (F-GATE-3).

A hook reads `REDLINE_POLICY`, `REDLINE_HOME`, `REDLINE_SERVICE` and the
rest from the environment its host gives it, and a host started by the
agent (`claude -p`, `codex exec`, a sub-agent) inherits the agent's. So a
command that sets, exports or unsets one of them, in the shell or in code,
chooses the policy, log and allowlist of every hook that runs after it:
changing the gate. Reading one (`echo $REDLINE_HOME`) changes nothing.
"""

from __future__ import annotations

from redline.shell.lazy_regex import lazy_regex

PREFIX = "REDLINE_"
# `REDLINE_X=v`, `export REDLINE_X=v`, `os.environ["REDLINE_X"] = v`,
# `process.env.REDLINE_X = v`, `$ENV{REDLINE_X} = v`, `${REDLINE_X:=v}` (not `==`).
_ASSIGNED = lazy_regex(r"(?<!\$)\bREDLINE_[A-Za-z0-9_]+(?:['\"]?\s*[\]}])?\s*[+:]?=(?!=)")
# `unset REDLINE_X`, `export -n`, `setenv` (csh), `putenv`/`setdefault`/`pop`
# in code, `declare -x`/`typeset -x`, `read`/`printf -v` into one, `env -u`.
_CHANGED = lazy_regex(
    r"\b(?:unset|setenv|putenv|unsetenv|setdefault|pop|export|declare|typeset|local|readonly"
    r"|read|mapfile|readarray|printf\s+-v"
    r"|env\s+(?:-\S+\s+)*-u|--unset)\b[^;&|\n]{0,200}?(?<![$\w{])REDLINE_[A-Za-z0-9_]+"
)
_NAME = lazy_regex(r"REDLINE_[A-Za-z0-9_]+")


def changes_gate_variable(text: str) -> str | None:
    """Where `text` sets or removes one of the gate's variables, said for
    the refusal; `None` if it only reads them (or never names one)."""
    if PREFIX not in text:
        return None
    match = _ASSIGNED.search(text) or _CHANGED.search(text)
    if match is None:
        return None
    name = _NAME.search(match.group(0))
    shown = name.group(0) if name else PREFIX + "*"
    return (
        f"`{shown}` is read by every hook this command's programs start: "
        "setting or removing it chooses the gate's policy, log or service"
    )
