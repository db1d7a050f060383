"""`json.loads` and `json.dumps` for a hook's start, without the `json` package.

Importing `json` costs a hook ~5 ms (about 6% of its start): the package
compiles six regular expressions at import (whitespace, string chunks,
numbers, the escapes) that the C accelerator `_json` then never uses. `json`
itself parses and writes through `_json`'s scanner and encoder whenever they
exist; this module calls them the same way, with the same settings, so a
value and a text are the same as `json`'s (ADR 0011).

Only the success path is served here. Any failure, malformed input included,
is handed to `json` itself, which raises its usual `JSONDecodeError` (the C
scanner alone cannot raise it unless `json.decoder` was imported). Whatever
`_json` does not cover (bytes, `indent`, a `default`, an interpreter without
`_json`) is handed to `json` too.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from typing import IO, Any

try:
    import _json
except ImportError:  # pragma: no cover - every CPython has it
    _json = None  # type: ignore[assignment]

_WHITESPACE = " \t\n\r"  # JSON's whitespace, exactly (`json.decoder.WHITESPACE`)
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}


class _Settings:
    """What `_json.make_scanner` reads off a `json.JSONDecoder()`: its defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


# typeshed types the argument as a scanner; `_json` reads the attributes above.
_scan = _json.make_scanner(_Settings()) if _json is not None else None  # type: ignore[arg-type]


def loads(text: str | bytes) -> Any:
    """`json.loads(text)`: the same value, or the same error."""
    if _scan is None or type(text) is not str or text.startswith("\ufeff"):
        return _json_package().loads(text)
    body = text.lstrip(_WHITESPACE)
    try:
        value, end = _scan(body, 0)
    except Exception:  # noqa: BLE001 - malformed: `json` raises the proper error
        return _json_package().loads(text)
    if body[end:].lstrip(_WHITESPACE):  # text after the value: `json` says "Extra data"
        return _json_package().loads(text)
    return value


def load(file: IO[str]) -> Any:
    """`json.load(file)`."""
    return loads(file.read())


def _not_serializable(value: object) -> Any:
    """`json.JSONEncoder.default`: what has no JSON form is refused."""
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


def dumps(
    value: Any,
    *,
    sort_keys: bool = False,
    separators: tuple[str, str] | None = None,
    ensure_ascii: bool = True,
    allow_nan: bool = True,
) -> str:
    """`json.dumps(value, ...)` with these options: the same text, or the same error."""
    if _json is None:
        return _json_package().dumps(
            value,
            sort_keys=sort_keys,
            separators=separators,
            ensure_ascii=ensure_ascii,
            allow_nan=allow_nan,
        )
    escape = _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring
    if isinstance(value, str):
        return escape(value)
    item_separator, key_separator = separators if separators is not None else (", ", ": ")
    encode = _json.make_encoder(
        {},  # markers: a value that contains itself is refused
        _not_serializable,
        escape,
        None,  # indent
        key_separator,
        item_separator,
        sort_keys,
        False,  # skipkeys
        allow_nan,
    )
    return "".join(encode(value, 0))


def dump(
    value: Any,
    file: IO[str],
    *,
    sort_keys: bool = False,
    separators: tuple[str, str] | None = None,
) -> None:
    """`json.dump(value, file, ...)`."""
    file.write(dumps(value, sort_keys=sort_keys, separators=separators))


def _json_package() -> Any:
    import json

    return json
