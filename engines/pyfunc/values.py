"""Generate values from type descriptors, and render them back as source code.

Edge values are weighted in because that is where bugs live: zero, one, powers
of two and their neighbours, huge integers, nan and the infinities, empty and
very long strings, scripts other than Latin, and empty collections.
"""

from __future__ import annotations

import math
import random
import sys

from engines.pyfunc.refs import Build, Generated, Member, split

_EDGE_INTS = [0, 1, -1, 2, -2, 7, 255, 256, -128, 2**31 - 1, -(2**31), 2**63, -(2**63) - 1, 10**30]
_EDGE_FLOATS = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    1e-308,
    5e-324,
    sys.float_info.max,
    math.inf,
    -math.inf,
    math.nan,
]
_EDGE_STRINGS = ["", " ", "0", "-1", "a", "\n", "\x00", "é", "日本語", "😀", "ß", "İ", "a" * 1000, "%s{}"]
_ALPHABETS = [
    "abcdefghijklmnopqrstuvwxyz",
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    " \t\n-_./:;,=+*#@!?%&()[]{}<>'\"\\",
    "éüßçñøåÆ",
    "日本語中文한국어",
    "абвгдеёжз",
    "😀🎉👍🏽",
]
_ANY_CHOICES = [
    {"t": "int"},
    {"t": "float"},
    {"t": "str"},
    {"t": "bool"},
    {"t": "none"},
    {"t": "bytes"},
    {"t": "list", "of": {"t": "int"}},
    {"t": "dict", "key": {"t": "str"}, "value": {"t": "int"}},
]


class ValueGenerator:
    """Draws random values for descriptors from one seeded random stream."""

    def __init__(self, seed: int, max_size: int = 8):
        self.random = random.Random(seed)
        self.max_size = max_size

    def generate(self, descriptor: dict, depth: int = 0):
        """Return one value matching ``descriptor``."""
        kind = descriptor["t"]
        method = getattr(self, f"_gen_{kind}")
        return method(descriptor, depth)

    def _size(self, depth: int) -> int:
        # Empty collections come up often on purpose; nesting shrinks sizes so
        # recursive structures stay small.
        if self.random.random() < 0.2:
            return 0
        return self.random.randint(1, max(1, self.max_size >> depth))

    def _gen_int(self, descriptor, depth):
        roll = self.random.random()
        if roll < 0.35:
            value = self.random.choice(_EDGE_INTS)
            return value + self.random.choice((0, 0, -1, 1)) if abs(value) > 2 else value
        if roll < 0.8:
            return self.random.randint(-100, 100)
        return self.random.randint(-(2**64), 2**64)

    def _gen_float(self, descriptor, depth):
        roll = self.random.random()
        if roll < 0.35:
            return self.random.choice(_EDGE_FLOATS)
        if roll < 0.7:
            return round(self.random.uniform(-100, 100), self.random.randint(0, 3))
        return self.random.uniform(-1e12, 1e12)

    def _gen_bool(self, descriptor, depth):
        return self.random.random() < 0.5

    def _gen_none(self, descriptor, depth):
        return None

    def _gen_str(self, descriptor, depth):
        if self.random.random() < 0.3:
            return self.random.choice(_EDGE_STRINGS)
        alphabet = self.random.choice(_ALPHABETS)
        length = self.random.choice((1, 2, 3, 5, 8, 13, 40))
        return "".join(self.random.choice(alphabet) for _ in range(length))

    def _gen_bytes(self, descriptor, depth):
        if self.random.random() < 0.3:
            return self.random.choice([b"", b"\x00", b"\xff", b"\x80abc", b"a" * 1000])
        return bytes(self.random.randrange(256) for _ in range(self._size(0)))

    def _gen_literal(self, descriptor, depth):
        return self.random.choice(descriptor["values"])

    def _gen_union(self, descriptor, depth):
        options = [o for o in descriptor["options"] if o["t"] != "recursive"] or descriptor["options"]
        return self.generate(self.random.choice(options), depth)

    def _gen_recursive(self, descriptor, depth):
        # A class inside itself: stop here (None, or empty where it is a
        # collection's item) so that values stay finite.
        return None

    def _gen_custom(self, descriptor, depth):
        # The registered generator runs in the child; the seed is all it needs.
        return Generated(descriptor["generator"], self.random.getrandbits(32))

    def _gen_enum(self, descriptor, depth):
        return Member(descriptor["class"], self.random.choice(descriptor["members"]))

    def _gen_build(self, descriptor, depth):
        args, kwargs = [], []
        for parameter in descriptor["parameters"]:
            value = self.generate(parameter["type"], depth + 1)
            if parameter["keyword"]:
                kwargs.append((parameter["name"], value))
            else:
                args.append(value)
        return Build(descriptor["class"], tuple(args), tuple(kwargs))

    def _gen_typeddict(self, descriptor, depth):
        required = set(descriptor["required"])
        return {
            name: self.generate(field, depth + 1)
            for name, field in descriptor["fields"].items()
            if name in required or self.random.random() < 0.5
        }

    def _gen_any(self, descriptor, depth):
        return self.generate(self.random.choice(_ANY_CHOICES), depth + 1)

    def _gen_list(self, descriptor, depth):
        if descriptor["of"]["t"] == "recursive":
            return []
        return [self.generate(descriptor["of"], depth + 1) for _ in range(self._size(depth))]

    def _gen_set(self, descriptor, depth):
        return set(self._hashables(descriptor["of"], depth))

    def _gen_frozenset(self, descriptor, depth):
        return frozenset(self._hashables(descriptor["of"], depth))

    def _gen_tuple(self, descriptor, depth):
        if "items" in descriptor:
            return tuple(self.generate(item, depth + 1) for item in descriptor["items"])
        return tuple(self.generate(descriptor["of"], depth + 1) for _ in range(self._size(depth)))

    def _gen_dict(self, descriptor, depth):
        keys = self._hashables(descriptor["key"], depth)
        return {key: self.generate(descriptor["value"], depth + 1) for key in keys}

    def _hashables(self, descriptor, depth):
        if descriptor["t"] == "recursive":
            return []
        values = []
        for _ in range(self._size(depth)):
            value = self.generate(descriptor, depth + 1)
            try:
                hash(value)
            except TypeError:
                continue
            values.append(value)
        return values


