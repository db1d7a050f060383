"""`CMakeLists.txt` and `*.cmake` read for the commands CMake runs:
`execute_process` (when the project is configured; its `COMMAND`s form a
pipeline), `add_custom_command`, `add_custom_target`, `add_test`, the
`*_COMMAND` of `ExternalProject_Add` and `FetchContent_Declare` (at build),
`exec_program`, `install(CODE ...)` (CMake code run at install), and
`file(REMOVE_RECURSE ...)` / `file(WRITE ...)`, told as the shell commands
they equal. `$ENV{HOME}` is the home; a variable `set()` in the file is its
last value; CMake's own (`${CMAKE_COMMAND}`, the source and build folders)
are their usual values; another variable is a word, or, as the program to
run, a computed one.
"""

from __future__ import annotations

import shlex

from redline.shell.lazy_regex import lazy_regex

TYPE_CHECKING = False  # not `typing`'s: kept off the hook's start (ADR 0004)
if TYPE_CHECKING:
    import re

_CALL = lazy_regex(r"(?<!\w)([A-Za-z_]\w*)[ \t]*\(")  # from a word's start: linear
_ARG = lazy_regex(
    r"\s*(?:(?P<bracket>\[(=*)\[.*?\]\2\])|(?P<quoted>\"(?:[^\"\\]|\\.)*\")"
    r"|(?P<comment>#[^\n]*)|(?P<open>\()|(?P<close>\))|(?P<word>(?:[^\s()\"#\\]|\\.)+))",
    flags=16,  # re.DOTALL
)
_REFERENCE = lazy_regex(r"\$(ENV|CACHE)?\{([^${}]*)\}")
_GENERATOR = lazy_regex(r"\$<([^<>]*)>")
_BRACKET_COMMENT = lazy_regex(r"#\[(=*)\[.*?\]\1\]", flags=16)  # re.DOTALL
_ENV_MARK = "\x01"  # around an environment variable's name in an expanded value
_MARKED = lazy_regex("\x01([^\x01]*)\x01")
_KNOWN = {
    "CMAKE_COMMAND": "cmake", "CMAKE_CTEST_COMMAND": "ctest", "CMAKE_CPACK_COMMAND": "cpack",
    "CMAKE_C_COMPILER": "cc", "CMAKE_CXX_COMPILER": "c++", "CMAKE_MAKE_PROGRAM": "make",
    "PYTHON_EXECUTABLE": "python3", "Python_EXECUTABLE": "python3",
    "Python3_EXECUTABLE": "python3",
}  # fmt: skip
_KEYWORDS = {
    "execute_process": {"WORKING_DIRECTORY", "TIMEOUT", "RESULT_VARIABLE", "RESULTS_VARIABLE",
                        "OUTPUT_VARIABLE", "ERROR_VARIABLE", "INPUT_FILE", "OUTPUT_FILE",
                        "ERROR_FILE", "OUTPUT_QUIET", "ERROR_QUIET", "COMMAND_ECHO",
                        "OUTPUT_STRIP_TRAILING_WHITESPACE", "ERROR_STRIP_TRAILING_WHITESPACE",
                        "ENCODING", "ECHO_OUTPUT_VARIABLE", "ECHO_ERROR_VARIABLE",
                        "COMMAND_ERROR_IS_FATAL"},
    "add_custom_command": {"OUTPUT", "MAIN_DEPENDENCY", "DEPENDS", "BYPRODUCTS",
                           "IMPLICIT_DEPENDS", "WORKING_DIRECTORY", "COMMENT", "DEPFILE",
                           "JOB_POOL", "JOB_SERVER_AWARE", "VERBATIM", "APPEND",
                           "USES_TERMINAL", "COMMAND_EXPAND_LISTS", "DEPENDS_EXPLICIT_ONLY",
                           "CODEGEN", "TARGET", "PRE_BUILD", "PRE_LINK", "POST_BUILD"},
    "add_custom_target": {"ALL", "DEPENDS", "BYPRODUCTS", "WORKING_DIRECTORY", "COMMENT",
                          "JOB_POOL", "JOB_SERVER_AWARE", "VERBATIM", "USES_TERMINAL",
                          "COMMAND_EXPAND_LISTS", "SOURCES"},
}  # fmt: skip
_ANY_KEYWORD = lazy_regex(r"[A-Z][A-Z0-9_]{2,}")
_MAX_DEPTH = 4


