"""What the project's own program generators (pygen, kotlingen) share.

Both hand over a ``Program`` with the seed and swarm weights that make it
again, and the counts of grammar constructs that diversity mode compares.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Program:
    text: str
    seed: int
    options: tuple[str, ...]
    counts: dict
    generator: str  # the generator's command name: pygen, kotlingen

    @property
    def command(self) -> str:
        """How to make this program again."""
        return f"{self.generator} --seed {self.seed} {' '.join(self.options)}".strip()


def swarm_weights(rng: random.Random, features: Sequence[str]) -> dict[str, float]:
    """Random feature weights for one program: each feature off a quarter of the time, the rest weighted."""
    return {feature: (rng.random() if rng.random() < 0.75 else 0.0) for feature in features}


def generate(
    rng: random.Random, name: str, features: Sequence[str], make: Callable[[random.Random], object]
) -> Program:
    """One program from ``make(Random(seed))``, a generator with .program(), .weights and .counts.

    The seed is drawn from ``rng``; the generator draws its swarm weights itself.
    """
    seed = rng.randrange(2**31)
    generator = make(random.Random(seed))
    text = generator.program()
    options = tuple(f"--{f}={generator.weights[f]:.2f}" for f in features)
    return Program(text, seed, options, dict(generator.counts), name)
