"""Turn type hints into plain-data descriptors the parent can generate from.

Runs in the child (it needs the target's real type objects). Descriptors are
small JSON-compatible dicts, so the parent never has to import the target:
``{"t": "list", "of": {"t": "int"}}``.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable
from typing import Any

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


def describe(hint: Any) -> dict:
    """Return the descriptor for ``hint``; raise :class:`UnsupportedHint` if unknown."""
    if hint is Any or hint is inspect.Parameter.empty:
        return {"t": "any"}
    if hint in _SCALARS:
        return {"t": _SCALARS[hint]}
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return {"t": "union", "options": [describe(arg) for arg in args]}
    if origin is typing.Literal:
        if not all(isinstance(v, (int, str, bool, type(None))) for v in args):
            raise UnsupportedHint(f"Literal with non-scalar values: {hint!r}")
        return {"t": "literal", "values": list(args)}
    if hint in _COLLECTIONS:
        return {"t": _COLLECTIONS[hint], "of": {"t": "any"}}
    if origin in _COLLECTIONS:
        return {"t": _COLLECTIONS[origin], "of": describe(args[0])}
    if hint is dict:
        return {"t": "dict", "key": {"t": "str"}, "value": {"t": "any"}}
    if origin is dict:
        return {"t": "dict", "key": describe(args[0]), "value": describe(args[1])}
    if hint is tuple:
        return {"t": "tuple", "of": {"t": "any"}}
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return {"t": "tuple", "of": describe(args[0])}
        if args == ((),):
            return {"t": "tuple", "items": []}
        return {"t": "tuple", "items": [describe(arg) for arg in args]}
    raise UnsupportedHint(f"unsupported type hint: {hint!r}")


def describe_function(function: Callable) -> list[dict]:
    """Describe each positional parameter of ``function``.

    Parameters with defaults are fuzzed too: defaults are where maintainers
    forget edge cases. ``*args`` and ``**kwargs`` are left empty.
    """
    hints = typing.get_type_hints(function)
    parameters = []
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        if parameter.kind is parameter.KEYWORD_ONLY and parameter.default is not parameter.empty:
            continue
        descriptor = describe(hints.get(parameter.name, inspect.Parameter.empty))
        keyword = parameter.kind is parameter.KEYWORD_ONLY
        parameters.append({"name": parameter.name, "type": descriptor, "keyword": keyword})
    return parameters