def cmake_commands(text: str, depth: int = 0) -> list[str]:
    """The shell commands a CMake file runs, in order."""
    variables: dict[str, str] = {}
    found: list[str] = []
    for name, args in _calls(text):
        name = name.lower()
        values: list[str] = []
        for arg, quoted in args:  # an unquoted list is as many arguments
            value = _expand(arg, variables)
            values.extend([value] if quoted else [w for w in value.split(";") if w])
        if name in ("string", "list", "get_filename_component") and values:
            _assign(name, values, variables)
        elif name == "cmake_language" and values[:1] == ["EVAL"] and "CODE" in values:
            if depth < _MAX_DEPTH:  # CMake code run where it stands
                code = " ".join(values[values.index("CODE") + 1 :])
                found.extend(cmake_commands(_MARKED.sub(r"$ENV{\1}", code), depth + 1))
        elif name == "cmake_language" and values[:1] == ["CALL"] and len(values) > 1:
            if depth < _MAX_DEPTH:  # `cmake_language(CALL file REMOVE_RECURSE x)`: that call
                words = " ".join('"' + _MARKED.sub(r"$ENV{\1}", v) + '"' for v in values[2:])
                found.extend(cmake_commands(f"{values[1]}({words})", depth + 1))
        elif name == "file" and values[:1] == ["UPLOAD"] and len(values) > 2:
            found.append(f"curl -T {_word(values[1])} {_word(values[2])}")  # sent off
        elif name == "file" and values[:1] == ["DOWNLOAD"] and len(values) > 2:
            found.append(f"curl -o {_word(values[2])} {_word(values[1])}")
        elif name == "file" and values[:1] in (["RENAME"], ["COPY_FILE"]) and len(values) > 2:
            verb = "mv" if values[0] == "RENAME" else "cp"
            found.append(f"{verb} {_word(values[1])} {_word(values[2])}")
        elif name == "configure_file" and len(values) > 1:
            found.append(f"cp {_word(values[0])} {_word(values[1])}")
        elif name == "set" and values:
            kept = values[1:]
            for stop in ("CACHE", "PARENT_SCOPE"):
                kept = kept[: kept.index(stop)] if stop in kept else kept
            variables[values[0]] = ";".join(kept)
        elif name == "find_program" and len(values) > 1:
            names = values[values.index("NAMES") + 1 :] if "NAMES" in values else values[1:]
            variables[values[0]] = names[0] if names else "program"
        elif name == "file" and values[:1] in (["REMOVE_RECURSE"], ["REMOVE"]):
            flag = "-rf" if values[0] == "REMOVE_RECURSE" else "-f"
            found.append(f"rm {flag} " + " ".join(_word(v) for v in values[1:]))
        elif name == "file" and values[:1] in (["WRITE"], ["APPEND"]) and len(values) > 2:
            op = ">" if values[0] == "WRITE" else ">>"
            found.append(f"cat {op} {_word(values[1])} <<'CMAKE_TEXT'\n{values[2]}\nCMAKE_TEXT")
        elif name == "install" and "CODE" in values and depth < _MAX_DEPTH:
            for k, value in enumerate(values[:-1]):
                if value == "CODE":
                    code = _MARKED.sub(r"$ENV{\1}", values[k + 1])
                    found.extend(cmake_commands(code, depth + 1))
        elif name == "exec_program" and values:
            rest = values[values.index("ARGS") + 1 :] if "ARGS" in values else []
            found.append(_command([values[0], *rest]))
        else:
            found.extend(_command_groups(name, values))
    return found


