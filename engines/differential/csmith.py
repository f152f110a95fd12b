"""Csmith programs with swarm testing: each program gets its own random feature set.

Turning features off at random (swarm testing, Groce et al. 2012) finds more
bugs than always enabling everything: some bugs need a construct to be
absent (no pointers leaves room for more arithmetic), and a feature that
is always present crowds out the others.
"""

from __future__ import annotations

import random
import subprocess
import tempfile
from dataclasses import dataclass

# Features Csmith can leave out with --no-<feature>. Each is dropped with
# probability one half per program.
SWARM_FEATURES = (
    "arrays",
    "bitfields",
    "comma-operators",
    "compound-assignment",
    "consts",
    "divs",
    "embedded-assigns",
    "pre-incr-operator",
    "pre-decr-operator",
    "post-incr-operator",
    "post-decr-operator",
    "unary-plus-operator",
    "jumps",
    "longlong",
    "muls",
    "packed-struct",
    "pointers",
    "structs",
    "unions",
    "volatiles",
    "volatile-pointers",
    "const-pointers",
)
GENERATE_TIMEOUT_SECONDS = 30


class GeneratorError(Exception):
    """Csmith itself failed or timed out."""


@dataclass(frozen=True)
class Program:
    text: str
    seed: int
    options: tuple[str, ...]

    @property
    def command(self) -> str:
        """How to make this program again."""
        return " ".join(["csmith", "--seed", str(self.seed), *self.options])


def swarm_options(rng: random.Random) -> tuple[str, ...]:
    """A random feature set: each feature off with probability 1/2, and a random size."""
    options = [f"--no-{feature}" for feature in SWARM_FEATURES if rng.random() < 0.5]
    options += ["--max-funcs", str(rng.randint(1, 8)), "--max-block-depth", str(rng.randint(1, 5))]
    return tuple(options)


def generate(rng: random.Random) -> Program:
    """One Csmith program, its seed and options drawn from ``rng``."""
    seed = rng.randrange(2**31)
    return run(seed, swarm_options(rng))


def run(seed: int, options: tuple[str, ...]) -> Program:
    """The Csmith program for ``seed`` and ``options``; raises GeneratorError when Csmith fails."""
    try:
        # Csmith writes platform.info into its working directory: a scratch one.
        with tempfile.TemporaryDirectory(prefix="fuzzweb-csmith-") as scratch:
            result = subprocess.run(  # noqa: S603 - csmith from the backend table, fixed arguments
                ["csmith", "--seed", str(seed), *options],
                capture_output=True,
                text=True,
                timeout=GENERATE_TIMEOUT_SECONDS,
                check=False,
                cwd=scratch,
            )
    except subprocess.TimeoutExpired:
        raise GeneratorError(f"csmith --seed {seed} took over {GENERATE_TIMEOUT_SECONDS} s") from None
    if result.returncode != 0 or "int main" not in result.stdout:
        raise GeneratorError(f"csmith --seed {seed} failed: {result.stderr.strip()[:500]}")
    return Program(result.stdout, seed, options)
