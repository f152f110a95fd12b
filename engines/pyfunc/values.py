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

_EDGE_INTS = [0, 1, -1, 2, -2, 7, 255, 256, -128, 2**31 - 1, -(2**31), 2**63, -(2**63) - 1, 10**30, 2**1024]
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
# Characters that break code written with ASCII in mind: digits int() and
# isdigit() disagree on, case mappings that change length, combining marks,
# invisible and unusual whitespace, controls, bidi marks, private use.
_TRICKY_CHARACTERS = (
    "²³¹①⑩٣۴७৩๓\u0660\uff11"  # digits beyond 0-9
    "ßİıŉǰﬁﬀΐẞ"  # case mappings that change length or meaning
    "\u0301\u0308\u0327\u20dd"  # combining marks
    "\u00a0\u2028\u2029\u3000\u200b\u200d\ufeff\u180e"  # odd whitespace, invisibles
    "\x00\x1b\x7f\x85\x9f"  # C0 and C1 controls
    "\u202e\u200f"  # bidi overrides
    "\ue000\U000f0000\uffff\ufffd"  # private use, noncharacter, replacement
)
# Code point ranges drawn from uniformly, weighted: ASCII, Latin-1 and its C1
# controls, the rest of the BMP without surrogates, and the astral planes.
_CODE_POINT_RANGES = [(0x20, 0x7E), (0x80, 0xFF), (0x100, 0xD7FF), (0xE000, 0xFFFD), (0x10000, 0x10FFFF)]
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
        # Literals of the function being fuzzed (see child.constants): a
        # dictionary, as AFL and libFuzzer use one, set before each call.
        self.constants: dict[str, list] = {}
        # Scalars drawn for the current call: reused now and then, since
        # code often compares its arguments with each other (x == y).
        self.drawn: dict[str, list] = {}

    def new_call(self, constants: dict[str, list]) -> None:
        """Start drawing the arguments of a call of a function with these literals."""
        self.constants = constants
        self.drawn = {}

    def _reuse(self, kind: str):
        drawn = self.drawn.get(kind)
        if drawn and self.random.random() < 0.15:
            return self.random.choice(drawn)
        return None

    def _remember(self, kind: str, value):
        self.drawn.setdefault(kind, []).append(value)
        return value

    def _constant(self, kind: str, probability: float):
        """One of the target's own literals of ``kind``, now and then; else None."""
        pool = self.constants.get(kind)
        if pool and self.random.random() < probability:
            return self.random.choice(pool)
        return None

    def character(self) -> str:
        """One character from anywhere in Unicode, tricky ones weighted in (no surrogates)."""
        if self.random.random() < 0.3:
            return self.random.choice(_TRICKY_CHARACTERS)
        low, high = self.random.choice(_CODE_POINT_RANGES)
        return chr(self.random.randint(low, high))

    def generate(self, descriptor: dict, depth: int = 0):
        """Return one value matching ``descriptor``."""
        kind = descriptor["t"]
        if kind in ("int", "str", "bytes") and "min" not in descriptor:
            again = self._reuse(kind)
            if again is not None:
                return again
            return self._remember(kind, getattr(self, f"_gen_{kind}")(descriptor, depth))
        method = getattr(self, f"_gen_{kind}")
        return method(descriptor, depth)

    def _size(self, depth: int) -> int:
        # Empty collections come up often on purpose; nesting shrinks sizes so
        # recursive structures stay small.
        if self.random.random() < 0.2:
            return 0
        return self.random.randint(1, max(1, self.max_size >> depth))

    def _gen_int(self, descriptor, depth):
        if "min" in descriptor:
            low, high = descriptor["min"], descriptor["max"]
            if self.random.random() < 0.3:
                return self.random.choice((low, high, min(low + 1, high), max(high - 1, low)))
            return self.random.randint(low, high)
        constant = self._constant("int", 0.1)
        if constant is not None:
            return constant + self.random.choice((0, 0, -1, 1))
        roll = self.random.random()
        if roll < 0.05:
            return 0  # the edge of edges: empty, none, divide by it
        if roll < 0.3:
            value = self.random.choice(_EDGE_INTS)
            return value + self.random.choice((0, 0, -1, 1)) if abs(value) > 2 else value
        if roll < 0.75:
            return self.random.randint(-100, 100)
        if roll < 0.9:
            return self.random.randint(-(2**64), 2**64)
        # A power of two and its neighbours at any size up to 4096 bits: where
        # int-to-float conversions, C sizes and fixed-width packing break.
        value = 2 ** self.random.randint(0, 4096) + self.random.choice((-1, 0, 1))
        return value if self.random.random() < 0.5 else -value

    def _gen_float(self, descriptor, depth):
        constant = self._constant("float", 0.1)
        if constant is not None:
            return constant
        roll = self.random.random()
        if roll < 0.3:
            return self.random.choice(_EDGE_FLOATS)
        if roll < 0.55:
            return round(self.random.uniform(-100, 100), self.random.randint(0, 3))
        if roll < 0.9:
            # Log-uniform magnitude: every order from 1e-12 to 1e12 as likely.
            magnitude = 10 ** self.random.uniform(-12, 12)
            return magnitude if self.random.random() < 0.5 else -magnitude
        if self.random.random() < 0.3:
            # Integral floats at every size: 2.0**53 + 1 is no longer exact.
            return float(2 ** self.random.randint(0, 1023)) + self.random.choice((-1.0, 0.0, 1.0))
        return self.random.uniform(-1e300, 1e300)

    def _gen_bool(self, descriptor, depth):
        return self.random.random() < 0.5

    def _gen_none(self, descriptor, depth):
        return None

    def _gen_str(self, descriptor, depth):
        constant = self._constant("str", 0.2)
        if constant is not None:
            return self._around(constant)
        if self.random.random() < 0.25:
            return self.random.choice(_EDGE_STRINGS)
        length = self.random.choice((1, 2, 3, 5, 8, 13, 40))
        if self.random.random() < 0.3:
            return "".join(self.character() for _ in range(length))
        alphabet = self.random.choice(_ALPHABETS)
        return "".join(self.random.choice(alphabet) for _ in range(length))

    def _around(self, literal: str) -> str:
        """A target's string literal as is, with text around it, or repeated many times."""
        roll = self.random.random()
        if roll < 0.4:
            return literal
        if roll < 0.8:
            short = self._gen_str({"t": "str"}, 1) if self.random.random() < 0.5 else ""
            return literal + short if self.random.random() < 0.5 else short + literal
        # Deep nesting and long runs: "((((...", "../../..".
        return literal * self.random.choice((10, 100, 1000, 3000))

    def _gen_bytes(self, descriptor, depth):
        constant = self._constant("bytes", 0.15)
        if constant is not None:
            return constant
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