def _assign(name: str, values: list[str], variables: dict[str, str]) -> None:
    """`string(REPLACE|APPEND|PREPEND|CONCAT|TOLOWER|TOUPPER ...)`,
    `list(APPEND|PREPEND|INSERT ...)`, `get_filename_component(VAR PATH
    DIRECTORY|NAME...)`: the variable's new value."""
    verb = values[0]
    if name == "get_filename_component" and len(values) > 2:
        path, part = values[1], values[2]
        head, _, tail = path.rpartition("/")
        variables[values[0]] = head if part in ("DIRECTORY", "PATH") else tail or path
    elif name == "string" and verb == "REPLACE" and len(values) > 3:
        variables[values[3]] = (
            "".join(values[4:]).replace(values[1], values[2]) if values[1] else ""
        )
    elif name == "string" and verb in ("APPEND", "PREPEND") and len(values) > 1:
        old, new = variables.get(values[1], ""), "".join(values[2:])
        variables[values[1]] = old + new if verb == "APPEND" else new + old
    elif name == "string" and verb == "CONCAT" and len(values) > 1:
        variables[values[1]] = "".join(values[2:])
    elif name == "string" and verb in ("TOLOWER", "TOUPPER") and len(values) > 2:
        variables[values[2]] = values[1].lower() if verb == "TOLOWER" else values[1].upper()
    elif name == "list" and verb in ("APPEND", "PREPEND") and len(values) > 1:
        old_items = [w for w in variables.get(values[1], "").split(";") if w]
        items = values[2:]
        joined = [*old_items, *items] if verb == "APPEND" else [*items, *old_items]
        variables[values[1]] = ";".join(joined)
    elif name == "list" and verb == "INSERT" and len(values) > 3:
        old_items = [w for w in variables.get(values[1], "").split(";") if w]
        at = int(values[2]) if values[2].isdigit() else 0
        variables[values[1]] = ";".join([*old_items[:at], *values[3:], *old_items[at:]])


def _command_groups(name: str, values: list[str]) -> list[str]:
    keywords = _KEYWORDS.get(name)
    groups: list[list[str]] = []
    current: list[str] | None = None
    if name == "add_custom_target":  # `add_custom_target(name [ALL] cmd args...)`
        current = []
        groups.append(current)
    for value in values[1:] if name == "add_custom_target" else values:
        if value == "COMMAND" or (value.endswith("_COMMAND") and _ANY_KEYWORD.fullmatch(value)):
            current = []
            groups.append(current)
        elif current is not None and (
            value in keywords if keywords is not None else bool(_ANY_KEYWORD.fullmatch(value))
        ):
            current = None
        elif current is not None:
            current.append(value)
    commands = [_command(g) for g in groups if g]
    if name == "execute_process" and len(commands) > 1:
        return [" | ".join(commands)]  # its commands run as one pipeline
    return commands


def _command(words: list[str]) -> str:
    if words and words[0] in ("", "value"):
        words = ["${CMAKE_COMPUTED_PROGRAM}", *words[1:]]
    return " ".join(_word(w) for w in words)


def _word(value: str) -> str:
    """A shell word for one argument: literal text quoted, `$ENV{X}` kept
    as the shell's `${X}`."""
    if _ENV_MARK not in value:
        return shlex.quote(value) if value else "''"
    parts = value.split(_ENV_MARK)
    out = []
    for k, part in enumerate(parts):
        if k % 2:
            out.append('"${' + part + '}"')
        elif part:
            out.append(shlex.quote(part))
    return "".join(out)


def _expand(arg: str, variables: dict[str, str]) -> str:
    if "$" not in arg:
        return arg
    for _ in range(8):  # generator expressions, innermost first
        evaluated = _GENERATOR.sub(_generator, arg)
        if evaluated == arg:
            break
        arg = evaluated
    for _ in range(8):  # nested references, innermost first
        expanded = _REFERENCE.sub(lambda m: _reference(m.group(1), m.group(2), variables), arg)
        if expanded == arg:
            break
        arg = expanded
    return arg


