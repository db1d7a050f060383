"""`while read` loops fed known input (F-SHELL-4): `while read -r d; do rm -rf
"$d"; done < <(echo ~)`, `... done <<< ~`, a literal heredoc, or `echo ~ |
while read d`. The loop's redirect (or the pipe before it) feeds the `read`
in its condition, so the loop's variables take the input's lines, one per
pass: the body is read once per line with them bound, as bash runs it.
Input that cannot be known, too many lines, a loop whose condition is not a
`read`, or a spent budget leave the loop read once with the names unknown.

A mixin for `Parser`, next to `CompoundParser`.
"""

from __future__ import annotations

from redline.decision import Span
from redline.shell import substitution, variables
from redline.shell.lazy_regex import lazy_regex
from redline.shell.loop_values import MAX_REPEATS, MAX_VALUES
from redline.shell.model import DYNAMIC, Redirect

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from typing import Any

# The condition starts with `read` (after assignments such as `IFS=`).
_READ_CONDITION = lazy_regex(r"[ \t]*(?:[A-Za-z_]\w*=\S*[ \t]+)*read[ \t]")


class ReadLoops:
    src: str
    i: int
    cmds: list[Any]
    pipelines: list[Any]
    functions: list[Any]
    errors: list[str]
    blocks: list[str]
    current_cmd: int
    vars: dict[str, str]
    arrays: dict[int, tuple[str, ...]]
    heredoc_resume: int | None

    if TYPE_CHECKING:

        def parse_and_or(self) -> None: ...

        def _until_closed(self, open_blocks: int) -> None: ...

    def read_loop(self, word: str, keyword_at: int) -> bool:
        """At a `while`/`until` body (its block open): read it, once per line
        of known input when its condition is a `read`; `False` when it is not."""
        if word != "while" or _READ_CONDITION.match(self.src, self.i) is None:
            return False
        depth, start = len(self.blocks) - 1, self.i
        marks = (len(self.cmds), len(self.pipelines), len(self.functions), len(self.errors))
        resume = self.heredoc_resume
        piped = self._piped_into(keyword_at)
        self._until_closed(depth)  # once as it is, to find its input
        if len(self.errors) > marks[3] or len(self.blocks) > depth:
            return True
        text = piped if piped is not None else self._loop_input(marks[0])
        lines = None if text is None else text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        repeats = getattr(self, "loop_repeats", 0) + len(lines or ()) - 1
        if not lines or len(lines) > MAX_VALUES or repeats > MAX_REPEATS:
            return True
        if "<<" in self.src[start : self.i] and piped is None and resume is not None:
            return True  # a heredoc inside the body: its resume point would be lost
        self.loop_repeats: int = repeats
        end = self.i
        del self.cmds[marks[0] :], self.pipelines[marks[1] :], self.functions[marks[2] :]
        names: list[str] = []
        for line in lines:
            self.i, self.heredoc_resume = start, resume
            self.blocks.append(word)
            first = len(self.cmds)
            self.parse_and_or()  # the condition: its `read` takes this line
            reader = next((c for c in self.cmds[first:] if _reads(c)), None)
            if reader is not None:
                names = [w.value for w in reader.words[1:] if w.value.isidentifier()]
                given = Redirect("<<<", None, Span(start, start), body=line)
                variables.after(self.vars, reader.words, reader.assignments, [given], self.arrays)
            self._until_closed(depth)
            if len(self.errors) > marks[3] or len(self.blocks) > depth:
                return True
            end = max(end, self.i)
        self.i = end
        for name in names:  # the last `read` fails at the end of input: unknown after
            self.vars.pop(name, None)
        return True

    def _loop_input(self, first: int) -> str | None:
        """What the loop's own redirect (after `done`) feeds it, when known."""
        last = self.cmds[-1] if len(self.cmds) > first else None
        if last is None or last.words or last.parent != self.current_cmd:
            return None
        return variables.stdin_text(last.redirects)

    def _piped_into(self, keyword_at: int) -> str | None:
        """`echo ~ | while read d`: what the command just before the pipe prints."""
        before = self.src[:keyword_at].rstrip()
        if not before.endswith("|") or before.endswith("||"):
            return None
        stage = [c for c in self.cmds if c.parent == self.current_cmd and c.end <= keyword_at]
        if not stage or self.src[stage[-1].end : keyword_at].strip() != "|":
            return None
        text = substitution.output(stage[-1:])
        return None if text is None or DYNAMIC in text else text


def _reads(cmd: Any) -> bool:
    return bool(cmd.words) and cmd.words[0].value == "read"
