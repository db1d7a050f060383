"""Whether inline Python code is plainly harmless (see `harmless`).

Its own module so that `ast` and these tables load only when a call carries
Python code: most hooks judge a plain command line.
"""

import ast

from redline.shell.lazy_regex import lazy_regex


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


_PY_MODULES = _names(
    "sys json math cmath platform datetime time re string textwrap decimal fractions "
    "statistics random calendar itertools functools collections base64 binascii hashlib "
    "hmac uuid unicodedata struct pprint locale keyword zlib html secrets difflib colorsys "
    "bisect heapq copy enum dataclasses typing numbers ipaddress shlex fnmatch sysconfig "
    "zoneinfo csv array tomllib getpass glob os.path posixpath urllib.parse"
)
# Calls that hand a string to the shell: allowed only with plain literal
# commands, which the analysis then reads and judges like any command line.
_PY_SHELL_CALLS = _names("system popen run call check_call check_output Popen getoutput "
                         "getstatusoutput")  # fmt: skip
# Modules where only some names are safe (`os.path`, not `os.remove`).
_PY_ONLY = {
    "os": _names("path sep linesep pathsep name curdir pardir devnull getcwd cpu_count getpid "
                 "getppid getuid getgid getlogin uname get_terminal_size getloadavg system "
                 "popen"),
    "subprocess": _names("run call check_call check_output Popen getoutput getstatusoutput "
                         "PIPE DEVNULL STDOUT CalledProcessError TimeoutExpired"),
}  # fmt: skip
_PY_SHELL_KWARGS = _names("shell check text capture_output universal_newlines timeout stdout "
                          "stderr encoding")  # fmt: skip
_PLAIN_STRING = lazy_regex(r"\A(['\"])[^'\"\\\n`]*\1\Z")
_PY_DENIED_ATTRS = _names(
    "modules settrace setprofile addaudithook call_tracing meta_path path_hooks "
    "path_importer_cache displayhook excepthook breakpointhook remote_exec setrecursionlimit "
    "Formatter methodcaller attrgetter"
)
_PY_DENIED_NAMES = _names(
    "eval exec compile getattr setattr delattr globals locals vars breakpoint help memoryview"
)
_PY_DUNDERS = frozenset({"__version__", "__name__", "__doc__", "__file__"})
_PY_OPEN_KWARGS = frozenset({"mode", "encoding", "errors", "newline"})


def python_harmless(code: str, carried: bool) -> bool:
    """`harmless` for Python code, read with `ast`."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    # Local names of modules where only some attributes are safe (`os.path`).
    restricted: dict[str, frozenset[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top, _, sub = alias.name.partition(".")
                if alias.name not in _PY_MODULES and alias.name not in _PY_ONLY:
                    return False
                if alias.asname is None and sub and top not in _PY_MODULES:
                    allowed = frozenset({sub.split(".")[0]})  # `import os.path` binds `os`
                    restricted[top] = restricted.get(top, frozenset()) | allowed
                elif alias.name in _PY_ONLY:
                    name = alias.asname or alias.name
                    restricted[name] = restricted.get(name, frozenset()) | _PY_ONLY[alias.name]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            for alias in node.names:
                if alias.name == "*" or alias.name in _PY_DENIED_ATTRS:
                    return False
                if module in _PY_ONLY:
                    if alias.name not in _PY_ONLY[module] or alias.name in _PY_SHELL_CALLS:
                        return False
                elif module not in _PY_MODULES or node.level:
                    return False
        elif not _python_node_ok(node):
            return False
    return _python_names_ok(tree, restricted, code if carried else None)


def _python_node_ok(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute):
        attr = node.attr
        if attr.startswith("_") and attr not in _PY_DUNDERS:
            return False
        return attr not in _PY_DENIED_ATTRS
    if isinstance(node, ast.Name):
        name = node.id
        if name.startswith("__") and name not in _PY_DUNDERS:
            return False
        return name not in _PY_DENIED_NAMES
    if isinstance(node, ast.Constant) and isinstance(node.value, str | bytes):
        return "__" not in str(node.value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "open":
        return _python_open_reads(node)
    return True


def _python_open_reads(call: ast.Call) -> bool:
    if any(k.arg not in _PY_OPEN_KWARGS for k in call.keywords) or len(call.args) > 2:
        return False
    modes = [k.value for k in call.keywords if k.arg == "mode"] + call.args[1:2]
    for mode in modes:
        if not (isinstance(mode, ast.Constant) and isinstance(mode.value, str)):
            return False
        if set(mode.value) & set("wax+"):
            return False
    return True


def _python_names_ok(
    tree: ast.AST, restricted: dict[str, frozenset[str]], code: str | None
) -> bool:
    """`open` only as a call; restricted modules only as `os.NAME` with NAME allowed;
    shell calls only on plain literal commands."""
    allowed_bases: set[int] = set()
    open_calls: set[int] = set()
    shell_calls = {
        id(node.func) for node in ast.walk(tree)
        if code is not None and isinstance(node, ast.Call) and _literal_command(node, code)
    }  # fmt: skip
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            allowed = restricted.get(node.value.id)
            if allowed is not None:
                if node.attr not in allowed:
                    return False
                if node.attr in _PY_SHELL_CALLS and id(node) not in shell_calls:
                    return False
                allowed_bases.add(id(node.value))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            open_calls.add(id(node.func))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if node.id in restricted and id(node) not in allowed_bases:
                return False
            if node.id == "open" and id(node) not in open_calls:
                return False
    return True


def _literal_command(call: ast.Call, code: str) -> bool:
    """`os.system("ls -l")`, `subprocess.run(["git", "status"], check=True)`."""
    if len(call.args) != 1:
        return False
    arg = call.args[0]
    parts = arg.elts if isinstance(arg, ast.List | ast.Tuple) else [arg]
    if not parts or not all(_plain_literal(part, code) for part in parts):
        return False
    return all(
        k.arg in _PY_SHELL_KWARGS and isinstance(k.value, ast.Constant | ast.Attribute)
        for k in call.keywords
    )


def _plain_literal(node: ast.expr, code: str) -> bool:
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return False
    source = ast.get_source_segment(code, node)
    return source is not None and bool(_PLAIN_STRING.match(source))
