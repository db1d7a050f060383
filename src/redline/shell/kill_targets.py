"""The numbers `kill` is given, read as bash's `kill` reads them: leading
zeros and blanks (`-01`, `' -1'`), arithmetic (`$((-1))`, `-$((1))`),
variables the command set before (`x=1270; ((x++)); kill $x`), `$(echo N)`.
A negative number after the signal is a process group (`kill -9 -1271`)."""

from __future__ import annotations

from redline.shell import arith
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex

_ARITH = lazy_regex(r"\$\(\((.*?)\)\)|\$\[(.*?)\]")  # `$[...]`: bash's old spelling
_ECHO = lazy_regex(
    r"\$\(\s*(?:echo|printf\s+%s\\?n?|printf)\s+([-+\w]+)\s*\)|`\s*echo\s+([-+\w]+)\s*`"
)
_VARIABLE = lazy_regex(r"\$\{?([A-Za-z_]\w*)\}?")
# One step that sets a variable, in the order bash runs them: `x=N`,
# `x=$((...))`, `((x++))`, `let x+=1`.
_STEP = lazy_regex(
    r"(?<![\w$])([A-Za-z_]\w*)=(\$\(\(.*?\)\)|\$\([^)]*\)|[^\s;&|'\"()]+)"
    r"|(?<!\$)\(\((.*?)\)\)|\blet\s+([^;&|\n\"']+)"
)
_SIGNAL_VALUED = ("-s", "-n", "--signal")


def variables(text: str) -> dict[str, int]:
    """The integer variables `text` (the command before the `kill`) leaves set."""
    names: dict[str, int] = {}
    if "=" not in text and "((" not in text and "let" not in text:
        return names
    for match in _STEP.finditer(text):
        name, value, command, let = match.groups()
        if command is not None:
            arith.evaluate(command, names)
        elif let is not None:
            for expression in let.split():
                arith.evaluate(expression, names)
        else:
            found = number(value, names)
            if found is None:
                names.pop(name, None)
            else:
                names[name] = found
    return names


def number(raw: str, names: dict[str, int]) -> int | None:
    """The integer a word (as written) stands for, if it can be known."""
    text = raw.replace('"', "").replace("'", "")
    if "$" in text or "`" in text:
        text = _ARITH.sub(lambda m: _text(arith.evaluate(m[1] or m[2] or "", dict(names))), text)
        text = _ECHO.sub(lambda m: m.group(1) or m.group(2), text)
        text = _VARIABLE.sub(lambda m: _text(names.get(m.group(1))), text)
    text = text.strip()
    if text.startswith("--"):
        text = text[1:]  # `-$((-1))`
    try:
        return int(text, 10)
    except ValueError:
        return None


def _text(value: int | None) -> str:
    return "?" if value is None else str(value)


def targets(inv: Invocation, text: str) -> list[int]:
    """The PIDs (negative: process groups) a `kill` invocation signals, as
    far as they can be known."""
    words = [w.raw or w.value for w in inv.argv[1:]]
    values = [w.value for w in inv.argv[1:]]
    if not words:
        return []
    start = 0
    if values[0] in _SIGNAL_VALUED:
        start = 2
    elif values[0].startswith("-") and values[0] != "--" and len(values) > 1:
        start = 1  # the signal (`-9`, `-KILL`; `kill -1 PID` sends signal 1)
    if start < len(values) and values[start] == "--":
        start += 1
    dynamic = any("$" in w or "`" in w for w in words[start:])
    # Where the `kill` is in the text (a carried script's span is its whole word).
    end = text.rfind(inv.argv[0].raw or "kill", inv.span.start, inv.span.end)
    names = variables(text[: end if end >= 0 else inv.span.start]) if dynamic else {}
    found = (number(w, names) for w in words[start:])
    return [n for n in found if n is not None]
