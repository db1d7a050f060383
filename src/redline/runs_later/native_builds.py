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
    """`run_command(...)`, the `command: [...]` lists, `test(NAME, PROGRAM,
    args: [...])` and `generator(PROGRAM, arguments: [...])` of a
    `meson.build`; a variable assigned a list or string is its value, and
    `'a' + 'b'` one string."""
    text = _joined_strings(text)
    variables = _meson_variables(text)
    found: list[str] = []
    for match in _MESON_CALL.finditer(text):
        start = match.end()
        opener = text[start] if start < len(text) else ""
        closer = "]" if opener == "[" else ")"
        inside = _bracketed(text, start + 1 if opener == "[" else start, closer)
        words = _meson_words(inside, variables)
        if words:
            found.append(shlex.join(words))
    for match in _MESON_RUNNER.finditer(text):
        inside = _bracketed(text, match.end(), ")")
        words = _meson_words(inside, variables)
        named = match.group(1) != "generator"  # `test(NAME, PROGRAM, args: [...])`
        program = words[1:2] if named else words[:1]
        key = "args" if named else "arguments"
        listed = _MESON_KEY_LIST.search(inside)
        arguments = []
        if listed is not None and listed.group(1) == key:
            arguments = _meson_words(_bracketed(inside, listed.end(), "]"), variables)
        if program:
            found.append(shlex.join([*program, *arguments]))
    return found


_MESON_RUNNER = lazy_regex(r"\b(test|benchmark|generator)\s*\(")
_MESON_KEY_LIST = lazy_regex(r"\b(args|arguments)\s*:\s*\[")
_MESON_CONCAT = lazy_regex(r"'((?:[^'\\\n]|\\.)*)'\s*\+\s*'((?:[^'\\\n]|\\.)*)'")
_MESON_ASSIGN = lazy_regex(r"^[ \t]*([A-Za-z_]\w*)[ \t]*=[ \t]*(?=[\['f])", flags=8)  # MULTILINE


def _joined_strings(text: str) -> str:
    """`'rm -rf ' + '/home/me'` read as the one string it makes."""
    for _ in range(16):
        joined = _MESON_CONCAT.sub(r"'\1\2'", text)
        if joined == text:
            break
        text = joined
    return text


def _meson_variables(text: str) -> dict[str, list[str]]:
    """Variables assigned a list, a string or a program: their words."""
    found: dict[str, list[str]] = {}
    for match in _MESON_ASSIGN.finditer(text):
        start = match.end()
        if text[start] == "[":
            value = _bracketed(text, start + 1, "]")
        else:
            end = text.find("\n", start)
            value = text[start : end if end >= 0 else len(text)]
        found[match.group(1)] = _meson_words(value, found)
    return found


def _meson_words(inside: str, variables: dict[str, list[str]]) -> list[str]:
    words: list[str] = []
    for item in _MESON_ITEM.finditer(inside):
        if item.group("key"):
            break  # keyword arguments (`check: false`) end the command's words
        if item.group("string"):
            words.append(_meson_string(item.group("string")))
        elif item.group("program"):
            words.append(item.group(3))
        elif item.group("other") and item.group("other").strip():
            name = item.group("other").strip()
            words.extend(variables.get(name, ["value"]))
    return words


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

    found = python_commands(text) + _named_commands(text)
    for match in _CONTEXT_CALL.finditer(text):
        try:
            value = ast.literal_eval(match.group(1))
        except (ValueError, SyntaxError):
            value = match.group(1)[1:-1]
        found.append(str(value))
    return found


def _named_commands(text: str) -> list[str]:
    """`cmd = 'rm -rf ' + '~'` / `ctx.run(cmd)`: a task's `run`, `local`,
    `sudo` given a variable assigned a string (or strings added)."""
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    strings: dict[str, str] = {}
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], _literal(node.value)
            if isinstance(target, ast.Name) and value is not None:
                strings[target.id] = value
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("run", "local", "sudo")
            and node.args
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id in strings
        ):
            found.append(strings[node.args[0].id])
    return found


def _literal(node: object) -> str | None:
    """A string constant, or strings added: its text."""
    import ast

    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal(node.left), _literal(node.right)
        return None if left is None or right is None else left + right
    return None
