"""Enums, dataclasses and optional (X | None) values."""

from dataclasses import dataclass
from enum import Enum

PLANTED = {
    "total_seconds": "KeyError",
    "format_price": "AttributeError",
    "escalate": "IndexError",
    "heaviest_tag": "ValueError",
}


class Unit(Enum):
    SECOND = "s"
    MINUTE = "min"
    HOUR = "h"
    DAY = "d"
    WEEK = "w"


# WEEK was added to Unit later; this table was not updated.
_SECONDS = {Unit.SECOND: 1, Unit.MINUTE: 60, Unit.HOUR: 3600, Unit.DAY: 86400}


@dataclass(frozen=True)
class Duration:
    amount: int
    unit: Unit


def total_seconds(durations: list[Duration]) -> int:
    """The durations added up in seconds (zero amounts are skipped).

    Bug (KeyError): the conversion table lacks Unit.WEEK.
    """
    return sum(duration.amount * _SECONDS[duration.unit] for duration in durations if duration.amount)


def format_price(cents: int, currency: str | None) -> str:
    """ "USD 12.34" below a thousand units, "12,345 USD" from there on; None means USD.

    Bug (AttributeError): the large-amount branch upper-cases currency
    itself instead of the code with the None default applied.
    """
    code = (currency or "USD").upper()
    sign = "-" if cents < 0 else ""
    units, rest = divmod(abs(cents), 100)
    if units < 1000:
        return f"{sign}{code} {units}.{rest:02d}"
    return f"{sign}{units:,} {currency.upper()}"


class Priority(Enum):
    LOW = 1
    NORMAL = 2
    HIGH = 3
    URGENT = 4


def escalate(level: Priority, steps: int) -> Priority:
    """The priority ``steps`` levels up (down when negative), staying within LOW..URGENT.

    Bug (IndexError): the new index is clamped at the bottom but not at the top.
    """
    order = list(Priority)
    return order[max(order.index(level) + steps, 0)]


@dataclass
class Sample:
    name: str
    weight: float
    tags: list[str]


def heaviest_tag(samples: list[Sample]) -> str:
    """The tag with the largest total weight over the samples; "" when there are no samples.

    Bug (ValueError): when no sample has a tag there are no totals, and
    max() of nothing fails.
    """
    if not samples:
        return ""
    totals: dict[str, float] = {}
    for sample in samples:
        for tag in sample.tags:
            totals[tag] = totals.get(tag, 0.0) + sample.weight
    return max(totals, key=totals.__getitem__)
