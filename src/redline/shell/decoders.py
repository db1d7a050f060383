"""Decoders of static text (F-SHELL-4): `base64 -d`, `base32 -d`, `basenc`,
`xxd -r -p`, `openssl base64 -d`. Pure functions; imported only when such a
program is met, so a hook's start never loads `base64`."""

from __future__ import annotations

import base64
import binascii

_DECODE_FLAGS = frozenset({"-d", "--decode", "-D"})


def decode(name: str, values: tuple[str, ...], stdin: str | None) -> str | None:
    """What the decoder writes, when its input is static; `None` otherwise
    (it encodes, reads a file, or the input is not valid)."""
    if name == "openssl":
        return _openssl(values, stdin)
    if name == "xxd":
        return _xxd(values, stdin)
    flags = [v for v in values if v.startswith("-")]
    operands = [v for v in values if not v.startswith("-") or v == "-"]
    if operands not in ([], ["-"]) or stdin is None:
        return None
    if not any(f in _DECODE_FLAGS or _short(f, "d") for f in flags):
        return None
    if name == "basenc":
        if "--base32" in flags:
            return _base32(stdin)
        if "--base16" in flags:
            return _hex(stdin)
        return _base64(stdin) if any(f.startswith("--base64") for f in flags) else None
    return _base32(stdin) if name == "base32" else _base64(stdin)


def _short(flag: str, letter: str) -> bool:
    return not flag.startswith("--") and letter in flag[1:]


# Binary data is kept one byte a character; its NUL bytes as this character,
# since NUL itself stands for `DYNAMIC`.
_NUL = "\ue000"


def _text(data: bytes) -> str:
    """Text as UTF-8; data that is not (compressed data) kept one byte a
    character, so a decompressor after the decoder gets the bytes back."""
    if b"\x00" not in data:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            pass
    return data.decode("latin-1").replace("\x00", _NUL)


def _bytes(text: str) -> bytes:
    try:
        return text.replace(_NUL, "\x00").encode("latin-1")
    except UnicodeEncodeError:
        return text.encode("utf-8")


# Decompressors of data piped from a decoder: program -> (format, flags that decompress).
DECOMPRESSORS = {
    "gunzip": ("gz", ""), "zcat": ("gz", ""), "gzip": ("gz", "d"), "unxz": ("xz", ""),
    "xzcat": ("xz", ""), "xz": ("xz", "d"), "bunzip2": ("bz2", ""), "bzcat": ("bz2", ""),
    "bzip2": ("bz2", "d"),
}  # fmt: skip


def decompress(name: str, values: tuple[str, ...], stdin: str | None) -> str | None:
    """`gunzip`, `gzip -d`, `zcat`, `xz -d`, `bzip2 -d` of data on stdin, at
    most `limit` characters out (a small input can expand without end)."""
    kind, needs = DECOMPRESSORS[name]
    flags = "".join(v[1:] for v in values if v.startswith("-") and not v.startswith("--"))
    longs = [v for v in values if v.startswith("--")]
    if stdin is None or any(not v.startswith("-") for v in values):
        return None
    if needs and needs not in flags and "--decompress" not in longs and "--stdout" not in longs:
        return None
    from redline.shell.static_text import MAX_TEXT

    data = _bytes(stdin)
    try:
        if kind == "gz":
            import zlib

            out = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data, MAX_TEXT)
        elif kind == "xz":
            import lzma

            out = lzma.LZMADecompressor().decompress(data, MAX_TEXT)
        else:
            import bz2

            out = bz2.BZ2Decompressor().decompress(data, MAX_TEXT)
    except (OSError, EOFError, ValueError, MemoryError):
        return None
    except Exception:  # noqa: BLE001 - zlib.error and friends: not decodable, so unknown
        return None
    return _text(out)


def _base64(text: str) -> str | None:
    compact = "".join(text.split())
    try:
        return _text(base64.b64decode(compact + "=" * (-len(compact) % 4), validate=False))
    except (ValueError, binascii.Error):
        return None


def _base32(text: str) -> str | None:
    compact = "".join(text.split()).upper()
    try:
        return _text(base64.b32decode(compact + "=" * (-len(compact) % 8)))
    except (ValueError, binascii.Error):
        return None


def _hex(text: str) -> str | None:
    try:
        return _text(bytes.fromhex("".join(text.split())))
    except ValueError:
        return None


def _xxd(values: tuple[str, ...], stdin: str | None) -> str | None:
    """`xxd -r -p` (plain hex); `xxd -r` of a dump (`offset: hex  text`)."""
    flags = "".join(v[1:] for v in values if v.startswith("-") and not v.startswith("--"))
    long = [v for v in values if v.startswith("--")]
    operands = [v for v in values if not v.startswith("-")]
    reverse = "r" in flags or "--revert" in long
    if not reverse or operands or stdin is None:
        return None
    if "p" in flags or "--plain" in long or "--postscript" in long:
        return _hex(stdin)
    rows = []
    for line in stdin.splitlines():
        _, colon, rest = line.partition(":")
        if not colon:
            return None
        rows.append(rest.split("  ", 1)[0])
    return _hex(" ".join(rows))


def _openssl(values: tuple[str, ...], stdin: str | None) -> str | None:
    """`openssl base64 -d`, `openssl enc -base64 -d` (`-a` is `-base64`)."""
    if not values or stdin is None or "-d" not in values:
        return None
    if values[0] == "base64" or (values[0] == "enc" and ("-base64" in values or "-a" in values)):
        rest = [v for v in values[1:] if v not in ("-d", "-base64", "-a", "-A")]
        return None if rest else _base64(stdin)
    return None
