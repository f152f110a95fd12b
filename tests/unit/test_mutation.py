"""Structural mutation keeps types; shrinking goes toward the simplest value; checkpoints round-trip."""

from __future__ import annotations

import pytest

from engines.pyfunc.mutate import Mutator, shrink_candidates
from engines.pyfunc.state import decode, encode
from engines.pyfunc.values import ValueGenerator

DESCRIPTORS = [
    {"t": "int"},
    {"t": "float"},
    {"t": "bool"},
    {"t": "str"},
    {"t": "bytes"},
    {"t": "list", "of": {"t": "int"}},
    {"t": "tuple", "items": [{"t": "int"}, {"t": "str"}]},
    {"t": "tuple", "of": {"t": "bytes"}},
    {"t": "dict", "key": {"t": "str"}, "value": {"t": "list", "of": {"t": "float"}}},
    {"t": "union", "options": [{"t": "int"}, {"t": "none"}]},
]
TYPES = {"int": int, "float": float, "bool": bool, "str": str, "bytes": bytes, "list": list, "tuple": tuple,
         "dict": dict}  # fmt: skip


@pytest.mark.parametrize("descriptor", DESCRIPTORS, ids=lambda d: d["t"])
def test_mutants_keep_their_type(descriptor):
    values = ValueGenerator(7)
    mutator = Mutator(values)
    value = values.generate(descriptor)
    for _ in range(300):
        value = mutator.mutate(value, descriptor)
        if descriptor["t"] == "union":
            assert value is None or (isinstance(value, int) and not isinstance(value, bool))
        else:
            assert type(value) is TYPES[descriptor["t"]]
        if descriptor["t"] == "tuple" and "items" in descriptor:
            assert isinstance(value[0], int) and isinstance(value[1], str)


def test_mutation_does_not_change_the_original():
    mutator = Mutator(ValueGenerator(1))
    original = {"a": [1.0, 2.0]}
    for _ in range(100):
        mutator.mutate(original, DESCRIPTORS[8])
    assert original == {"a": [1.0, 2.0]}


def test_shrinking_goes_toward_the_simplest_value_first():
    assert next(shrink_candidates(1234, {"t": "int"})) == 0
    assert list(shrink_candidates(0, {"t": "int"})) == []
    assert next(shrink_candidates("hello", {"t": "str"})) == ""
    assert next(shrink_candidates([5, 6, 7], {"t": "list", "of": {"t": "int"}})) == []
    assert next(shrink_candidates({"k": 1}, {"t": "dict", "key": {"t": "str"}, "value": {"t": "int"}})) == {}
    assert next(shrink_candidates(7, {"t": "union", "options": [{"t": "int"}, {"t": "none"}]})) is None
    assert next(shrink_candidates(True, {"t": "bool"})) is False
    assert next(shrink_candidates(2.5, {"t": "float"})) == 0.0
    # Fixed-size tuples keep their size; only their items shrink.
    assert all(len(c) == 2 for c in shrink_candidates((3, "ab"), DESCRIPTORS[6]))


def test_checkpointed_values_come_back_identical():

    values = ValueGenerator(5)
    for descriptor in DESCRIPTORS * 20:
        value = values.generate(descriptor)
        back = decode(encode(value))
        # repr, because nan != nan; the type is checked too (tuple vs list).
        assert repr(back) == repr(value) and type(back) is type(value)
    assert decode(encode({b"k": frozenset({1, 2**80}), "s": {(-1, 0.5)}})) == {
        b"k": frozenset({1, 2**80}),
        "s": {(-1, 0.5)},
    }


def test_strings_postgres_cannot_store_are_checkpointed_as_bytes():
    for text in ("a\x00b", "lone \udcff surrogate"):
        encoded = encode(text)
        assert "u" in encoded and "\x00" not in str(encoded)
        assert decode(encoded) == text


def test_values_drawn_for_any_shrink_as_collections_of_any():
    any_type = {"t": "any"}
    assert [] in list(shrink_candidates([1, "x"], any_type))
    assert (0, "x") in list(shrink_candidates((5, "x"), any_type))
    assert {"k": 0} in list(shrink_candidates({"k": 7}, any_type))


def test_generated_values_survive_a_checkpoint():
    from engines.pyfunc.refs import Generated

    value = [Generated("money_generators:money", 2**31 + 7), 3]
    assert decode(encode(value)) == value
