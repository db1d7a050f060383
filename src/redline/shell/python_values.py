"""The values Python code computes before it runs, as far as they can be
known without running it: strings, numbers and lists built from constants,
names bound once, `os.path.join`, f-strings, `+`, and the home directory as
code spells it (`expanduser("~")`, `Path.home()`, `os.environ["HOME"]`).

An unknown value is `None`; a caller never guesses past it.
"""

from __future__ import annotations

import ast

Value = str | int | list["Value"] | None

HOME = "~"
# Signal names as the `signal` module spells them, and their numbers.
SIGNALS = {"SIGHUP": 1, "SIGINT": 2, "SIGQUIT": 3, "SIGKILL": 9, "SIGTERM": 15, "SIGSTOP": 19,
           "SIGUSR1": 10, "SIGUSR2": 12, "SIGCONT": 18, "SIGABRT": 6}  # fmt: skip
_HOME_VARIABLES = frozenset({"HOME", "USERPROFILE"})
_JOINERS = frozenset({"os.path.join", "posixpath.join", "pathlib.Path", "pathlib.PurePath",
                      "pathlib.PosixPath"})  # fmt: skip


def dotted(node: ast.AST, names: dict[str, str]) -> str | None:
    """`os.path.join` for `os.path.join`, `sp.run` read through `import
    subprocess as sp`, a bare imported name (`rmtree`) as its module's."""
    parts: list[str] = []
    while True:
        if isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Call) and _is_getattr(node):
            parts.append(str(node.args[1].value))  # type: ignore[attr-defined]
            node = node.args[0]
        else:
            break
    if isinstance(node, ast.Call) and _is_import_call(node):
        parts.append(str(getattr(node.args[0], "value", "")))
    elif isinstance(node, ast.Name):
        parts.append(names.get(node.id, node.id))
    else:
        return None
    return ".".join(reversed(parts))


def _is_getattr(node: ast.Call) -> bool:
    """`getattr(os, "system")` with a constant name."""
    return (
        isinstance(node.func, ast.Name)
        and node.func.id == "getattr"
        and len(node.args) == 2
        and isinstance(node.args[1], ast.Constant)
        and isinstance(node.args[1].value, str)
    )


def _is_import_call(node: ast.Call) -> bool:
    """`__import__("os")`, `importlib.import_module("os")`."""
    func = node.func
    named = (isinstance(func, ast.Name) and func.id == "__import__") or (
        isinstance(func, ast.Attribute) and func.attr == "import_module"
    )
    return (
        named
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    )


