"""`redline.fasttuple.NamedTuple` behaves as `typing.NamedTuple` does."""

from __future__ import annotations

import copy
import importlib
import pickle
import pkgutil
import typing
from typing import Any

import pytest

import redline
from redline import fasttuple
from redline.decision import RuleHit, Span
from redline.fasttuple import NamedTuple


class Fast(NamedTuple):
    """A point with a label."""

    x: int
    y: int = 0
    label: str = "p"

    def total(self) -> int:
        return self.x + self.y

    @property
    def doubled(self) -> int:
        return 2 * self.x

    KIND = "point"  # a plain class attribute, not a field


class Slow(typing.NamedTuple):
    x: int
    y: int = 0
    label: str = "p"


def outcome(make: Any) -> Any:
    try:
        return make()
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        return type(error).__name__, str(error).replace("Slow", "Fast")


@pytest.mark.parametrize(
    "build",
    [
        lambda cls: cls(1),
        lambda cls: cls(1, 2, "q"),
        lambda cls: cls(x=1, label="z"),
        lambda cls: cls(),
        lambda cls: cls(1, 2, "q", 4),
        lambda cls: cls(1, x=2),
        lambda cls: cls(1, nope=2),
        lambda cls: cls._make([1, 2, "r"]),
        lambda cls: cls._make([1]),
        lambda cls: cls(1)._replace(y=5),
        lambda cls: cls(1)._replace(nope=5),
        lambda cls: cls(1)._asdict(),
        lambda cls: cls(3, 4) == (3, 4, "p"),
        lambda cls: hash(cls(3, 4)) == hash((3, 4, "p")),
        lambda cls: cls(3, 4) < cls(3, 5),
        lambda cls: tuple(cls(3, 4)),
        lambda cls: cls(3, 4)[1],
        lambda cls: cls._fields,
        lambda cls: cls._field_defaults,
        lambda cls: cls.__match_args__,
        lambda cls: cls(1).__getnewargs__(),
        lambda cls: repr(cls(1, 2)).replace("Slow", "Fast"),
        lambda cls: cls.__new__.__doc__.replace("Slow", "Fast"),
        lambda cls: cls.x.__doc__,
    ],
)
def test_behaves_as_typing_namedtuple(build: Any) -> None:
    assert outcome(lambda: build(Fast)) == outcome(lambda: build(Slow))


def test_is_an_immutable_slotted_tuple_with_its_methods() -> None:
    point = Fast(2, 3)
    assert isinstance(point, tuple)
    assert point.total() == 5 and point.doubled == 4 and Fast.KIND == "point"
    assert Fast.__doc__ == "A point with a label."
    assert not hasattr(point, "__dict__")
    with pytest.raises(AttributeError):
        point.x = 9  # type: ignore[misc]
    with pytest.raises(AttributeError):
        point.other = 1  # type: ignore[attr-defined]
    match point:
        case Fast(x, y):
            assert (x, y) == (2, 3)


def test_pickles_and_copies() -> None:
    hit = RuleHit("fs.rm-recursive", Span(0, 5), "why", "repair")
    assert pickle.loads(pickle.dumps(hit)) == hit  # noqa: S301 - our own bytes
    assert copy.deepcopy(hit) == hit and copy.copy(hit) == hit
    assert type(pickle.loads(pickle.dumps(hit))) is RuleHit  # noqa: S301 - our own bytes


def test_refuses_what_typing_refuses() -> None:
    with pytest.raises(TypeError, match="cannot follow default field"):

        class _Order(NamedTuple):
            a: int = 0
            b: int  # type: ignore[misc]

    with pytest.raises(ValueError, match="underscore"):

        class _Private(NamedTuple):
            _a: int  # type: ignore[misc]

    with pytest.raises(AttributeError, match="Cannot overwrite"):

        class _Own(NamedTuple):
            a: int

            def _replace(self) -> None:  # type: ignore[override]
                pass


def test_annotations_are_kept_unevaluated() -> None:
    # A module with `from __future__ import annotations` gives strings; they
    # are never resolved, so a name only imported for type checking is fine.
    assert Fast.__annotations__ == {"x": "int", "y": "int", "label": "str"}


def is_fast(cls: type) -> bool:
    return bool(cls.__new__.__globals__ is fasttuple._NEW_GLOBALS)


def test_every_named_tuple_in_redline_is_the_fast_kind() -> None:
    # A module importing `typing.NamedTuple` by mistake would cost the hook's
    # start ~120 µs per class (ADR 0002).
    assert not is_fast(Slow) and is_fast(Fast) and is_fast(RuleHit)
    slow = []
    for info in pkgutil.walk_packages(redline.__path__, "redline."):
        if info.name.startswith(("redline.approve", "redline.cli.serve")):
            continue  # the service may use anything: it starts once
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, tuple)
                and hasattr(value, "_fields")
                and value.__module__ == info.name
                and not is_fast(value)
            ):
                slow.append(f"{info.name}.{value.__name__}")
    assert slow == []
