"""Structural mutation and shrinking of typed values.

Values are mutated as what they are (an int nudged or flipped, a string
with a character inserted, a list with an element dropped), never as raw
bytes, so every mutant still matches its parameter's type. Shrinking walks
the other way: toward 0, shorter, emptier, simpler.
"""

from __future__ import annotations

import contextlib
import copy
import math
from collections.abc import Iterator

from engines.pyfunc.refs import Build, Generated, Member
from engines.pyfunc.values import ValueGenerator


class Mutator:
    """Mutates values of a descriptor's type, drawing from one seeded stream."""

    def __init__(self, values: ValueGenerator):
        self.values = values
        self.random = values.random

    def mutate(self, value, descriptor: dict):
        """A mutant of ``value`` that still fits ``descriptor`` (``value`` is not changed)."""
        kind = descriptor["t"]
        # Now and then a fresh value: mutation alone can get stuck.
        if self.random.random() < 0.1:
            return self.values.generate(descriptor)
        method = getattr(self, f"_mutate_{kind}", None)
        if method is None:
            return self.values.generate(descriptor)
        return method(copy.deepcopy(value), descriptor)

    def _mutate_int(self, value, descriptor):
        if not isinstance(value, int) or isinstance(value, bool):
            return self.values.generate(descriptor)
        if "min" in descriptor:  # a bounded field (a month): stay in bounds
            return max(descriptor["min"], min(descriptor["max"], self._mutate_unbounded_int(value, descriptor)))
        return self._mutate_unbounded_int(value, descriptor)

    def _mutate_unbounded_int(self, value, descriptor):
        choice = self.random.randrange(7)
        if choice == 6:
            return self.random.choice((0, 1, -1))
        if choice == 0:
            return value + self.random.choice((-1, 1))
        if choice == 1:
            return value + self.random.randint(-256, 256)
        if choice == 2:
            return value ^ (1 << self.random.randrange(64))
        if choice == 3:
            return -value
        if choice == 4:
            return value * self.random.choice((2, 10, 256))
        return self.values.generate(descriptor)

    def _mutate_float(self, value, descriptor):
        if not isinstance(value, float) or math.isnan(value) or math.isinf(value):
            return self.values.generate(descriptor)
        choice = self.random.randrange(4)
        if choice == 0:
            return value + self.random.uniform(-1, 1)
        if choice == 1:
            return value * self.random.choice((-1.0, 0.5, 2.0, 10.0, 0.1, 1e10, 1e-10))
        if choice == 2:
            return float(int(value))
        return self.values.generate(descriptor)

    def _mutate_bool(self, value, descriptor):
        return not value

    def _mutate_str(self, value, descriptor):
        return self._mutate_sequence(value, descriptor, self._text_unit, "")

    def _text_unit(self) -> str:
        # One character from anywhere, or a literal of the target's own.
        literals = self.values.constants.get("str")
        if literals and self.random.random() < 0.2:
            return self.random.choice(literals)
        return self.values.character()

    def _mutate_bytes(self, value, descriptor):
        return self._mutate_sequence(value, descriptor, lambda: bytes([self.random.randrange(256)]), b"")

    def _mutate_sequence(self, value, descriptor, unit, empty):
        if not isinstance(value, type(empty)):
            return self.values.generate(descriptor)
        choice = self.random.randrange(5)
        position = self.random.randrange(len(value) + 1)
        if choice == 0 or not value:  # insert
            return value[:position] + unit() + value[position:]
        if choice == 1:  # delete
            return value[:position] + value[position + 1 :]
        if choice == 2 and position < len(value):  # replace
            return value[:position] + unit() + value[position + 1 :]
        if choice == 3:  # splice with a fresh value
            return value[:position] + self.values.generate(descriptor)
        if self.random.random() < 0.5:
            return value + value[: self.random.randrange(len(value) + 1)]  # repeat a prefix
        # Repeat one unit many times: deep nesting, long runs.
        return value[:position] + unit() * self.random.choice((16, 256, 2048)) + value[position:]

    def _mutate_list(self, value, descriptor):
        if not isinstance(value, list):
            return self.values.generate(descriptor)
        item = descriptor["of"]
        choice = self.random.randrange(4)
        if choice == 0 or not value:
            value.insert(self.random.randrange(len(value) + 1), self.values.generate(item, 1))
        elif choice == 1:
            del value[self.random.randrange(len(value))]
        elif choice == 2:
            index = self.random.randrange(len(value))
            value[index] = self.mutate(value[index], item)
        else:
            self.random.shuffle(value)
        return value

    def _mutate_tuple(self, value, descriptor):
        if not isinstance(value, tuple):
            return self.values.generate(descriptor)
        if "items" in descriptor:
            if not value:
                return value
            index = self.random.randrange(len(value))
            items = list(value)
            items[index] = self.mutate(items[index], descriptor["items"][index])
            return tuple(items)
        return tuple(self._mutate_list(list(value), {"t": "list", "of": descriptor["of"]}))

    def _mutate_dict(self, value, descriptor):
        if not isinstance(value, dict):
            return self.values.generate(descriptor)
        choice = self.random.randrange(3)
        if choice == 0 or not value:
            key = self.values.generate(descriptor["key"], 1)
            with contextlib.suppress(TypeError):  # an unhashable key
                value[key] = self.values.generate(descriptor["value"], 1)
        elif choice == 1:
            del value[self.random.choice(list(value))]
        else:
            key = self.random.choice(list(value))
            value[key] = self.mutate(value[key], descriptor["value"])
        return value

    def _mutate_enum(self, value, descriptor):
        return Member(descriptor["class"], self.random.choice(descriptor["members"]))

    def _mutate_build(self, value, descriptor):
        if not isinstance(value, Build) or not descriptor["parameters"]:
            return self.values.generate(descriptor)
        parameters = descriptor["parameters"]
        values = [*value.args, *(v for _, v in value.kwargs)]
        index = self.random.randrange(len(parameters))
        values[index] = self.mutate(values[index], parameters[index]["type"])
        return _rebuild(descriptor, values)

    def _mutate_typeddict(self, value, descriptor):
        if not isinstance(value, dict):
            return self.values.generate(descriptor)
        optional = [k for k in descriptor["fields"] if k not in descriptor["required"]]
        if optional and self.random.random() < 0.3:
            key = self.random.choice(optional)
            if key in value:
                del value[key]
            else:
                value[key] = self.values.generate(descriptor["fields"][key], 1)
        elif value:
            key = self.random.choice(list(value))
            value[key] = self.mutate(value[key], descriptor["fields"][key])
        return value

    def _mutate_union(self, value, descriptor):
        options = descriptor["options"]
        fitting = [option for option in options if _fits(value, option)]
        if fitting and self.random.random() < 0.7:
            return self.mutate(value, self.random.choice(fitting))
        return self.values.generate(self.random.choice(options))


