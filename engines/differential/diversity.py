"""Diversity mode: of several candidate programs, run the one least like those already run.

Each program is described by its counts of grammar constructs (loops,
closures, classes, ...). Programs are compared by the share of each
construct, plus their size on a log scale, so a long program is not "far"
only for being long. The candidate whose nearest already-run program is
farthest away wins (the greedy k-center rule): the campaign spreads over
the space of programs instead of sampling its dense middle again and again.
Generating is cheap next to compiling and running, so a few candidates
per program cost little.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence

CANDIDATES = 8
MEMORY = 2000  # programs remembered; older ones stop counting


def profile(counts: dict[str, int]) -> tuple[float, ...]:
    """A program's point: each construct's share of the program, and its size (log scale)."""
    total = sum(counts.values())
    shares = tuple(counts[name] / total if total else 0.0 for name in sorted(counts))
    return (*shares, math.log1p(total) / 10)


def _distance(a: Sequence[float], b: Sequence[float]) -> float:
    return math.dist(a, b)


class Picker:
    """Remembers what ran; ``pick`` chooses among candidates and remembers the choice."""

    def __init__(self, memory: int = MEMORY):
        self.seen: deque[tuple[float, ...]] = deque(maxlen=memory)

    def novelty(self, counts: dict[str, int]) -> float:
        """How far a program is from the nearest one already run (infinite for the first)."""
        point = profile(counts)
        return min((_distance(point, other) for other in self.seen), default=math.inf)

    def pick(self, candidates: Sequence):
        """The candidate (anything with ``.counts``) farthest from everything run so far."""
        chosen = max(candidates, key=lambda program: self.novelty(program.counts))
        self.seen.append(profile(chosen.counts))
        return chosen
