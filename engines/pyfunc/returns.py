"""Does a returned value match the function's declared return type? (child side)

A function annotated ``-> int`` that returns None on some input has a bug
as real as a crash, and a quieter one. Checked structurally for the types
the engine generates, shallowly (the first items) for large collections;
anything it cannot judge passes.
"""

from __future__ import annotations

import types
import typing
from typing import Any

from engines.pyfunc.hints import type_hints

_SAMPLE = 20


def conforms(value, hint) -> bool:
    """True if ``value`` fits ``hint``, or if the hint is beyond what is checked."""
    if hint is Any or hint is typing.NoReturn:
        return True
    if hint is None or hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)  # int is a float (PEP 484)
    if hint is complex:
        return isinstance(value, (int, float, complex)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(conforms(value, arg) for arg in args)
    if origin is typing.Literal:
        return value in args
    if origin in (list, set, frozenset):
        return isinstance(value, origin) and all(conforms(v, args[0]) for v in list(value)[:_SAMPLE])
    if origin is dict:
        return isinstance(value, dict) and all(
            conforms(k, args[0]) and conforms(v, args[1]) for k, v in list(value.items())[:_SAMPLE]
        )
    if origin is tuple:
        if not isinstance(value, tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(conforms(v, args[0]) for v in value[:_SAMPLE])
        if args == ((),):
            return value == ()
        return len(value) == len(args) and all(conforms(v, a) for v, a in zip(value, args, strict=True))
    if typing.is_typeddict(hint):
        return isinstance(value, dict)  # a TypedDict is a plain dict at run time
    if isinstance(hint, type):
        return isinstance(value, hint)
    return True


def return_hint(function):
    """The declared return type, or None when there is none (or it cannot be read)."""
    try:
        hints = type_hints(function)
    except Exception:  # noqa: BLE001 - a broken annotation is not the target's bug to report here
        return None
    return hints.get("return")


def describe_type(hint) -> str:
    return getattr(hint, "__qualname__", None) or repr(hint).replace("typing.", "")
