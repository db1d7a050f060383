"""The hook image serves a package's modules from one file, never stale ones."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path

RUN = """
import json, sys
from redline.image import ModuleImage
root, path = sys.argv[1], sys.argv[2]
ATTRIBUTES = ("__name__", "__file__", "__cached__", "__path__", "__package__", "__doc__")
image = ModuleImage("pkgx", root, path)
image.install()
sys.path.insert(0, root)
import pkgx.a, pkgx.sub.b
print(json.dumps({
    "values": [pkgx.a.VALUE, pkgx.sub.b.VALUE],
    "served": sorted(image.served),
    "file": pkgx.sub.b.__file__,
    "package_path": list(pkgx.sub.__path__),
    "attributes": {
        name: [getattr(module, key, "unset") for key in ATTRIBUTES]
        + [module.__spec__.cached, module.__spec__.origin, module.__spec__.parent]
        for name, module in sys.modules.items() if name.startswith("pkgx")
    },
}))
image.save()
"""


def make_package(root: Path) -> None:
    (root / "pkgx" / "sub").mkdir(parents=True)
    (root / "pkgx" / "__init__.py").write_text("")
    (root / "pkgx" / "a.py").write_text("VALUE = 'a1'\n")
    (root / "pkgx" / "sub" / "__init__.py").write_text("")
    (root / "pkgx" / "sub" / "b.py").write_text("from pkgx.a import VALUE as A\nVALUE = A + 'b1'\n")


def run(root: Path, image: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(root), str(image)],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_the_second_process_is_served_from_the_image(tmp_path: Path) -> None:
    root, image = tmp_path / "src", tmp_path / "cache" / "image.bin"
    make_package(root)
    first = run(root, image)
    assert first["values"] == ["a1", "a1b1"] and first["served"] == []
    assert image.is_file()
    second = run(root, image)
    assert second["values"] == ["a1", "a1b1"]
    assert second["served"] == ["pkgx.a", "pkgx.sub", "pkgx.sub.b"]
    assert second["file"] == str(root / "pkgx" / "sub" / "b.py")
    assert second["package_path"] == [str(root / "pkgx" / "sub")]
    # A served module has the attributes and spec an imported one has.
    assert second["attributes"] == first["attributes"]


def test_a_changed_source_is_imported_as_it_is_now(tmp_path: Path) -> None:
    root, image = tmp_path / "src", tmp_path / "image.bin"
    make_package(root)
    run(root, image)
    run(root, image)
    source = root / "pkgx" / "a.py"
    source.write_text("VALUE = 'a2-longer'\n")
    os.utime(source, ns=(1_000_000_000, 1_000_000_000))  # even with an older time
    changed = run(root, image)
    assert changed["values"] == ["a2-longer", "a2-longerb1"]
    assert "pkgx.a" not in changed["served"]  # CPython imported it the usual way
    again = run(root, image)  # and the image was rewritten with it
    assert again["values"] == ["a2-longer", "a2-longerb1"]
    assert "pkgx.a" in again["served"]


def test_a_damaged_image_is_ignored_and_rewritten(tmp_path: Path) -> None:
    root, image = tmp_path / "src", tmp_path / "image.bin"
    make_package(root)
    image.write_bytes(b"\x00not marshal data at all")
    assert run(root, image)["values"] == ["a1", "a1b1"]
    assert run(root, image)["served"] == ["pkgx.a", "pkgx.sub", "pkgx.sub.b"]


def test_a_read_only_place_means_no_image_and_no_error(tmp_path: Path) -> None:
    root = tmp_path / "src"
    make_package(root)
    image = tmp_path / "missing-dir" / "sub" / "image.bin"
    (tmp_path / "missing-dir").write_text("a file where the directory would be")
    assert run(root, image)["values"] == ["a1", "a1b1"]
    assert run(root, image)["served"] == []


def test_an_index_longer_than_the_first_read_is_read_whole(tmp_path: Path) -> None:
    from redline.image import _FIRST_READ, ModuleImage, pack

    entries = {
        f"pkgx.module_{n:05}_{'x' * 60}": (f"pkgx/m{n}.py", False, n, n, b"code %d" % n)
        for n in range(1200)
    }
    path = tmp_path / "image.bin"
    path.write_bytes(pack(entries))
    image = ModuleImage("pkgx", str(tmp_path), str(path))
    image.load()
    assert not image.missed
    assert image._base > _FIRST_READ  # the index alone is past the first read
    for name, (relative, _, mtime_ns, size, data) in entries.items():
        *kept, offset, length = image.entries[name]
        assert kept == [relative, False, mtime_ns, size]
        assert image._read(offset, length) == data


def test_an_image_cut_short_serves_nothing_from_what_is_missing(tmp_path: Path) -> None:
    from redline.image import ModuleImage, pack

    source = tmp_path / "pkgx" / "a.py"
    source.parent.mkdir()
    source.write_text("#")
    os.utime(source, ns=(1, 1))  # the source is as the image says: only the code is missing
    path = tmp_path / "image.bin"
    data = pack({"pkgx.a": ("pkgx/a.py", False, 1, 1, b"0123456789")})
    path.write_bytes(data[:-4])
    image = ModuleImage("pkgx", str(tmp_path), str(path))
    image.load()
    assert image.find_spec("pkgx.a") is None
    assert image.missed


def test_bytecode_under_a_chosen_cache_prefix_never_reaches_the_image(tmp_path: Path) -> None:
    """The process that rewrites the image may have been started by the agent
    (`redline check`), which chooses `PYTHONPYCACHEPREFIX`: a `.pyc` planted
    there with the source's mtime and size must not become what later hooks run."""
    root, image, prefix = tmp_path / "src", tmp_path / "image.bin", tmp_path / "prefix"
    make_package(root)
    chosen = {**os.environ, "PYTHONPYCACHEPREFIX": str(prefix)}
    chosen.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(root), str(image)], env=chosen, capture_output=True
    )
    assert done.returncode == 0
    [planted] = [p for p in prefix.rglob("a.*.pyc")]
    header = planted.read_bytes()[:16]  # CPython's own check: magic, mtime, size
    planted.write_bytes(header + marshal.dumps(compile("VALUE = 'planted'\n", "a.py", "exec")))
    image.unlink()
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(root), str(image)], env=chosen, capture_output=True
    )
    assert json.loads(done.stdout)["values"] == ["planted", "plantedb1"]  # its own business
    later = run(root, image)
    assert later["values"] == ["a1", "a1b1"]
    assert "pkgx.a" in later["served"]


def test_modules_from_outside_the_package_are_left_out(tmp_path: Path) -> None:
    root, image = tmp_path / "src", tmp_path / "image.bin"
    make_package(root)
    (root / "pkgx_other").mkdir()
    (root / "pkgx_other" / "c.py").write_text("VALUE = 'c'\n")
    script = RUN.replace(
        "image.save()",
        "import importlib.util as u\n"
        "spec = u.spec_from_file_location('pkgx.c', root + '/pkgx_other/c.py')\n"
        "m = u.module_from_spec(spec); sys.modules['pkgx.c'] = m; spec.loader.exec_module(m)\n"
        "image.save()",
    )
    subprocess.run([sys.executable, "-c", script, str(root), str(image)], check=True)
    from redline.image import MAGIC

    data = image.read_bytes()
    assert data.startswith(MAGIC) and b"pkgx_other" not in data