def _rebuild(descriptor: dict, values: list) -> Build:
    parameters = descriptor["parameters"]
    args = tuple(v for v, p in zip(values, parameters, strict=True) if not p["keyword"])
    kwargs = tuple((p["name"], v) for v, p in zip(values, parameters, strict=True) if p["keyword"])
    return Build(descriptor["class"], args, kwargs)


def _fits(value, descriptor: dict) -> bool:
    kind = descriptor["t"]
    if kind == "enum":
        return isinstance(value, Member)
    if kind == "build":
        return isinstance(value, Build) and value.cls == descriptor["class"]
    if kind == "custom":
        return isinstance(value, Generated) and value.generator == descriptor["generator"]
    expected = {
        "int": int, "float": float, "bool": bool, "str": str, "bytes": bytes, "list": list,
        "tuple": tuple, "dict": dict, "set": set, "frozenset": frozenset,
    }.get(kind)  # fmt: skip
    if kind == "none":
        return value is None
    if expected is None:
        return False
    return isinstance(value, expected) and not (kind == "int" and isinstance(value, bool))


# The descriptor of a value drawn for Any: its items are Any too.
_ANY = {"t": "any"}


def _smaller_ints(value: int) -> list[int]:
    """Integers between 0 and ``value``, smallest first, spaced as a binary search.

    ``value >> k`` and ``value - (value >> k)`` for every k: whichever the
    failure needs (small, or just above some threshold), the first candidate
    that still fails is within a factor of two of the smallest one, so a
    huge integer shrinks in a few dozen calls, not one halving at a time.
    """
    magnitude = abs(value)
    steps = {magnitude >> k for k in range(1, magnitude.bit_length() + 1)}
    steps |= {magnitude - (magnitude >> k) for k in range(1, magnitude.bit_length() + 1)}
    steps |= {0, magnitude - 1}
    steps.discard(magnitude)
    ordered = sorted(steps)
    if value > 0:
        return ordered
    # Negative: its mirror image and 1 are simpler if they still fail; past
    # that, the failure is usually about the sign, so stay negative.
    return [0, 1, *(-step for step in ordered if step), magnitude]


