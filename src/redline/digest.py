"""SHA-256 without `hashlib`, for the log's chain and for cache keys and file names.

`hashlib` loads OpenSSL first (~4 ms of a hook's start); CPython's own C
SHA-256 gives the same digest. Other interpreters fall back to `hashlib`.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from hashlib import sha256
else:
    try:
        from _sha256 import sha256
    except ImportError:  # pragma: no cover - another interpreter
        from hashlib import sha256

__all__ = ["sha256", "short_digest"]


def short_digest(data: bytes) -> str:
    """16 hex digits of SHA-256: a cache key or a file name's tail, not a seal."""
    return sha256(data).hexdigest()[:16]
