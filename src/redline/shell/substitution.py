"""The text a `$( )`, backticks or `<( )` produces, when its commands only
turn static text into text (F-SHELL-4): `$(echo cmVib290 | base64 -d)` is
`reboot`, and a command word spelled that way is judged as `reboot`."""

from __future__ import annotations

from redline.shell import static_text
from redline.shell.model import DYNAMIC, Redirect, Word

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Protocol

    class Stage(Protocol):
        """One simple command of the substitution, as the parser holds it."""

        words: list[Word]
        redirects: list[Redirect]
        pipeline: int
        position: int
        parent: int


def output(stages: Sequence[Stage]) -> str | None:
    """What the commands write, in order (a pipeline's last stage writes).
    `None` when the last program is not one whose output is computed here;
    `DYNAMIC` when it is, but its input or arguments are not static."""
    out: list[str] = []
    written: str | None = ""
    cwd: str | None = None  # followed from a `cd` inside: `<(cd ~ && pwd)`
    for k, stage in enumerate(stages):
        feeds_next = k + 1 < len(stages) and stages[k + 1].pipeline == stage.pipeline >= 0
        feeds_next = feeds_next and stages[k + 1].position == stage.position + 1
        piped = stage.pipeline >= 0 and stage.position > 0
        head = stage.words[0].value if stage.words and not stage.redirects else ""
        if head in ("cd", "pwd"):
            cwd, written = _directory(head, stage.words[1:], cwd)
        else:
            written = _run(stage, written if piped else None)
        if written is None or written == DYNAMIC:
            if feeds_next:
                written = None if written is None else DYNAMIC
                continue
            return written if k == len(stages) - 1 else DYNAMIC
        if not feeds_next:
            out.append(written)
    return "".join(out)


def _directory(name: str, args: Sequence[Word], cwd: str | None) -> tuple[str | None, str]:
    """The directory after `cd ARG` (when it is a known absolute or home
    path) and what `cd` or `pwd` prints."""
    from redline.shell import paths

    operands = [w.value for w in args if not w.value.startswith("-")]
    if name == "pwd":
        return cwd, DYNAMIC if cwd is None else cwd + "\n"
    target = paths.normalize(operands[0], cwd) if operands else "~"
    known = target is not None and target.startswith(("/", "~")) and DYNAMIC not in target
    return (target if known else None), ""


def _run(stage: Stage, piped: str | None) -> str | None:
    if not stage.words:
        return "" if not stage.redirects else DYNAMIC
    name = stage.words[0].value.rsplit("/", 1)[-1]
    if name not in static_text.PRODUCERS:
        return None
    stdin = piped
    for redirect in stage.redirects:
        if redirect.op in ("<<", "<<-", "<<<") and redirect.body is not None:
            body = redirect.body + ("\n" if redirect.op == "<<<" else "")
            literal = redirect.body_literal or not any(c in body for c in "$`\\")
            stdin = body if literal or redirect.op == "<<<" else None
        elif redirect.fd != 2 and redirect.op != ">&":
            return DYNAMIC  # reads or writes a file
    text = static_text.output(name, tuple(w.value for w in stage.words[1:]), stdin)
    return DYNAMIC if text is None else text
