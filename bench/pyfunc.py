"""Which planted bugs do fuzzweb's pyfunc engine, Hypothesis and atheris find, and how fast?

Every function in bench/pyfunc_targets has one planted bug: an exception
type, named in its module's PLANTED. Each tool gets the same wall-clock
budget per function (--seconds) and the same seed; a bug counts as found
when the tool makes the function raise its planted type. Other exceptions
are noted but do not count. Each tool stops at its first planted exception.

- fuzzweb: engines.pyfunc.engine.run on the function's module, only that
  function included, findings kept by an in-memory sink. Timed from the
  call to run() (the sandboxed child's start included); a finding arrives
  after the engine has shrunk it, so its time includes the shrinking.
- Hypothesis: @given(st.builds(function)), the arguments inferred from the
  annotations, generate phase only, in a subprocess per function:
  Hypothesis draws strings and numbers from the constants of every local
  module loaded, and in this process those would include the engine's
  modules and depend on which runs came before.
- atheris: one subprocess per function (atheris.Fuzz owns its process), the
  targets imported under atheris.instrument_imports() for coverage, the
  arguments decoded from libFuzzer's bytes by a FuzzedDataProvider
  converter driven by the same annotations. Timed from atheris.Fuzz().

Per function and tool: seconds to the first planted exception and calls
per second. Then per tool: bugs found, median time to the first crash
(over the bugs found), median calls per second (over the runs that lasted
a second or more: a bug found at once leaves a rate of start-up only).

Last line: bugs fuzzweb=<n> hypothesis=<n> atheris=<n> of=<total>
(n/a for a tool that is not installed: Hypothesis and atheris come with `make bench-deps`.)

    .venv/bin/python bench/pyfunc.py [--quick] [--seconds 5] [--seed 1] [--only NAME] [--tools fuzzweb,atheris]

--quick: the first function of each module, 1 second each (what `make test` runs: that it still runs).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import enum
import functools
import importlib
import importlib.util
import json
import os
import pkgutil
import statistics
import subprocess
import sys
import tempfile
import time
import types
import typing
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TARGETS_PACKAGE = "bench.pyfunc_targets"
TOOLS = ("fuzzweb", "hypothesis", "atheris")
# libFuzzer treats seed 0 as "pick one at random": the default must not be 0.
DEFAULT_SEED = 1
# Marks the command line of a Hypothesis or atheris subprocess (this file, run again).
CHILD = "--child"
# How often the atheris child writes its call count, so that a child killed
# or ended by libFuzzer itself still leaves a rate behind.
PROGRESS_INTERVAL_SECONDS = 0.5
# Runs shorter than this are left out of the median calls per second.
RATE_MIN_SECONDS = 1.0


@dataclasses.dataclass(frozen=True)
class Target:
    module: str
    name: str
    planted: str  # exception type name, without its module


@dataclasses.dataclass
class Result:
    found_after: float | None = None  # seconds to the first planted exception
    calls_per_second: float = 0.0
    other: set[str] = dataclasses.field(default_factory=set)  # other exception types seen
    error: str = ""  # the tool could not run at all
    seconds: float = 0.0  # how long the run went on


def type_name(qualified: str) -> str:
    """ "struct.error" -> "error": tools name exception types with or without their module."""
    return qualified.rsplit(".", 1)[-1]


def load_targets() -> list[Target]:
    package = importlib.import_module(TARGETS_PACKAGE)
    targets = []
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda info: info.name):
        module = importlib.import_module(f"{TARGETS_PACKAGE}.{info.name}")
        targets += [Target(module.__name__, name, planted) for name, planted in module.PLANTED.items()]
    return targets


# --- fuzzweb -----------------------------------------------------------------


class FirstFindingSink:
    """Keeps the time of the first finding of the planted type; asks the engine to stop then."""

    def __init__(self, target: Target, started: float):
        self.target = target
        self.started = started
        self.result = Result()

    def finding(self, finding) -> None:
        # In the target module itself the engine names functions bare; the
        # last component is compared in case it ever qualifies them.
        if type_name(finding.function) != self.target.name:
            return
        if type_name(finding.crash_type) == self.target.planted:
            if self.result.found_after is None:
                self.result.found_after = time.monotonic() - self.started
        else:
            self.result.other.add(type_name(finding.crash_type))

    def stats(self, stats) -> None:
        # The engine's own rate: calls over its fuzzing loop's time.
        self.result.calls_per_second = stats.executions_per_second
        self.result.seconds = stats.elapsed_seconds

    def should_stop(self) -> bool:
        return self.result.found_after is not None

    def checkpoint(self, state: dict) -> None:
        """Nothing is resumed here."""


def run_fuzzweb(target: Target, seconds: float, seed: int) -> Result:
    from engines.pyfunc.engine import Config, run

    config = Config(target=target.module, search_path=[str(ROOT)], include=[target.name], seconds=seconds, seed=seed)
    sink = FirstFindingSink(target, time.monotonic())
    run(config, sink)
    return sink.result


# --- Hypothesis ----------------------------------------------------------------

HYPOTHESIS_HOME = Path(tempfile.gettempdir()) / "bench-pyfunc-hypothesis"


class _StopHypothesis(BaseException):
    """Ends a Hypothesis run from inside the test.

    A BaseException, not an Exception: Hypothesis would take an Exception
    for a failure and start shrinking it.
    """


def hypothesis_child(module_name: str, name: str, planted: str, result_path: str, seconds: str, seed: str) -> int:
    """The Hypothesis side: generate calls of one function until its planted exception or the budget."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed
    from hypothesis import strategies as st
    from hypothesis.configuration import set_hypothesis_home_dir

    # Hypothesis caches its Unicode tables in its home directory, by default
    # in the working directory -- here a fresh one per run, which would cost
    # every run a second of rebuilding them. One home for all runs, as a
    # user's project has.
    set_hypothesis_home_dir(HYPOTHESIS_HOME)
    function = getattr(importlib.import_module(module_name), name)
    calls = 0
    found_after = None
    other: set[str] = set()

    # Same signature and annotations as the function (functools.wraps), so
    # st.builds infers the same arguments; the call happens while Hypothesis
    # draws the example, so the exception is seen here, before any shrinking.
    @functools.wraps(function)
    def observed(*args, **kwargs):
        nonlocal calls, found_after
        calls += 1
        try:
            function(*args, **kwargs)
        except Exception as error:  # noqa: BLE001 - every exception is an outcome to sort
            if type(error).__name__ != planted:
                other.add(type(error).__name__)
            elif found_after is None:
                found_after = time.monotonic() - started

    @hypothesis_seed(int(seed))
    @settings(
        database=None,
        deadline=None,
        max_examples=10**9,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(st.builds(observed))
    def test(_) -> None:
        if found_after is not None or time.monotonic() >= deadline:
            raise _StopHypothesis

    started = time.monotonic()
    deadline = started + float(seconds)
    with contextlib.suppress(_StopHypothesis):
        test()
    write_state(result_path, found_after, calls, time.monotonic() - started, other)
    return 0


# --- atheris -------------------------------------------------------------------

# Sizes the atheris converter draws: integers of 1 to 16 bytes (up to 128
# bits), text and bytes up to 4096 units (bounded in practice by the input
# libFuzzer hands over), collections up to 16 items.
INT_WIDTHS = [1, 2, 4, 8, 16]
MAX_TEXT = 4096
MAX_ITEMS = 16


def converter(hint) -> typing.Callable:
    """A function that draws one value of type ``hint`` from a FuzzedDataProvider."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is None or hint is type(None):
        return lambda fdp: None
    if hint is bool:
        return lambda fdp: fdp.ConsumeBool()
    if hint is int:
        return lambda fdp: fdp.ConsumeInt(fdp.PickValueInList(INT_WIDTHS))
    if hint is float:
        # Not ConsumeRegularFloat: infinities and NaN are inputs too.
        return lambda fdp: fdp.ConsumeFloat()
    if hint is str:
        return lambda fdp: fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, MAX_TEXT))
    if hint is bytes:
        return lambda fdp: fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, MAX_TEXT))
    if origin in (typing.Union, types.UnionType):
        options = [converter(option) for option in args]
        return lambda fdp: options[fdp.ConsumeIntInRange(0, len(options) - 1)](fdp)
    if origin in (list, set, frozenset) or (origin is tuple and len(args) == 2 and args[1] is Ellipsis):
        item = converter(args[0])
        return lambda fdp: origin(item(fdp) for _ in range(fdp.ConsumeIntInRange(0, MAX_ITEMS)))
    if origin is tuple:
        items = [converter(arg) for arg in args]
        return lambda fdp: tuple(item(fdp) for item in items)
    if origin is dict:
        key, value = converter(args[0]), converter(args[1])
        return lambda fdp: {key(fdp): value(fdp) for _ in range(fdp.ConsumeIntInRange(0, MAX_ITEMS))}
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        members = list(hint)
        return lambda fdp: fdp.PickValueInList(members)
    if dataclasses.is_dataclass(hint):
        return arguments_converter(hint)
    raise TypeError(f"no atheris converter for {hint!r}")


def arguments_converter(function) -> typing.Callable:
    """A drawer of ``function``'s arguments as a dict of keyword arguments.

    For a dataclass the drawer builds the instance from its drawn fields.
    """
    hints = typing.get_type_hints(function)
    hints.pop("return", None)
    fields = {name: converter(hint) for name, hint in hints.items()}
    if dataclasses.is_dataclass(function):
        return lambda fdp: function(**{name: draw(fdp) for name, draw in fields.items()})
    return lambda fdp: {name: draw(fdp) for name, draw in fields.items()}


def atheris_child(module_name: str, name: str, planted: str, result_path: str, seconds: str, *flags: str) -> int:
    """The atheris side: fuzz one function until its planted exception or the budget.

    ``flags`` are libFuzzer's.
    """
    import atheris

    with atheris.instrument_imports():
        module = importlib.import_module(module_name)
    function = getattr(module, name)
    draw_arguments = arguments_converter(function)
    calls = 0
    other: set[str] = set()
    clock = {"started": 0.0, "deadline": 0.0, "next_progress": 0.0}

    def report(found_after: float | None) -> None:
        write_state(result_path, found_after, calls, time.monotonic() - clock["started"], other)

    def test_one_input(data: bytes) -> None:
        nonlocal calls
        now = time.monotonic()
        if now >= clock["deadline"]:
            report(None)
            # libFuzzer would only end at its next whole second.
            os._exit(0)
        if now >= clock["next_progress"]:
            clock["next_progress"] = now + PROGRESS_INTERVAL_SECONDS
            report(None)
        kwargs = draw_arguments(atheris.FuzzedDataProvider(data))
        calls += 1
        try:
            function(**kwargs)
        except Exception as error:  # noqa: BLE001 - every exception is an outcome to sort
            if type(error).__name__ == planted:
                report(time.monotonic() - clock["started"])
                # Found: stop here rather than let atheris report a crash.
                os._exit(0)
            # Not the planted bug: carry on, as the other tools do.
            other.add(type(error).__name__)

    atheris.Setup([sys.argv[0], *flags], test_one_input)
    clock["started"] = time.monotonic()
    clock["deadline"] = clock["started"] + float(seconds)
    atheris.Fuzz()
    return 0


# --- both children -----------------------------------------------------------

CHILDREN = {"hypothesis": hypothesis_child, "atheris": atheris_child}


def write_state(path: str, found_after: float | None, calls: int, elapsed: float, other: set[str]) -> None:
    """What a child hands back to the parent, as JSON in a file (stdout is the tool's)."""
    state = {"found_after": found_after, "calls": calls, "elapsed": elapsed, "other": sorted(other)}
    with open(path, "w") as handle:
        json.dump(state, handle)


def run_child(tool: str, target: Target, seconds: float, extra: list[str]) -> Result:
    """Run ``tool`` on ``target`` in a subprocess (this file again); its result, or its log's tail as the error."""
    with tempfile.TemporaryDirectory(prefix="bench-pyfunc-") as workdir:
        result_path = os.path.join(workdir, "result.json")
        command = [sys.executable, str(Path(__file__).resolve()), CHILD, tool, target.module, target.name]
        command += [target.planted, result_path, str(seconds), *extra]
        log_path = os.path.join(workdir, "child.log")
        with open(log_path, "w") as log:
            try:
                # cwd: libFuzzer writes crash files to the working directory.
                subprocess.run(command, cwd=workdir, stdout=log, stderr=log, timeout=seconds + 120, check=False)
            except subprocess.TimeoutExpired:
                return Result(error=f"{tool} did not end within {seconds + 120:.0f} s")
        try:
            with open(result_path) as handle:
                state = json.load(handle)
        except (OSError, ValueError):
            with open(log_path) as log:
                return Result(error=log.read()[-2000:])
    rate = state["calls"] / state["elapsed"] if state["elapsed"] > 0 else 0.0
    return Result(state["found_after"], rate, set(state["other"]), seconds=state["elapsed"])


def warm_hypothesis() -> None:
    """Build Hypothesis's Unicode cache in HYPOTHESIS_HOME before the clock of any run starts."""
    import warnings

    from hypothesis import strategies as st
    from hypothesis.configuration import set_hypothesis_home_dir

    set_hypothesis_home_dir(HYPOTHESIS_HOME)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # .example() is meant for the interactive prompt
        st.text().example()


def run_hypothesis(target: Target, seconds: float, seed: int) -> Result:
    return run_child("hypothesis", target, seconds, [str(seed)])


def run_atheris(target: Target, seconds: float, seed: int) -> Result:
    flags = [f"-max_total_time={max(1, round(seconds))}", f"-seed={seed}", "-print_final_stats=1"]
    return run_child("atheris", target, seconds, flags)


# --- report --------------------------------------------------------------------

RUNNERS = {"fuzzweb": run_fuzzweb, "hypothesis": run_hypothesis, "atheris": run_atheris}


def cell(result: Result) -> str:
    if result.error:
        return f"{'error':>8} {'':>9}"
    found = f"{result.found_after:7.2f}s" if result.found_after is not None else f"{'-':>8}"
    return f"{found} {result.calls_per_second:9.0f}"


def print_table(targets: list[Target], tools: list[str], results: dict) -> None:
    width = max(len(target.name) for target in targets)
    print()
    print(f"{'':<{width}}  {'':<18}" + "".join(f"  {tool:^18}" for tool in tools))
    print(f"{'function':<{width}}  {'planted':<18}" + "".join(f"  {'first':>8} {'calls/s':>9}" for _ in tools))
    for target in targets:
        cells = "".join(f"  {cell(results[target, tool])}" for tool in tools)
        print(f"{target.name:<{width}}  {target.planted:<18}{cells}")
    print()
    for tool in tools:
        runs = [results[target, tool] for target in targets]
        times = [run.found_after for run in runs if run.found_after is not None]
        # A run stopped by a bug found in its first moments measures start-up,
        # not speed: only runs that went on for a while say how fast a tool calls.
        rates = [run.calls_per_second for run in runs if not run.error and run.seconds >= RATE_MIN_SECONDS]
        median_time = f"{statistics.median(times):.2f}s" if times else "-"
        median_rate = f"{statistics.median(rates):.0f}" if rates else "-"
        print(
            f"{tool:<10} bugs {len(times):>2}/{len(targets)}  "
            f"median first crash {median_time:>7}  median calls/s {median_rate:>7}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one function per module, 1 s each")
    parser.add_argument("--seconds", type=float, default=5.0, help="budget per function per tool")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--only", action="append", default=[], metavar="NAME", help="run this function only")
    parser.add_argument("--tools", default=",".join(TOOLS), help="comma-separated, of: " + ", ".join(TOOLS))
    parser.add_argument("--verbose", action="store_true", help="also list the other exception types seen")
    options = parser.parse_args()
    tools = [tool.strip() for tool in options.tools.split(",") if tool.strip()]
    unknown = set(tools) - set(TOOLS)
    if unknown:
        parser.error(f"unknown tools: {', '.join(sorted(unknown))}")
    targets = [target for target in load_targets() if not options.only or target.name in options.only]
    if options.quick:
        options.seconds = 1.0
        targets = [
            target for index, target in enumerate(targets) if index == 0 or targets[index - 1].module != target.module
        ]
    if not targets:
        parser.error("no such function")
    # A tool that is not installed is left out and reported n/a, rather than
    # counted as finding nothing.
    missing = [tool for tool in tools if tool != "fuzzweb" and importlib.util.find_spec(tool) is None]
    for tool in missing:
        print(f"{tool} is not installed (make bench-deps): left out, n/a")
    tools = [tool for tool in tools if tool not in missing]

    if "hypothesis" in tools:
        warm_hypothesis()
    started = time.monotonic()
    results: dict[tuple[Target, str], Result] = {}
    for target in targets:
        for tool in tools:
            result = results[target, tool] = RUNNERS[tool](target, options.seconds, options.seed)
            print(f"  {target.name:<20} {tool:<10} {cell(result)}", flush=True)
            if result.error:
                print(f"    {tool} failed: {result.error.strip()[-500:]}")
            if options.verbose and result.other:
                print(f"    other exceptions: {', '.join(sorted(result.other))}")
    print_table(targets, tools, results)
    print(f"wall time {time.monotonic() - started:.0f}s")
    found = {tool: sum(results[t, tool].found_after is not None for t in targets) for tool in tools}
    # Tools left out by --tools count 0, so that the line keeps its shape; missing ones are n/a.
    counts = [f"{tool}={'n/a' if tool in missing else found.get(tool, 0)}" for tool in TOOLS]
    print(" ".join(["bugs", *counts, f"of={len(targets)}"]))
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == CHILD:
        sys.exit(CHILDREN[sys.argv[2]](*sys.argv[3:]))
    sys.exit(main())
