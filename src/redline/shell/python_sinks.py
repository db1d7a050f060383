"""What Python code does to the system, as the shell commands that would do
the same (issue #13, family 7): `shutil.rmtree(P)` is `rm -rf P`,
`os.kill(-1, 9)` is `kill -9 -- -1`, `subprocess.run([...])` is that command
line, `open("/dev/sda", "wb")` is `: > /dev/sda`, a request that sends a key
file or the whole environment is `curl --data-binary @FILE URL`. The
analysis judges those commands with the whole catalogue.

The code less each call told here is kept too: the rules judge whether
everything else it does only reads, computes and prints.
"""

from __future__ import annotations

import ast

from redline.shell.python_values import HOME, Scope, Value
from redline.shell.sink_words import Sinks, command, path_word

_SHELL_TEXT = frozenset({"os.system", "os.popen", "subprocess.getoutput",
                         "subprocess.getstatusoutput", "commands.getoutput",
                         "asyncio.create_subprocess_shell", "pty.spawn"})  # fmt: skip
_SUBPROCESS = frozenset({"subprocess.run", "subprocess.call", "subprocess.check_call",
                         "subprocess.check_output", "subprocess.Popen"})  # fmt: skip
_EXEC_V = frozenset({"os.execv", "os.execve", "os.execvp", "os.execvpe", "os.posix_spawn",
                     "os.posix_spawnp"})  # fmt: skip
_EXEC_L = frozenset({"os.execl", "os.execle", "os.execlp", "os.execlpe"})
_DELETES = {"shutil.rmtree": "rm -rf --", "os.remove": "rm -f --", "os.unlink": "rm -f --",
            "os.rmdir": "rmdir --", "os.removedirs": "rmdir --"}  # fmt: skip
_PATH_METHODS = {"unlink": "rm -f --", "rmdir": "rmdir --", "write_text": ": >",
                 "write_bytes": ": >"}  # fmt: skip
_MOVES = {"shutil.move": "mv --", "os.rename": "mv --", "os.replace": "mv --",
          "shutil.copy": "cp --", "shutil.copy2": "cp --", "shutil.copyfile": "cp --",
          "shutil.copytree": "cp -r --"}  # fmt: skip
_SENDS = frozenset({"requests.post", "requests.put", "requests.patch", "requests.request",
                    "httpx.post", "httpx.put", "httpx.patch", "httpx.request",
                    "urllib.request.urlopen", "urllib.request.Request", "urllib2.urlopen",
                    "aiohttp.request"})  # fmt: skip
_WRITE_FLAGS = frozenset({"O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND"})
_ENV_DUMPS = frozenset({"os.environ", "os.environb"})
# Modules whose every use may be a told call: imported only for it.
_SINK_MODULES = frozenset({"shutil", "subprocess", "signal", "pathlib"})


def python_sinks(code: str, depth: int = 0) -> Sinks:
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Sinks((), None)
    scope = Scope(tree)
    finder = _Finder(scope)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            finder.call(node)
            inner = _evaluated(scope, node) if depth < 4 else None
            if inner is not None:  # `exec("import os; os.system('reboot')")`
                finder.commands.extend(python_sinks(inner, depth + 1).commands)
    return Sinks(tuple(finder.commands), _rest(tree, scope, finder.known))


def _evaluated(scope: Scope, node: ast.Call) -> str | None:
    """The code `exec`/`eval`/`compile` is given, when it is a known string."""
    if scope.name(node.func) not in ("exec", "eval", "compile", "builtins.exec") or not node.args:
        return None
    code = scope.value(node.args[0])
    return code if isinstance(code, str) else None


