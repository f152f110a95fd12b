"""Turn type hints into plain-data descriptors the parent can generate from.

Runs in the child (it needs the target's real type objects). Descriptors are
small JSON-compatible dicts, so the parent never has to import the target:
``{"t": "list", "of": {"t": "int"}}``.
"""

from __future__ import annotations

import ast
import collections.abc
import dataclasses
import datetime
import decimal
import enum
import fractions
import inspect
import sys
import types
import typing
from collections.abc import Callable
from typing import Any

from engines.pyfunc import generators

_SCALARS: dict[Any, str] = {
    int: "int",
    float: "float",
    bool: "bool",
    str: "str",
    bytes: "bytes",
    type(None): "none",
    None: "none",
}
_COLLECTIONS = {list: "list", set: "set", frozenset: "frozenset"}
# Abstract collection types take their plainest concrete value: code that
# accepts any Iterable must accept a list.
_ABSTRACT = {
    collections.abc.Iterable: "list",
    collections.abc.Collection: "list",
    collections.abc.Sequence: "list",
    collections.abc.MutableSequence: "list",
    collections.abc.Reversible: "list",
    collections.abc.Set: "set",
    collections.abc.MutableSet: "set",
}
_MAPPINGS = (collections.abc.Mapping, collections.abc.MutableMapping)


def _int_range(low: int, high: int) -> dict:
    return {"t": "int", "min": low, "max": high}


def _field(name: str, descriptor: dict) -> dict:
    return {"name": name, "type": descriptor, "keyword": False}


# Standard library value types whose constructors cannot be introspected:
# built from fields in their valid ranges, shown as ``date(2024, 2, 28)``.
_STDLIB_BUILDS = {
    datetime.date: [_field("year", _int_range(1, 9999)), _field("month", _int_range(1, 12)),
                    _field("day", _int_range(1, 28))],
    datetime.time: [_field("hour", _int_range(0, 23)), _field("minute", _int_range(0, 59)),
                    _field("second", _int_range(0, 59)), _field("microsecond", _int_range(0, 999_999))],
    datetime.timedelta: [_field("days", _int_range(-999_999_999, 999_999_999)),
                         _field("seconds", _int_range(0, 86_399)),
                         _field("microseconds", _int_range(0, 999_999))],
    fractions.Fraction: [_field("numerator", {"t": "int"}), _field("denominator", _int_range(1, 2**64))],
    decimal.Decimal: [_field("value", {"t": "union", "options": [{"t": "int"}, {"t": "float"}]})],
}  # fmt: skip
_STDLIB_BUILDS[datetime.datetime] = _STDLIB_BUILDS[datetime.date] + _STDLIB_BUILDS[datetime.time]


class UnsupportedHint(Exception):
    """A hint no value can be generated for; the message says which."""


MAX_ENUM_MEMBERS = 500