class Scope:
    """Names bound by imports and by single plain assignments."""

    def __init__(self, tree: ast.AST) -> None:
        self.imports: dict[str, str] = {}
        self.bound: dict[str, ast.expr] = {}
        seen: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    local = alias.asname or alias.name.split(".")[0]
                    self.imports[local] = alias.name if alias.asname else local
            elif isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    self.imports[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.NamedExpr):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                value = node.value
                for target in targets:
                    for name in ast.walk(target):
                        if isinstance(name, ast.Name):
                            if name.id in seen or target is not name or value is None:
                                self.bound.pop(name.id, None)
                                seen.add(name.id)
                                continue
                            seen.add(name.id)
                            if not isinstance(node, ast.AugAssign):
                                self.bound[name.id] = value
            elif isinstance(node, ast.For | ast.comprehension | ast.withitem | ast.FunctionDef):
                bound_at: ast.AST = node if isinstance(node, ast.FunctionDef) else _target(node)
                for stored in ast.walk(bound_at):
                    if isinstance(stored, ast.Name) and isinstance(stored.ctx, ast.Store):
                        self.bound.pop(stored.id, None)
                        seen.add(stored.id)
            elif isinstance(node, ast.arg | ast.ExceptHandler | ast.Global | ast.Nonlocal):
                # A parameter, `except E as x`, `global x`: a value no one can know.
                if isinstance(node, ast.Global | ast.Nonlocal):
                    names: list[str | None] = list(node.names)
                else:
                    names = [node.arg if isinstance(node, ast.arg) else node.name]
                for shadowed in names:
                    if shadowed:
                        self.bound.pop(shadowed, None)
                        seen.add(shadowed)
            elif isinstance(node, ast.Delete | ast.ClassDef | ast.AsyncFunctionDef | ast.Lambda):
                for stored in ast.walk(node):
                    if isinstance(stored, ast.Name) and not isinstance(stored.ctx, ast.Load):
                        self.bound.pop(stored.id, None)
                        seen.add(stored.id)

    def name(self, node: ast.AST) -> str | None:
        if isinstance(node, ast.Name) and node.id not in self.imports:
            alias = self.bound.get(node.id)  # `f = shutil.rmtree; f("/usr")`
            if isinstance(alias, ast.Attribute | ast.Name):
                return dotted(alias, self.imports)
        return dotted(node, self.imports)

    def value(self, node: ast.AST | None, depth: int = 0) -> Value:
        if node is None or depth > 20:
            return None
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bytes):
                return value.decode("utf-8", "replace")
            return value if isinstance(value, str | int) and not isinstance(value, bool) else None
        if isinstance(node, ast.Name):
            bound = self.bound.get(node.id)
            return self.value(bound, depth + 1) if bound is not None else None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = self.value(node.operand, depth + 1)
            return -inner if isinstance(inner, int) else None
        if isinstance(node, ast.BinOp):
            return self._binary(node, depth)
        if isinstance(node, ast.JoinedStr):
            parts = [self.value(v, depth + 1) for v in node.values]
            if any(not isinstance(p, str | int) for p in parts):
                return None
            return "".join(str(p) for p in parts)
        if isinstance(node, ast.FormattedValue):
            inner = self.value(node.value, depth + 1)
            return inner if node.format_spec is None else None
        if isinstance(node, ast.List | ast.Tuple):
            return [self.value(e, depth + 1) for e in node.elts]
        if isinstance(node, ast.Subscript):
            return self._subscript(node, depth)
        if isinstance(node, ast.Attribute):
            name = self.name(node)
            if name is not None and name.startswith("signal.SIG"):
                return SIGNALS.get(name[7:])
            return None
        if isinstance(node, ast.Call):
            return self._call(node, depth)
        return None

    def _binary(self, node: ast.BinOp, depth: int) -> Value:
        left, right = self.value(node.left, depth + 1), self.value(node.right, depth + 1)
        if isinstance(node.op, ast.Add):
            if isinstance(left, str) and isinstance(right, str):
                return left + right
            if isinstance(left, list) and isinstance(right, list):
                return left + right
            if isinstance(left, int) and isinstance(right, int):
                return left + right
        if isinstance(node.op, ast.Sub) and isinstance(left, int) and isinstance(right, int):
            return left - right
        if isinstance(node.op, ast.Div) and isinstance(left, str) and isinstance(right, str):
            return _join(left, right)  # `Path.home() / ".ssh"`
        if isinstance(node.op, ast.Mod) and isinstance(left, str) and right is not None:
            values = right if isinstance(right, list) else [right]
            if all(isinstance(v, str | int) for v in values) and left.count("%s") == len(values):
                return left.replace("%s", "{}").format(*values)
        return None

    def _subscript(self, node: ast.Subscript, depth: int) -> Value:
        if self.name(node.value) == "os.environ":
            key = self.value(node.slice, depth + 1)
            return HOME if key in _HOME_VARIABLES else None
        container, index = self.value(node.value, depth + 1), self.value(node.slice, depth + 1)
        if isinstance(container, str) and isinstance(node.slice, ast.Slice):  # `"toober"[::-1]`
            bounds = [self.value(b) for b in (node.slice.lower, node.slice.upper, node.slice.step)]
            ints = [b if isinstance(b, int) else None for b in bounds]
            if (
                ints == [b if b is None or isinstance(b, int) else 0 for b in bounds]
                and ints[2] != 0
            ):
                return container[ints[0] : ints[1] : ints[2]]
            return None
        if isinstance(container, list) and isinstance(index, int) and -len(container) <= index:
            return container[index] if index < len(container) else None
        if isinstance(node.slice, ast.Slice) and isinstance(container, list):
            lower, upper = self.value(node.slice.lower), self.value(node.slice.upper)
            if node.slice.step is None and isinstance(lower, int | None):
                return container[lower : upper if isinstance(upper, int) else None]
        return None

    def _call(self, node: ast.Call, depth: int) -> Value:
        name = self.name(node.func)
        args = [self.value(a, depth + 1) for a in node.args]
        if name in ("os.path.expanduser", "posixpath.expanduser") and args:
            return args[0] if isinstance(args[0], str) else None
        if name in ("os.getenv", "os.environ.get") and args:
            return HOME if args[0] in _HOME_VARIABLES else None
        if name in ("pathlib.Path.home", "Path.home", "os.path.expandvars") and not args:
            return HOME
        if name in _JOINERS or name in ("Path", "PurePath"):
            if not args:
                return "."
            if all(isinstance(a, str) for a in args):
                result = str(args[0])
                for part in args[1:]:
                    result = _join(result, str(part))
                return result
            return None
        if name in ("str", "os.fspath", "os.path.abspath", "os.path.normpath") and len(args) == 1:
            return args[0] if isinstance(args[0], str) else None
        if isinstance(node.func, ast.Attribute) and node.func.attr in _PATH_METHODS:
            base = self.value(node.func.value, depth + 1)
            if not isinstance(base, str):
                return None
            if node.func.attr == "joinpath" and all(isinstance(a, str) for a in args):
                for part in args:
                    base = _join(base, str(part))
                return base
            if node.func.attr in ("expanduser", "resolve", "absolute") and not args:
                return base
            if node.func.attr == "split" and not args:
                return list(base.split())
        if name in ("shlex.split",) and len(args) == 1 and isinstance(args[0], str):
            return list(args[0].split())
        if name in _DECODERS and len(args) == 1 and isinstance(args[0], str):
            return _decoded(name, args[0])  # `base64.b64decode("cm0gLXJmIC8=")`
        if name == "chr" and len(args) == 1 and isinstance(args[0], int):
            return chr(args[0]) if 0 <= args[0] < 0x110000 else None
        if name == "map" and len(args) == 2 and self.name(node.args[0]) == "chr":
            codes = args[1]
            if isinstance(codes, list) and all(_is_code_point(c) for c in codes):
                return [chr(c) for c in codes if isinstance(c, int)]
        if name in ("list", "tuple") and len(args) == 1 and isinstance(args[0], list):
            return args[0]
        if isinstance(node.func, ast.Attribute) and node.func.attr in _TEXT_METHODS:
            return _text_method(node.func.attr, self.value(node.func.value, depth + 1), args)
        return None


