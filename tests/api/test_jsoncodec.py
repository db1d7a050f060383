"""`redline.jsoncodec` reads and writes what `json` does: the same values, the
same texts and the same errors, for hostile input too (ADR 0011)."""

from __future__ import annotations

import enum
import io
import json
import math
from typing import Any

import pytest

from redline import jsoncodec
from redline.audit.entry import canonical_json
from redline.jsoninput import MAX_DEPTH, TooDeep
from redline.jsoninput import loads as bounded_loads

TEXTS = [
    '{"tool_name": "Bash", "tool_input": {"command": "ls -la"}}',
    '  \n\t{"a": [1, -2, 3.5e10, -0.0, true, false, null]}\r\n ',
    '"just a string"',
    "17",
    "-1.5E-3",
    "[]",
    "{}",
    '{"a": 1, "a": 2}',
    '{"\\u00e9\\ud83d\\ude00": "\\n\\t\\"\\\\\\/"}',
    '"\\ud800 lone surrogate"',
    "[NaN, Infinity, -Infinity]",
    "1" * 5000,  # past the interpreter's digit limit: ValueError
    "1" * 4000,
    '{"deep": ' + "[" * 50 + "]" * 50 + "}",
    "[" * 5000 + "]" * 5000,  # RecursionError, as `json.loads`
    "",
    "   ",
    "\ufeff{}",
    "{bad",
    '{"a": 1,}',
    "[1, 2",
    '"unterminated',
    '"control \x01 char"',
    "{} {}",
    "{} x",
    "nul",
    "01",
    "1.",
    "- 1",
    '{"a" 1}',
    "[1 2]",
    "tru",
    "\x00",
    "[\x0b]",
    '{"a": "b"}\u00a0',
    "\u3000[]",
]


def outcome(function: Any, argument: Any) -> tuple[str, Any]:
    try:
        value = function(argument)
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        return (type(error).__name__, str(error))
    return ("value", repr(value))


@pytest.mark.parametrize("text", TEXTS, ids=range(len(TEXTS)))
def test_loads_matches_json(text: str) -> None:
    assert outcome(jsoncodec.loads, text) == outcome(json.loads, text)


@pytest.mark.parametrize(
    "data", [b'{"a": 1}', b"\xff", '{"a": 1}'.encode("utf-16"), bytearray(b"[]")]
)
def test_bytes_are_read_by_json(data: bytes) -> None:
    assert outcome(jsoncodec.loads, data) == outcome(json.loads, data)


def test_malformed_input_raises_json_decode_error() -> None:
    """The C scanner alone raises `SystemError` for some garbage when
    `json.decoder` was never imported; callers catch `ValueError`."""
    for text in ("{bad", '"unterminated', "[1, 2", "{} x", "\ufeff{}", ""):
        with pytest.raises(json.JSONDecodeError):
            jsoncodec.loads(text)


def test_load_reads_a_file() -> None:
    assert jsoncodec.load(io.StringIO('{"k": [1]}')) == {"k": [1]}


def test_bounded_loads_still_refuses_deep_values() -> None:
    with pytest.raises(TooDeep):
        bounded_loads("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    with pytest.raises(TooDeep):
        bounded_loads("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError, match="Expecting"):
        bounded_loads("{")


class Color(enum.StrEnum):
    RED = "red"


class Number(enum.IntEnum):
    ONE = 1


circular: list[Any] = []
circular.append(circular)

VALUES: list[Any] = [
    {"b": 1, "a": [1.5, -0.0, True, None, 'x\u00e9\U0001f600\n"\\'], "c": {"z": {}}},
    "plain",
    "\u2028 and \ud800",
    17,
    10**40,
    1e300,
    float("nan"),
    float("inf"),
    [Color.RED, Number.ONE],
    {Color.RED: 1, 2: "int key", 1.5: "float key", None: "n", True: "t"},
    ("tuple", "too"),
    {(1, 2): "tuple key"},
    {1, 2},
    object(),
    b"bytes",
    circular,
    {"k": [{"deep": [1, [2, [3]]]}]},
]
OPTIONS: list[dict[str, Any]] = [
    {},
    {"sort_keys": True},
    {"separators": (",", ":")},
    {"ensure_ascii": False},
    {"allow_nan": False},
    {"sort_keys": True, "separators": (",", ":"), "ensure_ascii": True, "allow_nan": False},
]


@pytest.mark.parametrize("options", OPTIONS, ids=range(len(OPTIONS)))
@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_dumps_matches_json(value: Any, options: dict[str, Any]) -> None:
    ours = outcome(lambda v: jsoncodec.dumps(v, **options), value)
    theirs = outcome(lambda v: json.dumps(v, **options), value)
    assert ours == theirs


def test_mixed_keys_that_cannot_be_sorted_fail_as_json_does() -> None:
    value = {"a": 1, 2: 2}
    assert outcome(lambda v: jsoncodec.dumps(v, sort_keys=True), value) == outcome(
        lambda v: json.dumps(v, sort_keys=True), value
    )


def test_dump_writes_what_dumps_returns() -> None:
    out = io.StringIO()
    jsoncodec.dump({"b": 1, "a": 2}, out, sort_keys=True, separators=(",", ":"))
    assert out.getvalue() == '{"a":2,"b":1}'


def test_the_logs_canonical_text_is_unchanged() -> None:
    value = {"z": [1, "\u00e9"], "a": {"y": None, "b": 2.5}}
    expected = json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
    )
    assert canonical_json(value) == expected == '{"a":{"b":2.5,"y":null},"z":[1,"\\u00e9"]}'
    with pytest.raises(ValueError, match="Out of range float"):
        canonical_json({"x": math.inf})
