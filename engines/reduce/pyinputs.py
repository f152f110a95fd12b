"""Reduce a failing Python call: the function engine's typed shrinking, with a larger budget.

Each argument in turn is replaced by the first simpler value of its type
(``engines.pyfunc.mutate.shrink_candidates``: smaller numbers, shorter
strings and collections, fields of a built object shrunk in place) that
keeps the call failing the same way, until no argument can be simplified or
the budget is spent. Every candidate still has its parameter's type, so no
test is wasted on a call the function would reject at its first line.

    python -m engines.reduce.pyinputs MODULE FUNCTION '[{"i": "1000"}, "abc"]' [--path DIR]

prints the simplest call that fails at the same place (same exception
type, same innermost line) as the given one. The values are those of a
finding's metadata (``engines.pyfunc.state`` encoding).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable

from engines import sandbox
from engines.pyfunc.executor import Child, Outcome, TargetError
from engines.pyfunc.mutate import shrink_candidates
from engines.pyfunc.state import decode
from engines.pyfunc.values import call_source, split_call
from engines.reduce.ddmin import Budget
from engines.reduce.result import Reduction


def shrink_values(values: list, parameters: list[dict], still_fails: Callable[[list], bool], budget: Budget) -> list:
    """Greedy typed shrinking: the first simpler value per parameter that ``still_fails``, until none is."""
    values = list(values)
    improved = True
    while improved and not budget.spent:
        improved = False
        for index, parameter in enumerate(parameters):
            for candidate in shrink_candidates(values[index], parameter["type"]):
                if budget.spent:
                    return values
                budget.charge()
                trial = [*values[:index], candidate, *values[index + 1 :]]
                if still_fails(trial):
                    values, improved = trial, True
                    break
    return values


class CallRunner:
    """A sandboxed child with the target imported, calling one function; restarted when a call kills it."""

    def __init__(self, module: str, function: str, search_path=(), setup=(), limits: sandbox.Limits | None = None):
        self.child = Child(module, limits or sandbox.Limits(), list(search_path), setup=list(setup))
        hello = self.child.start()
        described = {f["name"]: f for f in hello["functions"]}
        if function not in described:
            self.child.stop()
            raise TargetError(f"{module} has no fuzzable function {function!r}")
        self.function = described[function]

    @property
    def parameters(self) -> list[dict]:
        return self.function["parameters"]

    def call(self, values: list) -> Outcome:
        outcome = self.child.call(self.function["name"], *split_call(values, self.parameters))
        if not self.child.alive or self.child.calls >= 1000:
            self.child.stop()
            self.child.start()
        return outcome

    def source(self, values: list) -> str:
        return call_source(self.function["function"], *split_call(values, self.parameters))

    def stop(self) -> None:
        self.child.stop()


def reduce_call(
    runner: CallRunner,
    values: list,
    same_failure: Callable[[Outcome], bool],
    max_tests: int = 2000,
    seconds: float | None = None,
    on_progress: Callable[[str, int], None] | None = None,
) -> tuple[Reduction, list]:
    """Shrink ``values`` while the call's outcome is ``same_failure``; returns the reduction and the values."""
    started = time.monotonic()
    budget = Budget(max_tests, seconds, on_progress)

    def still_fails(trial: list) -> bool:
        if not same_failure(runner.call(trial)):
            return False
        budget.improved(runner.source(trial))
        return True

    original = runner.source(values)
    shrunk = shrink_values(values, runner.parameters, still_fails, budget)
    text = runner.source(shrunk)
    return Reduction(text, len(original), budget.used, time.monotonic() - started, "fuzzweb-pyinputs"), shrunk


def _site(outcome: Outcome) -> tuple[str, str]:
    # Same exception type at the same innermost traced line: the engine's own crash-site rule.
    index = outcome.trace.rfind('File "')
    return outcome.crash_type, outcome.trace[index : outcome.trace.find("\n", index)] if index != -1 else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Shrink the arguments of a failing call.")
    parser.add_argument("module")
    parser.add_argument("function", help="as the engine names it: module.qualname")
    parser.add_argument("values", help="the arguments as JSON, in the engine's checkpoint encoding")
    parser.add_argument("--path", action="append", default=[], help="extra import path")
    parser.add_argument("--max-tests", type=int, default=2000)
    args = parser.parse_args(argv)
    try:
        runner = CallRunner(args.module, args.function, args.path)
    except TargetError as error:
        print(error, file=sys.stderr)
        return 2
    try:
        values = [decode(item) for item in json.loads(args.values)]
        first = runner.call(values)
        if first.status == "ok":
            print("the call does not fail", file=sys.stderr)
            return 2
        site = _site(first)
        result, _ = reduce_call(runner, values, lambda o: o.status != "ok" and _site(o) == site, args.max_tests)
    finally:
        runner.stop()
    print(result.text)
    print(f"{result.original_size} -> {len(result.text)} characters in {result.tests} tests", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
