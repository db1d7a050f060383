"""A hook process's own modules, read from one file (ADR 0004).

CPython finds and loads each module on its own: a directory lookup, stats,
an open and a read of its cached bytecode. A hook process loads ~75 of
redline's modules, and that machinery is ~6% of its start. The image holds
their compiled code in one file beside the bytecode caches
(`redline/__pycache__/hook-image.<tag>.bin`): a hook reads it whole and a
finder placed first on `sys.meta_path` serves redline's modules from it.

Each module is checked against its source before it is served (size and
modification time, as CPython checks a `.pyc`); a changed or missing source
is imported the usual way. A process that imported any module the usual way
rewrites the image once its answer is out (`save`), from the bytecode CPython
cached (or the source, compiled). The image is written atomically where the
bytecode caches are; where that is read-only there is no image and imports
work as usual. It is the same trust as the `.pyc` files beside it.
"""

from __future__ import annotations

import marshal
import os
import sys

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from types import CodeType, ModuleType
    from typing import Any

FORMAT = 1
# name -> (path relative to the package's parent, is a package, mtime_ns, size, marshalled code)
Entry = tuple[str, bool, int, int, bytes]

_ModuleSpec: Any = sys.modules["_frozen_importlib"].ModuleSpec  # no `importlib` import


class ModuleImage:
    """The compiled modules of one package, served from one file."""

    def __init__(self, package: str, root: str, path: str) -> None:
        self.package = package  # "redline"
        self.root = root  # the directory that holds the package directory
        self.path = path
        self.entries: dict[str, Entry] = {}
        self.served: set[str] = set()
        self._code: dict[str, CodeType] = {}
        self.missed = False  # a module was imported the usual way: rewrite at the end

    @classmethod
    def for_redline(cls) -> ModuleImage:
        package_dir = os.path.dirname(os.path.abspath(__file__))
        tag = sys.implementation.cache_tag or "python"
        path = os.path.join(package_dir, "__pycache__", f"hook-image.{tag}.bin")
        return cls("redline", os.path.dirname(package_dir), path)

    def load(self) -> None:
        try:
            with open(self.path, "rb") as file:
                data = marshal.loads(file.read())  # noqa: S302 - beside our .pyc, same trust
        except (OSError, ValueError, EOFError, TypeError):
            self.missed = True  # none yet, or unreadable: write a new one
            return
        if isinstance(data, dict) and data.get("format") == FORMAT:
            entries = data.get("modules")
            if isinstance(entries, dict):
                self.entries = entries
                return
        self.missed = True

    def install(self) -> None:
        """Serve the package's modules from the image, before anything else."""
        self.load()
        sys.meta_path.insert(0, self)

    # The finder and loader protocol (`importlib.abc.MetaPathFinder`, `Loader`).
    def find_spec(self, name: str, path: object = None, target: object = None) -> Any:
        if not name.startswith(self.package + "."):
            return None
        try:
            relative, is_package, mtime_ns, size, data = self.entries[name]
            source = os.path.join(self.root, relative)
            status = os.stat(source)
            if (status.st_mtime_ns, status.st_size) != (mtime_ns, size):
                raise ValueError("changed since the image was written")
            self._code[name] = marshal.loads(data)  # noqa: S302 - as above
        except Exception:  # noqa: BLE001 - not in the image, changed, or damaged: the usual way
            self.missed = True
            return None
        spec = _ModuleSpec(name, self, origin=source, is_package=bool(is_package))
        spec.has_location = True
        if is_package:
            spec.submodule_search_locations = [os.path.dirname(source)]
        return spec

    def create_module(self, spec: Any) -> ModuleType | None:
        return None  # the default module

    def exec_module(self, module: ModuleType) -> None:
        code: CodeType = self._code.pop(module.__name__)
        self.served.add(module.__name__)
        exec(code, module.__dict__)  # noqa: S102 - the package's own compiled code

    def save(self) -> None:
        """Rewrite the image if this process imported any module the usual way:
        every module of the package now loaded, and the old entries still current."""
        if not self.missed:
            return
        entries = {name: e for name, e in self.entries.items() if self._current(e)}
        for name, module in list(sys.modules.items()):
            if name.startswith(self.package + ".") and name not in self.served:
                entry = self._entry_of(module)
                if entry is not None:
                    entries[name] = entry
        data = marshal.dumps({"format": FORMAT, "modules": entries})
        folder = os.path.dirname(self.path)
        temporary = f"{self.path}.{os.getpid()}.tmp"
        try:
            os.makedirs(folder, exist_ok=True)
            with open(temporary, "wb") as out:
                out.write(data)
            os.replace(temporary, self.path)
        except OSError:  # read-only: there is no image, imports work as usual
            if os.path.exists(temporary):
                os.unlink(temporary)

    def _current(self, entry: Entry) -> bool:
        try:
            status = os.stat(os.path.join(self.root, entry[0]))
        except OSError:
            return False
        return (status.st_mtime_ns, status.st_size) == (entry[2], entry[3])

    def _entry_of(self, module: ModuleType) -> Entry | None:
        source = getattr(module, "__file__", None)
        if not isinstance(source, str) or not source.endswith(".py"):
            return None
        source = os.path.abspath(source)
        if not source.startswith(self.root + os.sep):
            return None
        try:
            status = os.stat(source)
        except OSError:
            return None
        data = _cached_code(getattr(module, "__cached__", None), status)
        if data is None:  # no valid .pyc: compile the source
            try:
                with open(source, "rb") as file:
                    text = file.read()
                if os.stat(source).st_mtime_ns != status.st_mtime_ns or len(text) != status.st_size:
                    return None  # changing while read: leave it out
            except OSError:
                return None
            data = marshal.dumps(compile(text, source, "exec", dont_inherit=True))
        is_package = os.path.basename(source) == "__init__.py"
        relative = os.path.relpath(source, self.root)
        return (relative, is_package, status.st_mtime_ns, status.st_size, data)


def _cached_code(cached: object, status: os.stat_result) -> bytes | None:
    """The marshalled code of a `.pyc` that CPython would take for this
    source (its own check: magic number, source mtime and size), or None."""
    if not isinstance(cached, str):
        return None
    try:
        with open(cached, "rb") as file:
            data = file.read()
    except OSError:
        return None
    magic = sys.modules["_frozen_importlib_external"].MAGIC_NUMBER
    mtime = (int(status.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
    size = (status.st_size & 0xFFFFFFFF).to_bytes(4, "little")
    if data[:4] != magic or data[4:8] != bytes(4) or data[8:12] != mtime or data[12:16] != size:
        return None
    return data[16:]
