"""`NamedTuple` classes built without compiling code per class (ADR 0002).

`typing.NamedTuple` builds each class through `collections.namedtuple`, which
compiles a `__new__` from source with `eval`, and type-checks every
annotation: about 120 µs a class, and a hook process defines ~50 of them
before its first decision (~8 ms of a cold start). This builds the same
kind of class, a slotted tuple subclass with the same attributes, methods
and errors, but compiles a `__new__` only once per number of fields and
renames its parameters for each class. Annotations are kept as written and
never evaluated.

Write classes exactly as with `typing.NamedTuple`, importing it from here;
type checkers see `typing.NamedTuple` itself.
"""

from __future__ import annotations

from types import CodeType, FunctionType

# Not `typing.TYPE_CHECKING`: this module must not import `typing` at run time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

try:  # CPython's C field accessor; a property over itemgetter elsewhere
    from _collections import _tuplegetter  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - other interpreters
    from operator import itemgetter

    def _tuplegetter(index: int, doc: str) -> Any:
        return property(itemgetter(index), doc=doc)


__all__ = ["NamedTuple"]

# Names a NamedTuple class may not define (as `typing.NamedTuple` refuses them).
_PROHIBITED = frozenset(
    {"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults",
     "_make", "_replace", "_asdict", "_source"}
)  # fmt: skip
_NOT_COPIED = frozenset({"__annotations__", "__module__", "__qualname__", "__dict__"})
_NEW_GLOBALS: dict[str, Any] = {"_tuple_new": tuple.__new__, "__builtins__": {}}
_NEW_TEMPLATES: dict[int, CodeType] = {}


# `__new__` for 0 to 20 fields, written out: no class needs a compile at run
# time (a wider one compiles its own, once per width).
_tuple_new = tuple.__new__
_WRITTEN: tuple[Any, ...] = (
    lambda _cls: _tuple_new(_cls, ()),
    lambda _cls, f0: _tuple_new(_cls, (f0,)),
    lambda _cls, f0, f1: _tuple_new(_cls, (f0, f1)),
    lambda _cls, f0, f1, f2: _tuple_new(_cls, (f0, f1, f2)),
    lambda _cls, f0, f1, f2, f3: _tuple_new(_cls, (f0, f1, f2, f3)),
    lambda _cls, f0, f1, f2, f3, f4: _tuple_new(_cls, (f0, f1, f2, f3, f4)),
    lambda _cls, f0, f1, f2, f3, f4, f5: _tuple_new(_cls, (f0, f1, f2, f3, f4, f5)),
    lambda _cls, f0, f1, f2, f3, f4, f5, f6: _tuple_new(_cls, (f0, f1, f2, f3, f4, f5, f6)),
    lambda _cls, f0, f1, f2, f3, f4, f5, f6, f7: _tuple_new(_cls, (f0, f1, f2, f3, f4, f5, f6, f7)),
    lambda _cls, f0, f1, f2, f3, f4, f5, f6, f7, f8: _tuple_new(_cls, (f0, f1, f2, f3, f4, f5, f6, f7, f8)),  # noqa: E501
    lambda _cls, f0, f1, f2, f3, f4, f5, f6, f7, f8, f9: _tuple_new(_cls, (f0, f1, f2, f3, f4, f5, f6, f7, f8, f9)),  # noqa: E501
    lambda _cls, f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10: _tuple_new(_cls, (f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10)),  # noqa: E501
    lambda _cls, f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11: _tuple_new(_cls, (f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11)),  # noqa: E501
    lambda _cls, f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12: _tuple_new(_cls, (f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12)),  # noqa: E501
    lambda _cls, f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13: _tuple_new(_cls, (f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13)),  # noqa: E501
    lambda _cls, f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14: _tuple_new(_cls, (f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14)),  # noqa: E501
    lambda _cls, f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15: _tuple_new(_cls, (f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15)),  # noqa: E501
    lambda _cls, f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16: _tuple_new(_cls, (f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16)),  # noqa: E501
    lambda _cls, f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17: _tuple_new(_cls, (f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17)),  # noqa: E501
    lambda _cls, f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17, f18: _tuple_new(_cls, (f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17, f18)),  # noqa: E501
    lambda _cls, f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17, f18, f19: _tuple_new(_cls, (f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17, f18, f19)),  # noqa: E501
)  # fmt: skip