def _path(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def describe(hint: Any, building: frozenset = frozenset()) -> dict:
    """Return the descriptor for ``hint``; raise :class:`UnsupportedHint` if unknown.

    ``building`` holds the classes being described further up: a class that
    contains itself (a tree node) becomes a ``recursive`` leaf, generated as
    None or left out of its collections, so values stay finite.
    """
    generator = generators.lookup(hint)
    if generator is not None:
        return {"t": "custom", "generator": _path(generator)}
    if hint is Any or hint is inspect.Parameter.empty:
        return {"t": "any"}
    if hint in _SCALARS:
        return {"t": _SCALARS[hint]}
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return {"t": "union", "options": [describe(arg, building) for arg in args]}
    if origin is typing.Literal:
        if not all(isinstance(v, (int, str, bool, type(None))) for v in args):
            raise UnsupportedHint(f"Literal with non-scalar values: {hint!r}")
        return {"t": "literal", "values": list(args)}
    if hint in _STDLIB_BUILDS:
        return {"t": "build", "class": _path(hint), "parameters": _STDLIB_BUILDS[hint]}
    if hint in _COLLECTIONS or hint in _ABSTRACT:
        return {"t": _COLLECTIONS.get(hint) or _ABSTRACT[hint], "of": {"t": "any"}}
    if origin in _ABSTRACT:
        return {"t": _ABSTRACT[origin], "of": describe(args[0], building) if args else {"t": "any"}}
    if hint in _MAPPINGS:
        return {"t": "dict", "key": {"t": "str"}, "value": {"t": "any"}}
    if origin in _MAPPINGS:
        return {"t": "dict", "key": describe(args[0], building), "value": describe(args[1], building)}
    if origin in _COLLECTIONS:
        return {"t": _COLLECTIONS[origin], "of": describe(args[0], building)}
    if hint is dict:
        return {"t": "dict", "key": {"t": "str"}, "value": {"t": "any"}}
    if origin is dict:
        return {"t": "dict", "key": describe(args[0], building), "value": describe(args[1], building)}
    if hint is tuple:
        return {"t": "tuple", "of": {"t": "any"}}
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return {"t": "tuple", "of": describe(args[0], building)}
        if args == ((),):
            return {"t": "tuple", "items": []}
        return {"t": "tuple", "items": [describe(arg, building) for arg in args]}
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        members = list(hint.__members__)[:MAX_ENUM_MEMBERS]
        if not members:
            raise UnsupportedHint(f"enum {hint.__qualname__} has no members")
        return {"t": "enum", "class": _path(hint), "members": members}
    if typing.is_typeddict(hint):
        hints = typing.get_type_hints(hint)
        return {
            "t": "typeddict",
            "fields": {name: describe(field, building) for name, field in hints.items()},
            "required": sorted(getattr(hint, "__required_keys__", hints)),
        }
    if isinstance(hint, type) and hint.__module__ != "builtins":
        # Dataclasses, NamedTuples and classes with an annotated __init__:
        # built by calling the class with values for its parameters.
        if hint in building:
            return {"t": "recursive", "class": _path(hint)}
        try:
            parameters = describe_function(hint, building | {hint})
        except (UnsupportedHint, NameError, TypeError, ValueError) as error:
            raise UnsupportedHint(f"cannot build {hint.__qualname__}: {error}") from None
        return {"t": "build", "class": _path(hint), "parameters": parameters}
    raise UnsupportedHint(f"unsupported type hint: {hint!r}")


def describe_function(function: Callable, building: frozenset = frozenset()) -> list[dict]:
    """Describe each positional parameter of ``function``.

    Parameters with defaults are fuzzed too: defaults are where maintainers
    forget edge cases. ``*args`` and ``**kwargs`` are left empty.
    """
    target = function.__init__ if isinstance(function, type) and not _is_generated(function) else function
    hints = type_hints(target) if target is not object.__init__ else {}
    if isinstance(function, type) and not hints:
        hints = type_hints(function)  # NamedTuple, dataclass: the class's annotations
    parameters = []
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        if parameter.kind is parameter.KEYWORD_ONLY and parameter.default is not parameter.empty:
            continue
        descriptor = describe(hints.get(parameter.name, inspect.Parameter.empty), building)
        keyword = parameter.kind is parameter.KEYWORD_ONLY
        entry = {"name": parameter.name, "type": descriptor, "keyword": keyword}
        if _plain(parameter.default):
            # Kept half of the time: a default is the path most callers take,
            # and a random ``unit="x@"`` would stop every call at its first line.
            entry["default"] = parameter.default
        parameters.append(entry)
    return parameters


def _plain(value) -> bool:
    """A default that travels as JSON and means the same on the other side."""
    if value is None or isinstance(value, (bool, str)):
        return True
    return type(value) in (int, float) and value == value and abs(value) != float("inf")


def type_hints(obj) -> dict:
    """``typing.get_type_hints``, also for names imported only for type checkers.

    Typed libraries often import what their annotations name under ``if
    TYPE_CHECKING:`` (with ``from __future__ import annotations``), so those
    names do not exist at run time and the plain lookup fails. Those
    statements are run once more here, in a copy of the module's namespace.
    """
    try:
        return typing.get_type_hints(obj)
    except NameError:
        module = sys.modules.get(getattr(obj, "__module__", None) or "")
        if module is None:
            raise
        return typing.get_type_hints(obj, localns=_type_checking_namespace(module))


_NAMESPACES: dict[str, dict] = {}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _type_checking_namespace(module) -> dict:
    if module.__name__ in _NAMESPACES:
        return _NAMESPACES[module.__name__]
    namespace = dict(vars(module))
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError, SyntaxError):
        tree = ast.Module(body=[], type_ignores=[])
    for node in ast.walk(tree):
        if not (isinstance(node, ast.If) and _is_type_checking(node.test)):
            continue
        for statement in node.body:
            if isinstance(statement, (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign)):
                code = compile(ast.Module(body=[statement], type_ignores=[]), module.__file__ or "<module>", "exec")
                try:
                    exec(code, namespace)  # noqa: S102 - the target's own import lines, in its sandbox
                except Exception:  # noqa: BLE001, S112 - a name stays unknown; its hint is then reported
                    continue
    _NAMESPACES[module.__name__] = namespace
    return namespace


def _is_generated(cls: type) -> bool:
    # A dataclass's or NamedTuple's __init__/__new__ is generated from the
    # class annotations, which are the ones to read.
    return dataclasses.is_dataclass(cls) or (issubclass(cls, tuple) and hasattr(cls, "_fields"))
