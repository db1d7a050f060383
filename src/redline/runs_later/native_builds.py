"""Native-extension and task-runner build files read for their commands:
`binding.gyp` (node-gyp at `npm install`: each action's argv, and the
`<!(CMD)` expansions run while the file is read), `meson.build`
(`run_command` at setup, `command:` lists of targets, install and dist
scripts), and Python task files (invoke's and fabric's `c.run`, `c.local`,
`c.sudo`: the shell calls of their code).
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator

from redline.shell.lazy_regex import lazy_regex

TYPE_CHECKING = False  # not `typing`'s: kept off the hook's start (ADR 0004)
if TYPE_CHECKING:
    from typing import Any

_GYP_EXPANSION = lazy_regex(r"[<>]!@?\((.*)\)", flags=16)  # re.DOTALL
_GYP_ACTION = lazy_regex(r"""['"]action['"]\s*:\s*(\[[^\]]*\])""")
_MESON_CALL = lazy_regex(
    r"\b(?:run_command|add_install_script|add_postconf_script|add_dist_script)\s*\("
    r"|\bcommand\s*:\s*(?=\[)"
)
_MESON_ITEM = lazy_regex(
    r"\s*(?:(?P<string>'''.*?'''|'(?:[^'\\]|\\.)*')|(?P<program>find_program\s*\(\s*'([^']*)'"
    r"[^)]*\))|(?P<key>\w+\s*:)|(?P<other>[^,()\[\]]+(?:\([^()]*\))?))\s*,?",
    flags=16,  # re.DOTALL
)
# Fabric's and invoke's context calls that run a shell line.
_CONTEXT_CALL = lazy_regex(r"\.(?:local|sudo)\s*\(\s*[fr]?(\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')")
_MAX_DEPTH = 24
_ADDON_PATH = lazy_regex(r"""node -[pe] (["'])require\((["'])[\w@./-]+\2\)(?:\.\w+)*\1""")


def gyp_commands(text: str) -> list[str]:
    """What node-gyp runs from a `binding.gyp` (a Python literal)."""
    import ast

    try:
        data = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        data = None
    if data is None:  # not a literal: every action and expansion in the text
        found = [_gyp_argv(m.group(1)) for m in _GYP_ACTION.finditer(text)]
        return found + [c for m in _GYP_EXPANSION.finditer(text) for c in _expansion(m.group(1))]
    return list(_gyp_walk(data, 0))


def _gyp_walk(data: Any, depth: int) -> Iterator[str]:
    if depth > _MAX_DEPTH:
        return
    if isinstance(data, dict):
        for key, value in data.items():
            if key == "action" and isinstance(value, list):
                yield shlex.join(str(v) for v in value)
            yield from _gyp_walk(value, depth + 1)
    elif isinstance(data, list):
        for item in data:
            yield from _gyp_walk(item, depth + 1)
    elif isinstance(data, str) and "!" in data:
        for match in _GYP_EXPANSION.finditer(data):
            yield from _expansion(match.group(1))


def _expansion(inner: str) -> list[str]:
    """`<!(CMD)` runs CMD in a shell; `<!(['prog', 'arg'])` runs the list.
    The addon helpers' idiom (`node -p "require('node-addon-api').include"`)
    prints an installed package's folder: left out."""
    if _ADDON_PATH.fullmatch(inner.strip()):
        return []
    if inner.lstrip().startswith("["):
        return [_gyp_argv(inner)]
    return [inner]


def _gyp_argv(text: str) -> str:
    import ast

    try:
        argv = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text.strip("[]")
    return shlex.join(str(a) for a in argv) if isinstance(argv, list) else str(argv)


def meson_commands(text: str) -> list[str]:
    """`run_command(...)` and the `command: [...]` lists of a `meson.build`."""
    found: list[str] = []
    for match in _MESON_CALL.finditer(text):
        start = match.end()
        opener = text[start] if start < len(text) else ""
        closer = "]" if opener == "[" else ")"
        inside = _bracketed(text, start + 1 if opener == "[" else start, closer)
        words: list[str] = []
        for item in _MESON_ITEM.finditer(inside):
            if item.group("key"):
                break  # keyword arguments (`check: false`) end the command's words
            if item.group("string"):
                words.append(_meson_string(item.group("string")))
            elif item.group("program"):
                words.append(item.group(3))
            elif item.group("other") and item.group("other").strip():
                words.append("value")
        if words:
            found.append(shlex.join(words))
    return found


def _bracketed(text: str, start: int, closer: str) -> str:
    """The text from `start` to the bracket closing the one before it."""
    opener = "[" if closer == "]" else "("
    level, quote = 1, ""
    for k in range(start, len(text)):
        char = text[k]
        if quote:
            quote = "" if char == quote and text[k - 1] != "\\" else quote
        elif char == "'":
            quote = char
        elif char == opener:
            level += 1
        elif char == closer:
            level -= 1
            if not level:
                return text[start:k]
    return text[start:]


def _meson_string(token: str) -> str:
    body = token[3:-3] if token.startswith("'''") else token[1:-1]
    return body.replace("\\'", "'").replace("\\\\", "\\").replace("\\n", "\n")


def task_commands(text: str) -> list[str]:
    """The shell lines of a Python task file: its code's shell calls and
    fabric's `c.local(...)` / `c.sudo(...)`."""
    import ast

    from redline.runs_later.formats import python_commands

    found = python_commands(text)
    for match in _CONTEXT_CALL.finditer(text):
        try:
            value = ast.literal_eval(match.group(1))
        except (ValueError, SyntaxError):
            value = match.group(1)[1:-1]
        found.append(str(value))
    return found
