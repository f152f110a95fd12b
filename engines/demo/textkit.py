"""textkit: small text and number helpers, as found in many code bases.

This is fuzzweb's demo target. It has five planted bugs, each of the kind
fuzzing finds in real libraries, each with its own exception type and call
site (``PLANTED_BUGS``); everything else is meant to be correct.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# (exception type, function where it is raised) for each planted bug.
PLANTED_BUGS = {
    ("ZeroDivisionError", "mean"),
    ("IndexError", "<genexpr>"),
    ("AttributeError", "header_value"),
    ("UnicodeDecodeError", "decode_label"),
    ("KeyError", "_unit_seconds"),
}

_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def mean(values: list[float]) -> float:
    """Arithmetic mean. Bug: an empty list divides by zero."""
    return sum(values) / len(values)


def initials(name: str) -> str:
    """'Ada Lovelace' -> 'AL'. Bug: split(" ") yields empty parts."""
    return "".join(part[0].upper() for part in name.split(" "))


def header_value(headers: dict[str, str], name: str, default: str | None = None) -> str:
    """Look up an HTTP header, trimmed. Bug: a missing header with no default."""
    return headers.get(name, default).strip()


def decode_label(raw: bytes) -> str:
    """Decode a label read from a file. Bug: assumes the bytes are UTF-8."""
    return raw.decode("utf-8").strip()


def _unit_seconds(unit: str) -> int:
    # Bug: unknown units ("ms", "y") are not rejected with a clear error.
    return _UNIT_SECONDS[unit]


def parse_duration(text: str) -> int:
    """'1h 30m' -> 5400 seconds."""
    total = 0
    for amount, unit in re.findall(r"(\d+)\s*([a-z]+)", text.lower()):
        total += int(amount) * _unit_seconds(unit)
    return total


def clamp(value: int, low: int, high: int) -> int:
    """Limit ``value`` to [low, high] (swapped bounds are accepted)."""
    low, high = min(low, high), max(low, high)
    return max(low, min(value, high))


def slugify(title: str, separator: str = "-") -> str:
    """'Hello, World!' -> 'hello-world'."""
    words = re.findall(r"[a-z0-9]+", title.lower())
    return separator.join(words)


def apply_all(values: list[int], transform: Callable[[int], int]) -> list[int]:
    """Not fuzzable yet: no values are generated for callables."""
    return [transform(value) for value in values]