class _Finder:
    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.commands: list[str] = []
        # Calls told in full (every argument known): taken away for `rest`.
        self.known: set[int] = set()

    def call(self, node: ast.Call) -> None:
        told = self._told(node)
        if told is None:
            return
        self.commands.append(told)
        if all(_plain(self.scope, part) for part in (*node.args, *node.keywords)):
            self.known.add(id(node))

    def _arg(self, node: ast.Call, index: int, keyword: str = "") -> Value:
        if index < len(node.args):
            return self.scope.value(node.args[index])
        for kw in node.keywords:
            if kw.arg == keyword:
                return self.scope.value(kw.value)
        return None

    def _told(self, node: ast.Call) -> str | None:
        scope = self.scope
        name = scope.name(node.func) or ""
        if name in _SHELL_TEXT or (name in _SUBPROCESS and _shell_true(node)):
            text = self._arg(node, 0, "args" if name in _SUBPROCESS else "cmd")
            if isinstance(text, list):
                return command(text)
            return text if isinstance(text, str) else None
        if name in _SUBPROCESS or name == "asyncio.create_subprocess_exec":
            args = self._arg(node, 0, "args")
            if name == "asyncio.create_subprocess_exec":
                args = [scope.value(a) for a in node.args]
            return command(args if isinstance(args, list) else [args])
        if name in _EXEC_V:
            args = self._arg(node, 1, "argv")
            return command(args if isinstance(args, list) else [self._arg(node, 0)])
        if name in _EXEC_L:
            return command([scope.value(a) for a in node.args[1:]])
        if name in _DELETES:
            return _on_path(_DELETES[name], self._arg(node, 0, "path"))
        if name in _MOVES:
            source, target = self._arg(node, 0, "src"), self._arg(node, 1, "dst")
            if isinstance(source, str) and isinstance(target, str):
                return f"{_MOVES[name]} {path_word(source)} {path_word(target)}"
            return None
        if name in ("os.kill", "os.killpg"):
            return _kill(self._arg(node, 0), self._arg(node, 1), name == "os.killpg")
        if name in ("open", "io.open", "builtins.open", "os.open"):
            return self._open(node, name)
        if name in _SENDS:
            return self._send(node)
        func = node.func
        if isinstance(func, ast.Attribute):
            if func.attr == "reboot" and not name.startswith("os."):
                return "reboot -f"  # `ctypes.CDLL(None).reboot(...)`: the syscall
            if func.attr in _PATH_METHODS:
                return _on_path(_PATH_METHODS[func.attr], scope.value(func.value))
        return None

    def _open(self, node: ast.Call, name: str) -> str | None:
        path = self._arg(node, 0, "file" if name != "os.open" else "path")
        if name == "os.open":
            flags = node.args[1] if len(node.args) > 1 else None
            writes = flags is not None and any(
                isinstance(n, ast.Attribute) and n.attr in _WRITE_FLAGS for n in ast.walk(flags)
            )
        else:
            mode = self._arg(node, 1, "mode")
            if mode is None and (len(node.args) > 1 or any(k.arg == "mode" for k in node.keywords)):
                return None  # a mode nobody can read
            writes = isinstance(mode, str) and bool(set(mode) & set("wax+"))
        if not writes:
            return None
        return _on_path(": >", path)

    def _send(self, node: ast.Call) -> str | None:
        url = self._arg(node, 0, "url")
        if isinstance(node.func, ast.Attribute) and node.func.attr == "request":
            url = self._arg(node, 1, "url")
        target = url if isinstance(url, str) and url.strip() else "https://unknown.invalid/"
        rest: list[ast.AST] = [*node.args[1:], *(k.value for k in node.keywords if k.arg != "url")]
        for part in rest:
            for name in [n for n in ast.walk(part) if isinstance(n, ast.Name)]:
                bound = self.scope.bound.get(name.id)
                if bound is not None and len(rest) < 64:
                    rest.append(bound)  # `data = open(KEY).read(); post(url, data=data)`
            for inner in ast.walk(part):
                read = self._read_file(inner)
                if read is not None:
                    return f"curl --data-binary @{path_word(read)} {command([target])}"
                if self.scope.name(inner) in _ENV_DUMPS and not _looked_up(part, inner):
                    return f"env | curl --data-binary @- {command([target])}"
        return None

    def _read_file(self, node: ast.AST) -> str | None:
        """The file a read names: `open(P)`, `Path(P).read_text()`, `read_bytes`."""
        if not isinstance(node, ast.Call):
            return None
        if self.scope.name(node.func) in ("open", "io.open", "builtins.open"):
            path = self._arg(node, 0, "file")
            return path if isinstance(path, str) else None
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in ("read_text", "read_bytes", "open"):
            path = self.scope.value(func.value)
            return path if isinstance(path, str) else None
        return None