def _generator(match: re.Match[str]) -> str:
    """`$<1:X>` is X, `$<0:X>` nothing, a condition (`$<CONFIG:Debug>`) may
    hold (its `$<...:X>` is X), a case change or evaluation is its text, an
    `$<IF:c,a,b>` either; another (`$<TARGET_FILE:x>`) a build's word."""
    name, colon, value = match.group(1).partition(":")
    if not colon:
        return "target"
    if name == "0":
        return ""
    if name in ("1", "LOWER_CASE", "UPPER_CASE", "GENEX_EVAL", "SHELL_PATH", "PATH"):
        return value.rpartition(",")[2] if name == "PATH" else value
    if name == "IF":
        return ";".join(value.split(",")[1:])
    if name in _CONDITIONS:
        return "1"
    return "target"


_CONDITIONS = frozenset({"BOOL", "AND", "OR", "NOT", "CONFIG", "STREQUAL", "EQUAL",
                         "VERSION_LESS", "VERSION_GREATER", "VERSION_EQUAL",
                         "VERSION_LESS_EQUAL", "VERSION_GREATER_EQUAL", "PLATFORM_ID",
                         "C_COMPILER_ID", "CXX_COMPILER_ID", "COMPILE_LANGUAGE",
                         "LINK_LANGUAGE", "IN_LIST", "TARGET_EXISTS", "BUILD_INTERFACE",
                         "INSTALL_INTERFACE", "HOST_LINK", "DEVICE_LINK"})  # fmt: skip


def _reference(kind: str | None, name: str, variables: dict[str, str]) -> str:
    if kind == "ENV":
        return f"{_ENV_MARK}{name}{_ENV_MARK}" if name.replace("_", "").isalnum() else "value"
    if name in variables:
        return variables[name]
    if name in _KNOWN:
        return _KNOWN[name]
    if name.endswith(("SOURCE_DIR", "LIST_DIR")):
        return "."
    if name.endswith("BINARY_DIR"):
        return "build"
    if name.endswith("_EXECUTABLE"):
        return name.removesuffix("_EXECUTABLE").lower()
    return "value"


def _calls(text: str) -> list[tuple[str, list[tuple[str, bool]]]]:
    """Each command call and its arguments (`(text, quoted)`); lists split
    at `;` where unquoted."""
    found: list[tuple[str, list[tuple[str, bool]]]] = []
    if "#[" in text:  # a bracket comment hides what it spans, nothing after it
        text = _BRACKET_COMMENT.sub(" ", text)
    at = 0
    while True:
        match = _CALL.search(text, at)
        if match is None:
            return found
        line_start = text.rfind("\n", 0, match.start()) + 1
        if "#" in text[line_start : match.start()]:
            at = text.find("\n", match.end()) if "\n" in text[match.end() :] else len(text)
            continue
        args: list[tuple[str, bool]] = []
        level, at = 1, match.end()
        while level and at < len(text):
            token = _ARG.match(text, at)
            if token is None or token.end() == at:
                break
            at = token.end()
            kind = token.lastgroup
            if kind == "open":
                level += 1
            elif kind == "close":
                level -= 1
            elif kind == "quoted":
                args.append((_unescape(token.group(kind)[1:-1]), True))
            elif kind == "bracket":
                body = token.group(kind)
                inner = body[body.index("[", 1) + 1 : body.rindex("]", 0, -1)]
                args.append((inner.removeprefix("\n"), True))
            elif kind == "word":
                args.extend((w, False) for w in _unescape(token.group(kind)).split(";") if w)
        found.append((match.group(1), args))


def _unescape(text: str) -> str:
    return text.replace("\\\n", "").replace('\\"', '"').replace("\\$", "$").replace("\\\\", "\\")
