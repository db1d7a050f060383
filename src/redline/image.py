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
cached beside each source (or the source, compiled); only modules whose source
is inside the package are taken. The image is written atomically where the
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

# The file: MAGIC, the index's length (4 bytes, little-endian), the marshalled
# index {name: (path relative to the package's parent, is a package, mtime_ns,
# size, offset, length)}, then each module's marshalled code (offsets count
# from the end of the index).
# A hook reads the index and then only the code of the modules it imports
# (`os.pread`): reading and unmarshalling the whole file (~2 MB, every module
# any process loaded) cost ~1.5 ms of each start.
MAGIC = b"RLIMAGE2"
_HEAD = len(MAGIC) + 4
_FIRST_READ = 1 << 16  # the index of ~170 modules fits in one read
# What is kept of a module: name -> (relative path, is a package, mtime_ns, size, marshalled code)
Entry = tuple[str, bool, int, int, bytes]
# name -> (relative path, is a package, mtime_ns, size, offset, length)
IndexEntry = tuple[str, bool, int, int, int, int]

_ModuleSpec: Any = sys.modules["_frozen_importlib"].ModuleSpec  # no `importlib` import
_Module = type(sys)


class ModuleImage:
    """The compiled modules of one package, served from one file."""

    def __init__(self, package: str, root: str, path: str) -> None:
        self.package = package  # "redline"
        self.root = root  # the directory that holds the package directory
        self.path = path
        self.entries: dict[str, IndexEntry] = {}
        self._fd: int | None = None  # the image read from, open for the process's life
        self._base = 0  # where its code starts
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
        """Read the image's index; the modules' code is read when imported."""
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            self.missed = True  # none yet, or unreadable: write a new one
            return
        try:
            head = os.pread(fd, _FIRST_READ, 0)
            if head[: len(MAGIC)] != MAGIC:
                raise ValueError("not an image of this format")
            end = _HEAD + int.from_bytes(head[len(MAGIC) : _HEAD], "little")
            if end > len(head):
                head += os.pread(fd, end - len(head), len(head))
            entries = marshal.loads(head[_HEAD:end])  # noqa: S302 - beside our .pyc, same trust
            if not isinstance(entries, dict):
                raise ValueError("the index is not a table")
        except (OSError, ValueError, EOFError, TypeError):
            os.close(fd)
            self.missed = True
            return
        self.entries, self._fd, self._base = entries, fd, end

    def install(self) -> None:
        """Serve the package's modules from the image, before anything else."""
        self.load()
        sys.meta_path.insert(0, self)

    # The finder and loader protocol (`importlib.abc.MetaPathFinder`, `Loader`).
    def find_spec(self, name: str, path: object = None, target: object = None) -> Any:
        if not name.startswith(self.package + "."):
            return None
        try:
            relative, is_package, mtime_ns, size, offset, length = self.entries[name]
            source = os.path.join(self.root, relative)
            status = os.stat(source)
            if (status.st_mtime_ns, status.st_size) != (mtime_ns, size):
                raise ValueError("changed since the image was written")
            self._code[name] = marshal.loads(self._read(offset, length))  # noqa: S302 - as above
        except Exception:  # noqa: BLE001 - not in the image, changed, or damaged: the usual way
            self.missed = True
            return None
        spec = _ModuleSpec(name, self, origin=source, is_package=bool(is_package))
        spec.has_location = True
        if is_package:
            spec.submodule_search_locations = [os.path.dirname(source)]
        if sys.pycache_prefix is None:
            # What `spec.cached` would compute (`cache_from_source`), without its
            # work; `None` (optimised, no cache tag) leaves it to compute.
            spec.cached = _beside(source)
        return spec

    def _read(self, offset: int, length: int) -> bytes:
        if self._fd is None:
            raise ValueError("no image")
        data = os.pread(self._fd, length, self._base + offset)
        if len(data) != length:
            raise ValueError("the image is cut short")
        return data

    def create_module(self, spec: Any) -> ModuleType:
        """The default module, with the attributes the import system would set
        at once: it sets each one it finds missing, and every missing
        attribute of a module costs a formatted `AttributeError` (two, with
        the module's spec consulted), about 2% of a hook's start in all."""
        module = _Module(spec.name)
        module.__file__ = spec.origin
        if spec.cached is not None:
            vars(module)["__cached__"] = spec.cached  # typeshed lacks `__cached__`
        if spec.submodule_search_locations is not None:
            module.__path__ = spec.submodule_search_locations
        return module

    def exec_module(self, module: ModuleType) -> None:
        code: CodeType = self._code.pop(module.__name__)
        self.served.add(module.__name__)
        exec(code, module.__dict__)  # noqa: S102 - the package's own compiled code

    def save(self) -> None:
        """Rewrite the image if this process imported any module the usual way:
        every module of the package now loaded, and the old entries still current."""
        if not self.missed:
            return
        entries: dict[str, Entry] = {}
        for name, (relative, is_package, mtime_ns, size, offset, length) in self.entries.items():
            if self._current(relative, mtime_ns, size):
                try:
                    data = self._read(offset, length)
                except (OSError, ValueError):
                    continue
                entries[name] = (relative, is_package, mtime_ns, size, data)
        for name, module in list(sys.modules.items()):
            if name.startswith(self.package + ".") and name not in self.served:
                entry = self._entry_of(module)
                if entry is not None:
                    entries[name] = entry
        data = pack(entries)
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

    def _current(self, relative: str, mtime_ns: int, size: int) -> bool:
        try:
            status = os.stat(os.path.join(self.root, relative))
        except OSError:
            return False
        return (status.st_mtime_ns, status.st_size) == (mtime_ns, size)

    def _entry_of(self, module: ModuleType) -> Entry | None:
        source = getattr(module, "__file__", None)
        if not isinstance(source, str) or not source.endswith(".py"):
            return None
        source = os.path.abspath(source)
        if not source.startswith(os.path.join(self.root, self.package) + os.sep):
            return None
        try:
            status = os.stat(source)
        except OSError:
            return None
        # Only the `.pyc` beside the source, never `module.__cached__`: whoever
        # starts this process chooses `PYTHONPYCACHEPREFIX`, and a bytecode file
        # planted there (with the source's mtime and size) would otherwise be
        # copied into the image every later hook runs.
        data = _cached_code(_beside(source), status)
        if data is None:  # no valid .pyc: compile the source
            try:
                with open(source, "rb") as file:
                    text = file.read()
                if os.stat(source).st_mtime_ns != status.st_mtime_ns or len(text) != status.st_size:
                    return None  # changing while read: leave it out
            except OSError:
                return None
            data = marshal.dumps(compile(text, source, "exec", dont_inherit=True, optimize=0))
        is_package = os.path.basename(source) == "__init__.py"
        relative = os.path.relpath(source, self.root)
        return (relative, is_package, status.st_mtime_ns, status.st_size, data)


def pack(entries: dict[str, Entry]) -> bytes:
    """The image file for these modules: the index, then their code."""
    index: dict[str, IndexEntry] = {}
    offset = 0
    for name, (relative, is_package, mtime_ns, size, data) in entries.items():
        index[name] = (relative, is_package, mtime_ns, size, offset, len(data))
        offset += len(data)
    table = marshal.dumps(index)
    blobs = b"".join(entry[4] for entry in entries.values())
    return MAGIC + len(table).to_bytes(4, "little") + table + blobs


def _beside(source: str) -> str | None:
    """Where CPython caches a source's bytecode with no prefix and no
    optimisation (`importlib.util.cache_from_source`, without its import)."""
    tag = sys.implementation.cache_tag
    if tag is None or sys.flags.optimize:
        return None  # compile the source instead
    folder, name = os.path.split(source)
    return os.path.join(folder, "__pycache__", f"{name[:-3]}.{tag}.pyc")


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
