"""The service's per-install secrets, in the owner's directory (0600 each).

- `hook.token`: what a hook sends (`x-redline-hook-token`) with every request
  on loopback HTTP. A web page on another origin can reach 127.0.0.1 too, but
  cannot read this file, so it cannot hold a call. Written by `redline
  install --service` or by the service at its first start, whichever comes
  first; the Unix hook socket does not need it (only local processes reach
  it, and with `--agent-group` the agent's user could not read it).
- `pairing.key`: the key pairing codes are stored under (HMAC-SHA256), so a
  copy of the database alone does not let anyone test guesses offline.

Both are never-run for reads through the gate (everything under
`$REDLINE_HOME` is, but for config files and sockets). Each is created with
`O_EXCL` and mode 0600, so it is never readable by anyone else, not even for
a moment, and two processes starting at once agree on one value.
"""

from __future__ import annotations

import base64
import contextlib
import os

from redline.approve.paths import ServicePaths

HOOK_TOKEN_HEADER = "x-redline-hook-token"  # noqa: S105 - a header's name
HOOK_TOKEN_FILE = "hook.token"  # noqa: S105 - a file's name
PAIRING_KEY_FILE = "pairing.key"
SECRET_BYTES = 32


def hook_token_path(paths: ServicePaths) -> str:
    return os.path.join(paths.owner_dir, HOOK_TOKEN_FILE)


def pairing_key_path(paths: ServicePaths) -> str:
    return os.path.join(paths.owner_dir, PAIRING_KEY_FILE)


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="ascii") as source:
            text = source.read().strip()
    except (OSError, UnicodeDecodeError):
        return None
    # A file too short to be ours is no secret: refuse it rather than trust it.
    return text if len(text) >= SECRET_BYTES else None


def _load_or_create(paths: ServicePaths, path: str) -> str:
    """The secret in `path`, made (0600, `O_EXCL`) if there is none."""
    # Only a missing directory is made (0700): an existing one keeps its
    # mode and group, which `redline serve --agent-group` may have set.
    os.makedirs(paths.owner_dir, mode=0o700, exist_ok=True)
    existing = _read(path)
    if existing is not None:
        os.chmod(path, 0o600)
        return existing
    text = base64.urlsafe_b64encode(os.urandom(SECRET_BYTES)).decode("ascii").rstrip("=")
    tmp = f"{path}.{os.getpid()}.{os.urandom(4).hex()}.tmp"  # threads share a pid
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(text + "\n")
        with contextlib.suppress(FileExistsError):  # another process made it meanwhile
            os.link(tmp, path)
    finally:
        os.unlink(tmp)
    made = _read(path)
    if made is None:
        raise OSError(f"`{path}` cannot be read back; move it aside and start again")
    os.chmod(path, 0o600)
    return made


def hook_token(paths: ServicePaths) -> str:
    """The hook token, made on first use."""
    return _load_or_create(paths, hook_token_path(paths))


def read_hook_token(paths: ServicePaths) -> str | None:
    """The hook token if there is one (a hook never makes it)."""
    return _read(hook_token_path(paths))


def pairing_key(paths: ServicePaths) -> bytes:
    """The key pairing codes are stored under, made on first use."""
    return _load_or_create(paths, pairing_key_path(paths)).encode("ascii")
