"""Classify each backend's result against a reference, and turn disagreements into findings.

The reference is a designated backend, or else the majority: the output
(exit status and stdout) most of the completed backends agree on. A backend
that completed with other output is ``wrong_output``; the others keep their
own outcome (rejected, compiler_crash, timeout, oom). Every backend
rejecting the program is the generator's bug, not the compilers'.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from engines.differential.harness import OK, REJECTED, TIMEOUT, Result

WRONG_OUTPUT = "wrong_output"


@dataclass(frozen=True)
class Verdict:
    """The classification of one program's results."""

    reference: str  # the backend whose output counts as right ("" if none completed)
    outcomes: dict[str, str]  # backend -> ok, wrong_output, rejected, compiler_crash, ...
    first_difference: dict[str, dict] = field(default_factory=dict)  # backend -> {line, expected, actual}
    generator_bug: bool = False

    @property
    def interesting(self) -> bool:
        return self.generator_bug or any(outcome != OK for outcome in self.outcomes.values())


def _observable(result: Result) -> tuple:
    return (result.exit_status, result.stdout)


def first_difference(expected: str, actual: str) -> dict:
    """The first line where two outputs differ (1-based), with both versions of it."""
    want, got = expected.splitlines(), actual.splitlines()
    for index in range(max(len(want), len(got))):
        a = want[index] if index < len(want) else "<end of output>"
        b = got[index] if index < len(got) else "<end of output>"
        if a != b:
            return {"line": index + 1, "expected": a, "actual": b}
    return {"line": 0, "expected": "", "actual": ""}  # same lines; a different exit status


def classify(results: list[Result], reference: str | None = None) -> Verdict:
    """One verdict for a program: each backend's outcome class against the reference."""
    if results and all(r.outcome == REJECTED for r in results):
        return Verdict("", {r.backend: REJECTED for r in results}, generator_bug=True)
    completed = [r for r in results if r.completed]
    by_name = {r.backend: r for r in results}
    if reference and reference in by_name and by_name[reference].completed:
        chosen = by_name[reference]
    elif completed:
        # The majority's output; on a tie, the first backend listed that has it.
        counts = Counter(_observable(r) for r in completed)
        best = max(counts.values())
        chosen = next(r for r in completed if counts[_observable(r)] == best)
    else:
        chosen = None
    outcomes, differences = {}, {}
    for result in results:
        if not result.completed:
            outcomes[result.backend] = result.outcome
        elif _observable(result) == _observable(chosen):
            outcomes[result.backend] = OK
        else:
            outcomes[result.backend] = WRONG_OUTPUT
            differences[result.backend] = first_difference(chosen.stdout, result.stdout)
    return Verdict(chosen.backend if chosen else "", outcomes, differences)


def too_slow(results: list[Result]) -> bool:
    """A program that runs past the time limit on most backends: the generator's doing, not a finding.

    Csmith's programs terminate, but some only after hours. When most
    backends are cut off, the few that finish are not evidence either: a
    compiler may delete a side-effect-free loop (C11 6.8.5p6 lets it assume
    the loop ends) and fall off the end of ``main`` with any exit status.
    """
    cut_off = sum(1 for r in results if r.outcome == TIMEOUT and r.stage == "run")
    return bool(results) and cut_off * 2 > len(results)


# A run-stage timeout is reported only when another backend ran the same
# program this much faster: a compiler that turned a quick program into a
# hang. Otherwise it is one optimisation level being slow, as -O0 is.
HANG_SPEEDUP = 20


def is_suspicious_timeout(result: Result, results: list[Result]) -> bool:
    """A timeout worth a finding: at compile time always; at run time when another backend was far faster."""
    if result.outcome != TIMEOUT:
        return False
    if result.stage != "run":
        return True
    finished = [r.seconds for r in results if r.completed]
    return bool(finished) and min(finished) * HANG_SPEEDUP <= result.seconds
