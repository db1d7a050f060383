"""Signed answers (F-APPROVE-3): the service signs, the hook verifies.

The service's Ed25519 key is made on first start: the private key is readable
by the owner only (0600, in the owner-only directory), the public key is
written beside the hook socket for hooks to pin. Every answer is bound to the
request id, the hook's nonce, the canonical hash of the call and an expiry;
`verify` lives in `redline.approve.client`, which the hook imports.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import time
from typing import Any, NamedTuple

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
)
from nacl.signing import SigningKey

from redline.approve.paths import ServicePaths

ANSWER_TTL_S = 30.0
"""An answer is good for this long after it is signed; later it is `expired`."""


def key_id(public_raw: bytes) -> str:
    return hashlib.sha256(public_raw).hexdigest()[:16]


def encode_public(public_raw: bytes) -> str:
    return base64.b64encode(public_raw).decode("ascii")


_encode = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode


def canonical(body: dict[str, Any]) -> bytes:
    return _encode(body).encode()


class Signer:
    """The service's key; `sign` makes an answer the hook can verify."""

    def __init__(self, private: Ed25519PrivateKey) -> None:
        self._private = private
        # The same key and (deterministic) signatures through libsodium, which
        # signs in about two thirds of the time: every answer is signed.
        seed = private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
        self._sign = SigningKey(seed).sign
        self.public_raw = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        self.key_id = key_id(self.public_raw)

    @classmethod
    def load(cls, paths: ServicePaths) -> Signer:
        """The service's existing key (for its workers)."""
        with open(paths.private_key, "rb") as source:
            raw = source.read()
        return cls(Ed25519PrivateKey.from_private_bytes(base64.b64decode(raw.strip())))

    @classmethod
    def load_or_create(cls, paths: ServicePaths) -> Signer:
        """Read the key, or make one (0600) on first start; the public key is
        (re)written for hooks to pin."""
        paths.prepare()
        try:
            signer = cls.load(paths)
        except FileNotFoundError:
            private = Ed25519PrivateKey.generate()
            raw = private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
            fd = os.open(paths.private_key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as out:
                out.write(base64.b64encode(raw) + b"\n")
            signer = cls(private)
        os.chmod(paths.private_key, 0o600)
        tmp = paths.public_key + ".tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(encode_public(signer.public_raw) + "\n")
        paths.secure_public(tmp)
        os.replace(tmp, paths.public_key)
        return signer

    def sign(
        self,
        *,
        request: str,
        nonce: str,
        call: str,
        outcome: str,
        verdict: str,
        decision: dict[str, Any],
        answer: dict[str, Any] | None = None,
        now: float | None = None,
        ttl: float = ANSWER_TTL_S,
    ) -> Signed:
        """The envelope `{"answer": body, "sig": base64}` for the hook, and the
        canonical text of the body that was signed."""
        moment = time.time() if now is None else now
        body: dict[str, Any] = {
            "v": 1,
            "key": self.key_id,
            "request": request,
            "nonce": nonce,
            "call": call,
            "outcome": outcome,
            "verdict": verdict,
            "decision": decision,
            "answer": answer or {},
            "issued": moment,
            "expires": moment + ttl,
        }
        text = canonical(body)
        sig = base64.b64encode(self._sign(text).signature).decode("ascii")
        return Signed({"answer": body, "sig": sig}, text, sig)


class Signed(NamedTuple):
    """A signed answer: the envelope, and the canonical text that was signed."""

    envelope: dict[str, Any]
    text: bytes
    sig: str
