"""Examples: few, simple calls per function that together reach what the fuzzer reached."""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

import pytest

from engines.pyfunc import examples
from engines.pyfunc.engine import Config, TargetError, run
from tests.engines.test_pyfunc import RecordingSink

TARGETS = Path(__file__).resolve().parents[1] / "targets"


class ExampleSink(RecordingSink):
    def __init__(self):
        super().__init__()
        self.reports: dict[str, list[dict]] = {}

    def examples(self, function, report):
        self.reports.setdefault(function, []).append(report)


def _example(call: str, arcs: set) -> examples.Example:
    return examples.Example([], {}, call, "returned", "None", frozenset(arcs))


def test_cover_takes_the_largest_gain_first_and_stops_when_nothing_is_added():
    a = _example("f(1)", {("x", 1, 2), ("x", 2, 3)})
    b = _example("f(22)", {("x", 1, 2), ("x", 2, 4), ("x", 4, 5)})
    c = _example("f(3)", {("x", 1, 2)})
    chosen = examples.cover([a, b, c])
    assert [example.call for example, _ in chosen] == ["f(22)", "f(1)"]
    assert chosen[1][1] == {("x", 2, 3)}


def test_cover_prefers_the_shorter_call_on_a_tie():
    long = _example("f('aaaa')", {("x", 1, 2)})
    short = _example("f('')", {("x", 1, 2)})
    assert [example.call for example, _ in examples.cover([long, short])] == ["f('')"]


def _run(seconds=60, executions=3000, seed=3) -> ExampleSink:
    sink = ExampleSink()
    run(Config(target=str(TARGETS / "branches.py"), seconds=seconds, seed=seed, max_executions=executions), sink)
    return sink


def test_examples_reach_every_line_and_are_shrunk():
    sink = _run()
    report = sink.reports["classify"][-1]
    assert report["module"] == "branches"
    assert report["source"].startswith("def classify(n: int, word: str) -> str:")
    first = report["first_line"]
    body = [first + offset for offset, line in enumerate(report["source"].splitlines())]
    # Every line with code, the def line aside (it runs at import, not in a call).
    executable = [line for line in body[1:] if report["source"].splitlines()[line - first].strip() != "else:"]
    assert report["executable_lines"] == executable
    reached = set().union(*(example["lines"] for example in report["examples"]))
    assert reached == set(executable)
    calls = {example["call"]: example["result"] for example in report["examples"]}
    # Shrunk toward the simplest value on each path: no random noise left.
    assert "classify(0, '')" in calls
    assert calls["classify(0, '')"] == "'zero'"
    assert calls["classify(1, '')"] == "'small'"
    numbers = {int(call[len("classify(") : call.index(",")]) for call in calls}
    assert -1 in numbers
    big = max(numbers)
    assert 1000 < big < 2100, calls  # a binary search from a random huge int gets close to the edge
    assert all(len(call) < 30 for call in calls), calls
    assert len(calls) <= 6


def test_examples_show_raising_and_returning_calls():
    report = _run().reports["first_word"][-1]
    outcomes = {(example["call"], example["outcome"], example["result"]) for example in report["examples"]}
    assert ("first_word('')", "raised", "IndexError: list index out of range") in outcomes
    assert ("first_word('a')", "returned", "'a'") in outcomes


def test_choosing_examples_does_not_change_the_run():
    # Examples replay corpus inputs in the child; the search must not notice.
    with_examples = _run(executions=1500, seed=11)
    without = RecordingSink()
    run(Config(target=str(TARGETS / "branches.py"), seconds=60, seed=11, max_executions=1500), without)
    # The first report of each crash site; its later reports come once a second (CrashSites), so how many
    # there are depends on the machine's speed, not on the search.
    assert _first_per_site(with_examples.findings) == _first_per_site(without.findings) != []
    assert with_examples.states[-1]["search"] == without.states[-1]["search"]


def _first_per_site(findings) -> list[str]:
    first: dict[tuple, str] = {}
    for finding in findings:
        innermost = finding.trace[finding.trace.rfind('File "') :].split("\n", 1)[0]
        first.setdefault((finding.function, finding.crash_type, innermost), finding.input_text)
    return list(first.values())


def test_registered_generator_makes_values_the_hints_cannot():
    config = Config(target=str(TARGETS / "money.py"), seconds=60, seed=5, max_executions=1000)
    with pytest.raises(TargetError, match=r"convert: cannot build Money: unsupported type hint: .*Callable"):
        run(config, RecordingSink())

    sink = ExampleSink()
    summary = run(dataclasses.replace(config, setup=["money_generators"]), sink)
    assert sorted(summary.functions) == ["convert", "split_evenly"]
    found = {(f.function, f.crash_type): f for f in sink.findings}
    assert ("split_evenly", "ZeroDivisionError") in found
    assert ("convert", "KeyError") in found
    crash = found["split_evenly", "ZeroDivisionError"]
    assert crash.input_text.startswith("split_evenly(money(Random(")
    assert crash.input_text.endswith(", 0)")  # shrunk: the seed stays, the int goes to 0
    assert "from money_generators import money" in crash.setup
    assert "from random import Random" in crash.setup
    # The reproducer calls the generator with the same seed: it fails the same way.
    result = subprocess.run(  # noqa: S602 - the reproducer is a shell one-liner by design
        crash.reproducer, shell=True, capture_output=True, text=True, cwd=TARGETS
    )
    assert "ZeroDivisionError" in result.stderr, result.stderr
