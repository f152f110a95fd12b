"""Examples: a few simple calls per function that together reach what the fuzzer reached.

The corpus already holds one input per coverage gain, but as the search
found them: long, random and redundant. Here each corpus input is replayed
to learn all the branches it runs; a greedy cover picks inputs until every
branch the corpus reaches is reached, the one adding most first; and each
pick is shrunk while it still runs the branches it was picked for. What is
left reads like documentation: ``initials('')`` -> ``''``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from engines.pyfunc.executor import Child, Outcome
from engines.pyfunc.mutate import shrink_candidates
from engines.pyfunc.values import call_source, split_call

# Calls one computation may spend on a function: replaying its corpus and
# shrinking the picks. Examples are for reading, so a dozen is plenty.
CALL_BUDGET = 400
SHRINK_BUDGET_PER_EXAMPLE = 100
MAX_EXAMPLES = 12
# And a time cap per function: a corpus input that allocates gigabytes or
# nearly hangs costs seconds per replay.
SECONDS_BUDGET = 3.0


@dataclass
class Example:
    """One example call and what it did."""

    args: list
    kwargs: dict
    call: str
    outcome: str  # "returned" or "raised"
    result: str  # the returned value's repr, or "Type: message"
    arcs: frozenset

    def lines(self, filename: str) -> list[int]:
        """Lines of ``filename`` the call ran."""
        return sorted({line for file, a, b in self.arcs if file == filename for line in (a, b) if line > 0})

    def as_dict(self, filename: str) -> dict:
        return {"call": self.call, "outcome": self.outcome, "result": self.result, "lines": self.lines(filename)}


class _Budget:
    def __init__(self, calls: int, seconds: float = SECONDS_BUDGET):
        self.calls = calls
        self.deadline = time.monotonic() + seconds

    def spend(self) -> bool:
        self.calls -= 1
        return self.calls >= 0 and time.monotonic() < self.deadline


def _replay(child: Child, function: dict, args: list, kwargs: dict) -> Outcome | None:
    """The call in detail; None if it did not come back (a crash, a hang)."""
    outcome = child.call(function["name"], args, kwargs, detail=True)
    if not child.alive:
        child.stop()
        child.start()
        return None
    if outcome.status not in ("ok", "exception"):
        return None
    return outcome


def _example(function: dict, args: list, kwargs: dict, outcome: Outcome) -> Example:
    if outcome.status == "ok":
        kind, result = "returned", outcome.returned
    else:
        message = outcome.message.splitlines()[0] if outcome.message else ""
        kind, result = "raised", f"{outcome.crash_type}: {message}" if message else outcome.crash_type
    call = call_source(function["function"], args, kwargs)
    # Returning and raising often run the same lines (an exception leaves by
    # the same arc a return does), yet they are different behaviours to show:
    # the way out counts as one more thing to cover.
    exit_arc = (f"<{kind} {outcome.crash_type}>", 0, 0)
    return Example(list(args), dict(kwargs), call, kind, result, outcome.all_arcs | {exit_arc})


def cover(candidates: list[Example], limit: int = MAX_EXAMPLES) -> list[tuple[Example, frozenset]]:
    """Greedy set cover: (example, the arcs it adds) until nothing more is added.

    Pure, for the tests. Ties go to the shorter call, which is simpler to read.
    """
    chosen: list[tuple[Example, frozenset]] = []
    covered: set = set()
    remaining = list(candidates)
    while remaining and len(chosen) < limit:
        best = max(remaining, key=lambda e: (len(e.arcs - covered), -len(e.call)))
        gain = frozenset(best.arcs - covered)
        if not gain:
            break
        chosen.append((best, gain))
        covered |= gain
        remaining.remove(best)
    return chosen


def _shrink(child: Child, function: dict, example: Example, needed: frozenset, budget: _Budget) -> Example:
    """A simpler call that still runs every arc in ``needed``, found greedily."""
    parameters = function["parameters"]
    values = [*example.args, *example.kwargs.values()]
    own = _Budget(SHRINK_BUDGET_PER_EXAMPLE)
    improved = True
    while improved:
        improved = False
        for index, parameter in enumerate(parameters):
            for candidate in shrink_candidates(values[index], parameter["type"]):
                if not (own.spend() and budget.spend()):
                    return example
                trial = [*values[:index], candidate, *values[index + 1 :]]
                args, kwargs = split_call(trial, parameters)
                outcome = _replay(child, function, args, kwargs)
                if outcome is None:
                    continue
                simpler = _example(function, args, kwargs, outcome)
                if needed <= simpler.arcs:
                    values, example, improved = trial, simpler, True
                    break
    return example


def choose(child: Child, function: dict, inputs: list[tuple[list, dict]]) -> list[Example]:
    """The examples for ``function`` from its corpus ``inputs`` (args, kwargs)."""
    budget = _Budget(CALL_BUDGET)
    candidates = []
    for args, kwargs in inputs:
        if not budget.spend():
            break
        outcome = _replay(child, function, args, kwargs)
        if outcome is not None:
            candidates.append(_example(function, args, kwargs, outcome))
    return [_shrink(child, function, example, gain, budget) for example, gain in cover(candidates)]


def report(function: dict, examples: list[Example]) -> dict:
    """What the sink stores for a function: its source and its examples with their lines."""
    filename = function.get("file", "")
    return {
        "module": function["module"],
        "file": filename,
        "first_line": function.get("first_line", 1),
        "source": function.get("source", ""),
        "executable_lines": function.get("executable_lines", []),
        "examples": [example.as_dict(filename) for example in examples],
    }
