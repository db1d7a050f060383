"""What inline interpreter code does to the system, told as shell commands
(issue #13, family 7), so the analysis judges it with the whole catalogue:
Python read with `ast` (`python_sinks`), JavaScript, Ruby, Perl and PHP
with a tokenizer (`script_sinks`), Lua, R and Tcl with patterns
(`call_sinks`). Loaded only when a call carries code.
"""

from __future__ import annotations

import functools

from redline.shell.carriers import interpreter_family
from redline.shell.model import DYNAMIC
from redline.shell.sink_words import Sinks

_NONE = Sinks((), None)
# The most code read: past it, the code keeps the policy for code unread.
MAX_CODE = 64 * 1024
_TOKENIZED = frozenset({"node", "nodejs", "bun", "deno", "ruby", "perl", "php"})
_CALL_READ = frozenset({"lua", "luajit", "rscript", "r", "tclsh"})


@functools.lru_cache(maxsize=256)
def code_sinks(code: str, name: str) -> Sinks:
    """The shell equivalents of what `code`, run by program `name`, does."""
    family = interpreter_family(name) or name
    if len(code) > MAX_CODE or DYNAMIC in code:
        return _NONE
    if family in ("python", "pypy"):
        from redline.shell.python_sinks import python_sinks

        return python_sinks(code)
    if family in _TOKENIZED:
        from redline.shell.script_sinks import script_sinks

        return script_sinks(code, family)
    if family in _CALL_READ:
        from redline.shell.call_sinks import call_sinks

        return call_sinks(code, family)
    return _NONE