def shrink_candidates(value, descriptor: dict) -> Iterator:
    """Simpler values than ``value`` of the same type, simplest first."""
    kind = descriptor["t"]
    if kind == "enum":
        if isinstance(value, Member) and value.name != descriptor["members"][0]:
            yield Member(descriptor["class"], descriptor["members"][0])
        return
    if kind == "build":
        if isinstance(value, Build):
            values = [*value.args, *(v for _, v in value.kwargs)]
            for index, parameter in enumerate(descriptor["parameters"]):
                for simpler in shrink_candidates(values[index], parameter["type"]):
                    yield _rebuild(descriptor, [*values[:index], simpler, *values[index + 1 :]])
        return
    if kind == "typeddict":
        if isinstance(value, dict):
            for key in value:
                if key not in descriptor["required"]:
                    yield {k: v for k, v in value.items() if k != key}
            for key, item in value.items():
                for simpler in shrink_candidates(item, descriptor["fields"][key]):
                    yield {**value, key: simpler}
        return
    if kind == "union":
        for option in descriptor["options"]:
            if option["t"] == "none" and value is not None:
                yield None
        fitting = next((option for option in descriptor["options"] if _fits(value, option)), None)
        if fitting is not None:
            yield from shrink_candidates(value, fitting)
        return
    if isinstance(value, bool):
        if value:
            yield False
        return
    if isinstance(value, int):
        if "min" in descriptor:
            low, high = descriptor["min"], descriptor["max"]
            # Toward the bound nearest zero, never out of bounds.
            anchor = min(max(0, low), high)
            if value != anchor:
                offsets = _smaller_ints(value - anchor)
                yield from (anchor + offset for offset in offsets if low <= anchor + offset <= high)
        elif value != 0:
            yield from _smaller_ints(value)
        return
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return
        for candidate in (0.0, float(int(value)), round(value, 1)):
            if candidate != value:
                yield candidate
        return
    if isinstance(value, (str, bytes)):
        if value:
            yield value[:0]
            half = len(value) // 2
            if half:
                yield value[:half]
                yield value[half:]
            for index in range(min(len(value), 64)):
                yield value[:index] + value[index + 1 :]
            simple = "a" if isinstance(value, str) else b"a"
            for index in range(min(len(value), 32)):
                if value[index : index + 1] != simple:
                    yield value[:index] + simple + value[index + 1 :]
        return
    if isinstance(value, (list, tuple)):
        if not value:
            return
        rebuild = type(value)
        if "items" not in descriptor:
            yield rebuild()
            half = len(value) // 2
            if half:
                yield rebuild(value[:half])
                yield rebuild(value[half:])
            for index in range(len(value)):
                yield rebuild(value[:index] + value[index + 1 :])
        for index, item in enumerate(value):
            item_descriptor = descriptor["items"][index] if "items" in descriptor else descriptor.get("of", _ANY)
            for simpler in shrink_candidates(item, item_descriptor):
                yield rebuild((*value[:index], simpler, *value[index + 1 :]))
        return
    if isinstance(value, dict):
        if not value:
            return
        yield {}
        for key in list(value):
            yield {k: v for k, v in value.items() if k != key}
        for key, item in value.items():
            for simpler in shrink_candidates(item, descriptor.get("value", _ANY)):
                yield {**value, key: simpler}
        return
    if isinstance(value, (set, frozenset)) and value:
        yield type(value)()
        for item in value:
            yield type(value)(value - {item})
