"""Turn type hints into plain-data descriptors the parent can generate from.

Runs in the child (it needs the target's real type objects). Descriptors are
small JSON-compatible dicts, so the parent never has to import the target:
``{"t": "list", "of": {"t": "int"}}``.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
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
    if hint in _COLLECTIONS:
        return {"t": _COLLECTIONS[hint], "of": {"t": "any"}}
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
    hints = typing.get_type_hints(target) if target is not object.__init__ else {}
    if isinstance(function, type) and not hints:
        hints = typing.get_type_hints(function)  # NamedTuple, dataclass: the class's annotations
    parameters = []
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        if parameter.kind is parameter.KEYWORD_ONLY and parameter.default is not parameter.empty:
            continue
        descriptor = describe(hints.get(parameter.name, inspect.Parameter.empty), building)
        keyword = parameter.kind is parameter.KEYWORD_ONLY
        parameters.append({"name": parameter.name, "type": descriptor, "keyword": keyword})
    return parameters


def _is_generated(cls: type) -> bool:
    # A dataclass's or NamedTuple's __init__/__new__ is generated from the
    # class annotations, which are the ones to read.
    return dataclasses.is_dataclass(cls) or (issubclass(cls, tuple) and hasattr(cls, "_fields"))
