"""Values from type hints: every supported type, edge values, the target's own types."""

from __future__ import annotations

import math
import typing
from typing import Any, Literal, Optional, Union

import pytest

from engines.pyfunc.hints import UnsupportedHint, describe, describe_function
from engines.pyfunc.refs import materialize
from engines.pyfunc.values import ValueGenerator, imports, to_source
from tests.targets import shapes

SAMPLES = 300


def _values(hint, seed: int = 0) -> list:
    generator = ValueGenerator(seed)
    descriptor = describe(hint)
    return [materialize(generator.generate(descriptor)) for _ in range(SAMPLES)]


@pytest.mark.parametrize(
    ("hint", "check"),
    [
        (int, lambda v: type(v) is int),
        (float, lambda v: type(v) is float),
        (bool, lambda v: type(v) is bool),
        (str, lambda v: type(v) is str),
        (bytes, lambda v: type(v) is bytes),
        (type(None), lambda v: v is None),
        (list[int], lambda v: type(v) is list and all(type(i) is int for i in v)),
        (tuple[int, str], lambda v: type(v) is tuple and len(v) == 2 and type(v[1]) is str),
        (tuple[bytes, ...], lambda v: type(v) is tuple and all(type(i) is bytes for i in v)),
        (set[str], lambda v: type(v) is set and all(type(i) is str for i in v)),
        (frozenset[int], lambda v: type(v) is frozenset),
        (dict[str, list[float]], lambda v: type(v) is dict and all(type(x) is list for x in v.values())),
        (Optional[int], lambda v: v is None or type(v) is int),  # noqa: UP045 - the old spelling is supported too
        (Union[int, str], lambda v: type(v) in (int, str)),  # noqa: UP007
        (int | None, lambda v: v is None or type(v) is int),
        (Literal["a", 3, None], lambda v: v in ("a", 3, None)),
        (shapes.Color, lambda v: isinstance(v, shapes.Color)),
        (shapes.Point, lambda v: isinstance(v, shapes.Point) and type(v.x) is int),
        (shapes.Size, lambda v: isinstance(v, shapes.Size) and type(v.width) is float),
        (shapes.Style, lambda v: type(v) is dict and set(v) <= {"color", "border"}),
        (shapes.Canvas, lambda v: isinstance(v, shapes.Canvas) and isinstance(v.size, shapes.Size)),
        (shapes.Node, lambda v: isinstance(v, shapes.Node) and v.children == []),
        (Any, lambda v: True),
    ],
    ids=lambda x: getattr(x, "__name__", str(x)) if not callable(x) or isinstance(x, type) else "",
)
def test_every_supported_type_is_generated(hint, check):
    values = _values(hint)
    assert all(check(v) for v in values), [v for v in values if not check(v)][:3]
    # Not one value over and over (None has only one).
    assert len({repr(v) for v in values}) >= (1 if hint is type(None) else 2)


def test_edge_values_are_weighted_in():
    ints = _values(int)
    floats = _values(float)
    strings = _values(str)
    assert 0 in ints and any(abs(v) >= 2**31 for v in ints)
    assert any(math.isnan(v) for v in floats) and math.inf in floats and -math.inf in floats
    assert any(0 < abs(v) < 1e-300 for v in floats)  # subnormals
    assert "" in strings and any(len(s) >= 1000 for s in strings)
    assert any(ord(c) > 0xFFFF for s in strings for c in s)  # emoji
    assert not any("\ud800" <= c <= "\udfff" for s in strings for c in s)  # no lone surrogates


def test_unsupported_types_are_reported_with_a_reason():
    with pytest.raises(UnsupportedHint, match="Callable"):
        describe(typing.Callable[[int], int])


def test_class_parameters_come_from_init_dataclass_and_namedtuple_annotations():
    names = [p["name"] for p in describe_function(shapes.paint)]
    assert names == ["color", "at", "style"]
    assert describe(shapes.Point)["parameters"][0] == {"name": "x", "type": {"t": "int"}, "keyword": False}
    canvas = describe(shapes.Canvas)["parameters"]
    assert [p["name"] for p in canvas] == ["size", "title"]


def test_own_types_render_as_source_with_their_imports():
    generator = ValueGenerator(3)
    value = generator.generate(describe(shapes.Canvas))
    source = to_source(value)
    assert source.startswith("Canvas(Size(")
    assert imports(value) == {("tests.targets.shapes", "Canvas"), ("tests.targets.shapes", "Size")}
    namespace = {"Canvas": shapes.Canvas, "Size": shapes.Size}
    rebuilt = eval(source, namespace)  # noqa: S307 - our own generated source
    assert isinstance(rebuilt, shapes.Canvas)


def test_return_values_are_checked_against_the_declared_type():
    from engines.pyfunc.returns import conforms

    assert conforms(3, float) and not conforms(True, int) and not conforms(None, int)
    assert conforms([1, 2], list[int]) and not conforms([1, "a"], list[int])
    assert conforms({"a": 1}, dict[str, int]) and not conforms({1: 1}, dict[str, int])
    assert conforms((1, "a"), tuple[int, str]) and not conforms((1,), tuple[int, str])
    assert conforms(None, Optional[int]) and conforms(shapes.Color.RED, shapes.Color)  # noqa: UP045
    assert not conforms("red", shapes.Color) and conforms(shapes.Point(1, 2), shapes.Point)
    assert conforms(object(), Any)


def test_stdlib_value_types_and_abstract_collections_are_described():
    import collections.abc
    import datetime
    import fractions

    from engines.pyfunc.hints import describe
    from engines.pyfunc.mutate import Mutator, shrink_candidates
    from engines.pyfunc.refs import materialize
    from engines.pyfunc.values import ValueGenerator

    assert describe(collections.abc.Sequence[int]) == {"t": "list", "of": {"t": "int"}}
    assert describe(collections.abc.Mapping[str, float])["t"] == "dict"
    generator = ValueGenerator(4)
    mutator = Mutator(generator)
    for cls in (datetime.date, datetime.datetime, datetime.time, datetime.timedelta, fractions.Fraction):
        descriptor = describe(cls)
        for _ in range(300):
            value = generator.generate(descriptor)
            # Every drawn, mutated or shrunk value is a valid one: no ValueError from the constructor.
            assert isinstance(materialize(value), cls)
            assert isinstance(materialize(mutator.mutate(value, descriptor)), cls)
            for simpler in list(shrink_candidates(value, descriptor))[:20]:
                assert isinstance(materialize(simpler), cls)
