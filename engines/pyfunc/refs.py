"""Stand-ins for values of the target's own types, built in the child.

The parent never imports the target, so it cannot make an Enum member or a
dataclass instance itself. It sends these instead, and the child turns them
into the real thing (:func:`materialize`) just before the call.
"""

from __future__ import annotations

import importlib
import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Member:
    """An Enum member: ``Color.RED`` is ``Member("shapes:Color", "RED")``."""

    cls: str
    name: str


@dataclass(frozen=True)
class Build:
    """An instance made by calling its class: ``Build("shapes:Point", (1, 2), ())``."""

    cls: str
    args: tuple
    kwargs: tuple  # (name, value) pairs, so that Build stays hashable


@dataclass(frozen=True)
class Generated:
    """A value from a registered generator: ``money(Random(seed))``."""

    generator: str
    seed: int


def split(path: str) -> tuple[str, str]:
    module, _, qualname = path.partition(":")
    return module, qualname


def resolve(path: str):
    """The class named ``module:Qual.Name``."""
    module, qualname = split(path)
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


class ConstructionFailed(Exception):
    """Building an argument failed: the class's constructor (``cls``, ``module:Qual``) raised ``__cause__``."""

    def __init__(self, cls: str):
        super().__init__(cls)
        self.cls = cls


def materialize(value):
    """``value`` with every stand-in replaced by the real object (child side)."""
    if isinstance(value, Member):
        return getattr(resolve(value.cls), value.name)
    if isinstance(value, Generated):
        return resolve(value.generator)(random.Random(value.seed))
    if isinstance(value, Build):
        args = [materialize(a) for a in value.args]
        kwargs = {k: materialize(v) for k, v in value.kwargs}
        try:
            return resolve(value.cls)(*args, **kwargs)
        except Exception as error:
            raise ConstructionFailed(value.cls) from error
    if isinstance(value, list):
        return [materialize(v) for v in value]
    if isinstance(value, tuple):
        return tuple(materialize(v) for v in value)
    if isinstance(value, dict):
        return {materialize(k): materialize(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return type(value)(materialize(v) for v in value)
    return value
