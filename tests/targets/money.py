"""A target with a type the engine cannot build from hints alone."""

from __future__ import annotations

from collections.abc import Callable


class Money:
    # A formatter callback: no value can be drawn for it from the hint.
    def __init__(self, cents: int, currency: str, formatter: Callable[[int], str] | None = None):
        if len(currency) != 3 or not currency.isupper():
            raise ValueError(f"not a currency code: {currency!r}")
        self.cents = cents
        self.currency = currency
        self.formatter = formatter


def split_evenly(total: Money, parts: int) -> list[Money]:
    # Bug: no check for parts <= 0.
    share = total.cents // parts
    return [Money(share, total.currency)] * min(parts, 100)


def convert(amount: Money, rates: dict[str, float]) -> float:
    # Bug: a currency missing from the rates table.
    return amount.cents * rates[amount.currency] / 100
