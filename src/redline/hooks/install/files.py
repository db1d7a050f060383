"""Writing another program's config file safely: a backup of what was there
(one per file, replaced by each change), then a temporary file in the same
directory renamed over it (so a reader sees the old file or the new one, never
half of one), keeping its mode.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from typing import Any


class ConfigError(Exception):
    """A config file that cannot be read or written; the message says which and why."""


BACKUP_SUFFIX = ".redline-backup"


def backup(path: str) -> str | None:
    """Copy `path` aside as `PATH.redline-backup`, replacing the copy an earlier
    run kept: one backup per file, the version before redline's last change.
    `None` if `path` did not exist."""
    if not os.path.exists(path):
        return None
    target = path + BACKUP_SUFFIX
    directory = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(target)}.", suffix=".tmp")
    os.close(fd)
    try:
        shutil.copy2(path, tmp)
        os.replace(tmp, target)  # never through a link planted at the backup's name
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return target


def write_atomic(path: str, text: str) -> None:
    directory = os.path.dirname(path) or "."
    os.makedirs(directory, exist_ok=True)
    mode = os.stat(path).st_mode & 0o777 if os.path.exists(path) else 0o600
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def read_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as source:
            return source.read()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"cannot read `{path}`: {error}") from None


def read_json_object(path: str) -> dict[str, Any] | None:
    """The file's JSON object, `None` if the file does not exist."""
    text = read_text(path)
    if text is None:
        return None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as error:
        raise ConfigError(
            f"`{path}` is not valid JSON ({error}); fix it or move it aside, then run again"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"`{path}` must hold a JSON object, not {type(data).__name__}")
    return data


def dump_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