# What an argument may hold for its call to be taken away whole: values,
# and calls that only compute a path or a string.
_PLAIN_NODES = (ast.Constant, ast.Name, ast.Attribute, ast.JoinedStr, ast.FormattedValue,
                ast.BinOp, ast.UnaryOp, ast.List, ast.Tuple, ast.Subscript, ast.keyword,
                ast.Load, ast.operator, ast.unaryop, ast.Slice, ast.Call)  # fmt: skip
_VALUE_CALLS = frozenset({"os.path.join", "os.path.expanduser", "posixpath.join", "os.getenv",
                          "os.environ.get", "pathlib.Path", "pathlib.Path.home", "Path",
                          "Path.home", "str", "os.fspath", "os.path.abspath", "bytes"})  # fmt: skip


def _plain(scope: Scope, tree: ast.AST) -> bool:
    """The argument runs nothing: no lambda, no call but those computing a value."""
    for node in ast.walk(tree):
        if not isinstance(node, _PLAIN_NODES):
            return False
        if (
            isinstance(node, ast.Call)
            and scope.name(node.func) not in _VALUE_CALLS
            and not (isinstance(node.func, ast.Attribute) and node.func.attr in _VALUE_METHODS)
        ):
            return False
    return True


_VALUE_METHODS = frozenset({"joinpath", "expanduser", "home", "encode", "resolve", "absolute"})


def _looked_up(tree: ast.AST, environ: ast.AST) -> bool:
    """`os.environ["X"]`, `os.environ.get("X")`: one variable, not the whole environment."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and node.value is environ:
            return True
        if isinstance(node, ast.Attribute) and node.value is environ and node.attr == "get":
            return True
    return False


def _shell_true(node: ast.Call) -> bool:
    return any(
        k.arg == "shell" and not (isinstance(k.value, ast.Constant) and not k.value.value)
        for k in node.keywords
    )


def _on_path(verb: str, path: Value) -> str | None:
    return f"{verb} {path_word(path)}" if isinstance(path, str) and path else None


def _kill(pid: Value, signal: Value, group: bool) -> str | None:
    if not isinstance(pid, int):
        return None
    number = signal if isinstance(signal, int) and signal >= 0 else 9
    target = -pid if group else pid
    return f"kill -{number} -- {target}" if target else f"kill -{number} 0"


def _rest(tree: ast.Module, scope: Scope, known: set[int]) -> str | None:
    """The code less its told calls and the imports only they use; `None`
    when a module imported for them is used elsewhere too."""

    class _Strip(ast.NodeTransformer):
        def visit_Call(self, node: ast.Call) -> ast.AST:
            if id(node) in known:
                return ast.copy_location(ast.Constant(0), node)
            return self.generic_visit(node)

    stripped = _Strip().visit(tree)
    sink_names = {local for local, full in scope.imports.items()
                  if full.split(".")[0] in _SINK_MODULES}  # fmt: skip
    for node in ast.walk(stripped):
        if isinstance(node, ast.Name) and node.id in sink_names:
            return None
    for node in ast.walk(stripped):
        if isinstance(node, ast.Import | ast.ImportFrom):
            node.names = [a for a in node.names if (a.asname or a.name.split(".")[0])
                          not in sink_names]  # fmt: skip
    kept = [n for n in stripped.body
            if not (isinstance(n, ast.Import | ast.ImportFrom) and not n.names)]  # fmt: skip
    if not kept:
        return ""
    stripped.body = kept
    try:
        return ast.unparse(stripped)
    except (ValueError, RecursionError):
        return None


__all__ = ["HOME", "python_sinks"]