def _new_template(arity: int) -> CodeType:
    """A `__new__(_cls, f0, ..., fN)` that builds the tuple."""
    if arity < len(_WRITTEN):
        written: CodeType = _WRITTEN[arity].__code__
        return written
    code = _NEW_TEMPLATES.get(arity)
    if code is None:
        params = ", ".join(f"f{i}" for i in range(arity))
        source = f"lambda _cls, {params}: _tuple_new(_cls, ({params},))"
        code = eval(source, _NEW_GLOBALS).__code__  # noqa: S307 - our own fixed source
        _NEW_TEMPLATES[arity] = code
    return code


def _make_new(typename: str, fields: tuple[str, ...], defaults: tuple[Any, ...]) -> Any:
    code = _new_template(len(fields)).replace(
        co_varnames=("_cls", *fields), co_name="__new__", co_qualname=f"{typename}.__new__"
    )
    new = FunctionType(code, _NEW_GLOBALS, "__new__", defaults or None)
    new.__doc__ = f"Create new instance of {typename}({', '.join(fields)})"
    return staticmethod(new)


def _repr(self: tuple[Any, ...]) -> str:
    fields: tuple[str, ...] = self._fields  # type: ignore[attr-defined]
    body = ", ".join(f"{name}={value!r}" for name, value in zip(fields, self, strict=True))
    return f"{type(self).__name__}({body})"


def _asdict(self: tuple[Any, ...]) -> dict[str, Any]:
    return dict(zip(self._fields, self, strict=True))  # type: ignore[attr-defined]


def _make(cls: type[tuple[Any, ...]], iterable: Any) -> tuple[Any, ...]:
    result = tuple.__new__(cls, iterable)
    expected = len(cls._fields)  # type: ignore[attr-defined]
    if len(result) != expected:
        raise TypeError(f"Expected {expected} arguments, got {len(result)}")
    return result


def _replace(self: tuple[Any, ...], /, **changes: Any) -> tuple[Any, ...]:
    make = self._make  # type: ignore[attr-defined]
    result: tuple[Any, ...] = make(map(changes.pop, self._fields, self))  # type: ignore[attr-defined]
    if changes:
        raise ValueError(f"Got unexpected field names: {list(changes)!r}")
    return result


def _getnewargs(self: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(self)


def _build(typename: str, namespace: dict[str, Any]) -> type:
    annotations: dict[str, Any] = namespace.get("__annotations__", {})
    fields = tuple(annotations)
    defaults: list[Any] = []
    for name in fields:
        if name.startswith("_"):
            raise ValueError(f"Field names cannot start with an underscore: {name!r}")
        if name in namespace:
            defaults.append(namespace[name])
        elif defaults:
            raise TypeError(
                f"Non-default namedtuple field {name} cannot follow default field"
                f"{'s' if len(defaults) > 1 else ''} {', '.join(fields[: fields.index(name)])}"
            )
    attrs: dict[str, Any] = {
        "__slots__": (),
        "__module__": namespace.get("__module__", __name__),
        "__qualname__": namespace.get("__qualname__", typename),
        "__annotations__": annotations,
        "__doc__": f"{typename}({', '.join(fields)})",
        "_fields": fields,
        "_field_defaults": dict(zip(fields[len(fields) - len(defaults) :], defaults, strict=True)),
        "__match_args__": fields,
        "__new__": _make_new(typename, fields, tuple(defaults)),
        "_make": classmethod(_make),
        "_replace": _replace,
        "_asdict": _asdict,
        "__repr__": _repr,
        "__getnewargs__": _getnewargs,
    }
    for index, name in enumerate(fields):
        attrs[name] = _tuplegetter(index, f"Alias for field number {index}")
    for key, value in namespace.items():
        if key in _PROHIBITED:
            raise AttributeError(f"Cannot overwrite NamedTuple attribute {key}")
        if key not in _NOT_COPIED and key not in annotations:
            attrs[key] = value
    return type(typename, (tuple,), attrs)


class _NamedTupleMeta(type):
    def __new__(mcs, typename: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> Any:
        if bases != (_NamedTupleBase,):
            raise TypeError("a NamedTuple class can only have NamedTuple as its base")
        return _build(typename, namespace)


_NamedTupleBase = type.__new__(_NamedTupleMeta, "NamedTuple", (), {})

if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    NamedTuple = _NamedTupleBase