# Decoders of constant text whose result code often hides a command in.
_DECODERS = frozenset({
    "base64.b64decode", "base64.b32decode", "base64.b16decode", "base64.urlsafe_b64decode",
    "base64.decodebytes", "bytes.fromhex", "binascii.unhexlify", "binascii.a2b_hex",
    "binascii.a2b_base64",
})  # fmt: skip


def _is_code_point(value: Value) -> bool:
    return isinstance(value, int) and 0 <= value < 0x110000


_TEXT_METHODS = frozenset({"decode", "encode", "join", "replace", "strip", "lower", "upper"})


def _decoded(name: str, text: str) -> Value:
    import base64
    import binascii

    try:
        if name.endswith(("fromhex", "unhexlify", "a2b_hex", "b16decode")):
            data = bytes.fromhex(text) if "fromhex" in name else binascii.unhexlify(text)
        elif name.endswith("b32decode"):
            data = base64.b32decode(text)
        elif name.endswith("urlsafe_b64decode"):
            data = base64.urlsafe_b64decode(text)
        else:
            data = base64.b64decode(text)
    except (ValueError, binascii.Error):
        return None
    return data.decode("utf-8", "replace")


def _text_method(method: str, base: Value, args: list[Value]) -> Value:
    """`b"...".decode()`, `"".join([...])`, `s.replace("a", "b")` on known text."""
    if not isinstance(base, str):
        return None
    if method in ("decode", "encode"):
        return base  # bytes and text are both read as text here
    if method == "join" and len(args) == 1 and isinstance(args[0], list):
        parts = args[0]
        return base.join(parts) if all(isinstance(p, str) for p in parts) else None  # type: ignore[arg-type]
    if method == "replace" and len(args) == 2 and all(isinstance(a, str) for a in args):
        return base.replace(str(args[0]), str(args[1]))
    if method in ("strip", "lower", "upper") and not args:
        return getattr(base, method)()  # type: ignore[no-any-return]
    return None


def _target(node: ast.For | ast.comprehension | ast.withitem) -> ast.AST:
    found = node.optional_vars if isinstance(node, ast.withitem) else node.target
    return found if found is not None else ast.Pass()


_PATH_METHODS = frozenset({"joinpath", "expanduser", "resolve", "absolute", "split"})


def _join(left: str, right: str) -> str:
    if right.startswith("/"):
        return right
    return left.rstrip("/") + "/" + right if left else right
