"""Custom value generators, registered per type by the people who know the type.

Type hints say what a value is, not what a good one looks like: an ``int``
that must be a valid port, a class whose constructor wants a parsed config.
A setup module (``Config.setup``, a target's "setup modules") names a
function that makes such values from a random stream, in a module-level
``FUZZ_GENERATORS`` dict, which needs no import from fuzzweb::

    def money(random):
        return Money(random.randrange(10**6), random.choice(["EUR", "USD"]))

    FUZZ_GENERATORS = {Money: money}

or calls :func:`register` (``@register(Money)`` above ``def money``).

The generator runs in the sandboxed child, as the target does. The engine
sends a seed; the reproducer of a finding calls ``money(Random(seed))``, so
it replays exactly. Mutation draws a new seed; shrinking leaves such values
as they are.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

_REGISTRY: dict[Any, Callable[[random.Random], Any]] = {}


def register(hint: Any, generator: Callable[[random.Random], Any] | None = None):
    """Use ``generator(random.Random)`` for every parameter annotated ``hint``.

    Works as a call, ``register(Port, make_port)``, or as a decorator. A later
    registration for the same hint replaces the earlier one.
    """

    def add(function: Callable[[random.Random], Any]):
        if not callable(function):
            raise TypeError(f"a generator must be callable, not {function!r}")
        _REGISTRY[hint] = function
        return function

    return add(generator) if generator is not None else add


def register_module(module) -> None:
    """Register every generator in ``module.FUZZ_GENERATORS``, if it has one."""
    for hint, generator in dict(getattr(module, "FUZZ_GENERATORS", {})).items():
        register(hint, generator)


def lookup(hint: Any) -> Callable[[random.Random], Any] | None:
    """The generator registered for ``hint``, if any."""
    try:
        return _REGISTRY.get(hint)
    except TypeError:  # an unhashable hint cannot have been registered
        return None


def clear() -> None:
    """Forget every registration (for tests)."""
    _REGISTRY.clear()
