"""Setup module for tests/targets/money.py: how to make a valid Money.

Plain Python with no import from fuzzweb, so the reproducers that call
``money(Random(seed))`` run anywhere the target does.
"""

from __future__ import annotations

from money import Money


def money(random):
    return Money(random.randrange(-(10**6), 10**6), random.choice(["EUR", "USD", "JPY"]))


FUZZ_GENERATORS = {Money: money}
