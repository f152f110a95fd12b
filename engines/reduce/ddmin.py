"""Delta debugging (Zeller's ddmin) over a list of parts: lines, tokens, statements.

The interestingness test is the expensive part: the caller's test charges
the budget for each test it really runs (an invalid or already-seen
candidate costs nothing), and the search stops once the budget is spent.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence


class Budget:
    """Counts interestingness tests and time; a reducer stops asking once either is spent.

    ``on_progress`` is told of every smaller interesting candidate, so that a
    long reduction can save its best so far: a reduction cut off by its
    deadline or a dying worker still leaves something.
    """

    def __init__(
        self,
        tests: int,
        seconds: float | None = None,
        on_progress: Callable[[str, int], None] | None = None,
    ):
        self.left = tests
        self.used = 0
        self.deadline = time.monotonic() + seconds if seconds is not None else None
        self.on_progress = on_progress

    @property
    def spent(self) -> bool:
        return self.left <= 0 or (self.deadline is not None and time.monotonic() >= self.deadline)

    def charge(self) -> None:
        self.left -= 1
        self.used += 1

    def improved(self, text: str) -> None:
        if self.on_progress is not None:
            self.on_progress(text, self.used)


def ddmin(parts: Sequence, interesting: Callable[[list], bool], budget: Budget) -> list:
    """A 1-minimal (as far as the budget allows) sublist of ``parts`` that is still interesting.

    ``interesting`` is called with candidate sublists (order kept) and must
    hold for ``parts`` itself.
    """
    current = list(parts)
    granularity = 2
    while len(current) >= 2 and not budget.spent:
        chunk = max(1, len(current) // granularity)
        starts = range(0, len(current), chunk)
        reduced = False
        # Complements first: removing one chunk at a time keeps most of the
        # program, so it is the candidate most likely to stay interesting.
        for start in starts:
            if budget.spent:
                break
            candidate = current[:start] + current[start + chunk :]
            if candidate and interesting(candidate):
                current = candidate
                granularity = max(granularity - 1, 2)
                reduced = True
                break
        if not reduced:
            if chunk == 1:
                break
            granularity = min(granularity * 2, len(current))
    return current


class Candidates:
    """The test of a reducer's candidates: each text tested once, only if smaller than the best and valid.

    ``valid`` is the cheap check (a compiler's parse, a grammar) that spares
    an interestingness test, the expensive part, for a candidate that cannot
    be a program. A text seen before counts as progress only if it is smaller
    than the best: the best itself is interesting too, and answering True for
    it made passes that rebuild it loop forever.
    """

    def __init__(
        self, source: str, interesting: Callable[[str], bool], budget: Budget, valid: Callable[[str], bool] | None
    ):
        self.best = source
        self.interesting = interesting
        self.budget = budget
        self.valid = valid
        self.seen: dict[str, bool] = {source: True}

    def test(self, text: str) -> bool:
        if text in self.seen:
            return self.seen[text] and len(text) < len(self.best)
        if self.valid is not None and not self.valid(text):
            self.seen[text] = False
            return False
        if len(text) >= len(self.best) or self.budget.spent:
            return False
        self.budget.charge()
        verdict = bool(self.interesting(text))
        self.seen[text] = verdict
        if verdict:
            self.best = text
            self.budget.improved(text)
        return verdict
