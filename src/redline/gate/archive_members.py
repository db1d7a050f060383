"""The names of the members of an archive, read from its bytes: tar (plain
or compressed: gzip, bzip2, xz), cpio (the portable ASCII formats `newc`,
`crc` and `odc`, which GNU and BSD cpio write by default or with `-H`) and
zip. Only the names: no member is extracted or decoded.

Bounded: at most `MAX_MEMBERS` names; an archive in another format, or one
that is cut short or malformed, gives `None` (the gate knows nothing of it).
"""

from __future__ import annotations

MAX_MEMBERS = 4096
_CPIO_NEW = (b"070701", b"070702")
_CPIO_ODC = b"070707"
_TRAILER = "TRAILER!!!"


def members(data: bytes) -> tuple[str, ...] | None:
    """The member names of the archive `data` holds, or `None`."""
    if data[:6] in _CPIO_NEW or data[:6] == _CPIO_ODC:
        return _cpio(data)
    if data[:4] == b"PK\x03\x04":
        return _zip(data)
    return _tar(data)


def _cpio(data: bytes) -> tuple[str, ...] | None:
    found: list[str] = []
    at = 0
    try:
        while at < len(data) and len(found) < MAX_MEMBERS:
            magic = data[at : at + 6]
            if magic in _CPIO_NEW:
                fields = [int(data[at + 6 + 8 * k : at + 14 + 8 * k], 16) for k in range(13)]
                size, name_size = fields[6], fields[11]
                start = at + 110
                name = data[start : start + name_size - 1].decode("utf-8", "replace")
                body = start + name_size
                body += -body % 4  # the header and name are padded to four bytes
                at = body + size + (-size % 4)
            elif magic == _CPIO_ODC:
                name_size = int(data[at + 59 : at + 65], 8)
                size = int(data[at + 65 : at + 76], 8)
                name = data[at + 76 : at + 76 + name_size - 1].decode("utf-8", "replace")
                at = at + 76 + name_size + size
            else:
                return None
            if name == _TRAILER:
                return tuple(found)
            found.append(name)
    except ValueError:
        return None
    return tuple(found) if len(found) >= MAX_MEMBERS else None


def _zip(data: bytes) -> tuple[str, ...] | None:
    import io
    import zipfile

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return tuple(archive.namelist()[:MAX_MEMBERS])
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return None


def _tar(data: bytes) -> tuple[str, ...] | None:
    import io
    import tarfile

    found: list[str] = []
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as archive:
            for member in archive:
                found.append(member.name)
                if len(found) >= MAX_MEMBERS:
                    break
    except (tarfile.TarError, OSError, ValueError, EOFError):
        return None
    return tuple(found)