def to_source(value) -> str:
    """Render ``value`` as a Python expression that evaluates back to it.

    ``repr`` is almost that, except for non-finite floats (``nan`` is not a
    name) and the empty set.
    """
    if isinstance(value, float):
        if math.isnan(value):
            return "float('nan')"
        if math.isinf(value):
            return "float('inf')" if value > 0 else "float('-inf')"
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(to_source(item) for item in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(to_source(item) for item in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, (set, frozenset)):
        inner = ", ".join(sorted(to_source(item) for item in value))
        if not value:
            return f"{type(value).__name__}()"
        return "{" + inner + "}" if isinstance(value, set) else "frozenset({" + inner + "})"
    if isinstance(value, dict):
        items = ", ".join(f"{to_source(k)}: {to_source(v)}" for k, v in value.items())
        return "{" + items + "}"
    if isinstance(value, Member):
        return f"{split(value.cls)[1]}.{value.name}"
    if isinstance(value, Generated):
        return f"{split(value.generator)[1]}(Random({value.seed}))"
    if isinstance(value, Build):
        parts = [to_source(a) for a in value.args] + [f"{k}={to_source(v)}" for k, v in value.kwargs]
        return f"{split(value.cls)[1]}({', '.join(parts)})"
    return repr(value)


def imports(value, found: set | None = None) -> set[tuple[str, str]]:
    """(module, name) pairs a call's source needs imported for the target's own types."""
    found = set() if found is None else found
    if isinstance(value, Generated):
        module, qualname = split(value.generator)
        found.update({(module, qualname.split(".")[0]), ("random", "Random")})
    elif isinstance(value, (Member, Build)):
        module, qualname = split(value.cls)
        found.add((module, qualname.split(".")[0]))
        if isinstance(value, Build):
            for item in (*value.args, *(v for _, v in value.kwargs)):
                imports(item, found)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            imports(item, found)
    elif isinstance(value, dict):
        for key, item in value.items():
            imports(key, found)
            imports(item, found)
    return found


def call_source(function: str, args: list, kwargs: dict) -> str:
    """Render a call expression: ``mean([])``."""
    parts = [to_source(arg) for arg in args]
    parts += [f"{name}={to_source(value)}" for name, value in kwargs.items()]
    return f"{function}({', '.join(parts)})"


def split_call(values: list, parameters: list[dict]) -> tuple[list, dict]:
    """One value per parameter, as the call's positional args and keyword-only kwargs."""
    args = [v for v, p in zip(values, parameters, strict=True) if not p["keyword"]]
    kwargs = {p["name"]: v for v, p in zip(values, parameters, strict=True) if p["keyword"]}
    return args, kwargs
