"""The fuzzing loop: pick a function, choose typed arguments, call it in the child.

Arguments come from the corpus (mutated) or fresh from the type hints;
inputs that reach new branches join the corpus; each new crash site is
shrunk before it is reported; examples per function are chosen from the
corpus now and then. The same seed gives the same sequence of calls.
"""

from __future__ import annotations

import dataclasses
import os
import platform
import random
import shlex
import time
from dataclasses import dataclass, field

from engines import events, sandbox
from engines.pyfunc import examples as examples_
from engines.pyfunc.executor import Child, Outcome, TargetError
from engines.pyfunc.mutate import Mutator, shrink_candidates
from engines.pyfunc.state import decode, encode
from engines.pyfunc.values import ValueGenerator, call_source, imports, split_call
from engines.reduce.ddmin import Budget
from engines.reduce.pyinputs import shrink_values

ENGINE_NAME = "pyfunc"
STATS_INTERVAL_SECONDS = 1.0
CHECKPOINT_INTERVAL_SECONDS = 5.0
STATE_VERSION = 1
STOP_CHECK_INTERVAL_SECONDS = 0.2
# Examples are chosen soon after the start, so a campaign page has some to
# show early, then now and then, and once more at the end.
FIRST_EXAMPLES_SECONDS = 10.0
EXAMPLES_INTERVAL_SECONDS = 60.0
# A fresh child now and then keeps state a target leaks (caches, globals,
# memory) from piling up over a long run.
RECYCLE_AFTER_CALLS = 20_000
# A function whose first calls all time out cannot be fuzzed (a server loop,
# a function waiting for input): it is set aside with that reason rather
# than reported as a bug on every draw.
HANG_PROBE_CALLS = 3

__all__ = ["Config", "Summary", "TargetError", "run", "ENGINE_NAME"]


@dataclass(frozen=True)
class Config:
    """What to fuzz and for how long."""

    target: str
    seconds: float = 60.0
    seed: int = 0
    max_executions: int | None = None
    search_path: list[str] = field(default_factory=list)
    limits: sandbox.Limits = field(default_factory=sandbox.Limits)
    # A state from EventSink.checkpoint: continue that run instead of starting anew.
    resume: dict | None = None
    # Coverage guidance; off, every call is drawn fresh from the types.
    guided: bool = True
    # Exception types (qualified names, as printed) that are not findings.
    ignore_exceptions: list[str] = field(default_factory=list)
    # Which functions (fnmatch patterns on "name" or "submodule.name").
    include: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    # Modules imported in the child before the target: custom generators
    # (engines.pyfunc.generators) are registered there.
    setup: list[str] = field(default_factory=list)


@dataclass
class Summary:
    """Totals of a finished run."""

    executions: int = 0
    findings: int = 0
    restarts: int = 0
    functions: list[str] = field(default_factory=list)
    skipped: list[dict] = field(default_factory=list)
    stopped: bool = False


@dataclass
class _Entry:
    args: list
    kwargs: dict
    added_at: int
    # The call came back (returned or raised): it can be replayed as an example.
    replayable: bool = True


class Search:
    """Coverage-guided choice of the next call: a corpus per function, grown by new branches.

    Most calls mutate one parameter of a corpus input, preferring inputs that
    found new branches recently (they sit at the frontier of what has been
    explored); the rest are drawn fresh from the types.
    """

    MUTATE_PROBABILITY = 0.8
    RECENT = 8

    def __init__(self, rng: random.Random, values: ValueGenerator, guided: bool = True):
        self.guided = guided
        self.rng = rng
        self.values = values
        self.mutator = Mutator(values)
        self.corpus: dict[str, list[_Entry]] = {}
        self.coverage: set[tuple] = set()
        # Functions whose corpus grew since their examples were last chosen.
        self.changed: set[str] = set()
        self.called: set[str] = set()

    @property
    def corpus_size(self) -> int:
        return sum(len(entries) for entries in self.corpus.values())

    def next_call(self, function: dict) -> tuple[list, dict]:
        parameters = function["parameters"]
        self.values.new_call(function["dictionary"])
        entries = self.corpus.get(function["name"])
        if self.guided and entries and parameters and self.rng.random() < self.MUTATE_PROBABILITY:
            recent = entries[-self.RECENT :]
            entry = self.rng.choice(recent if self.rng.random() < 0.6 else entries)
            values = [*entry.args, *entry.kwargs.values()]
            for _ in range(1 if self.rng.random() < 0.7 else 2):
                index = self.rng.randrange(len(parameters))
                values[index] = self.mutator.mutate(values[index], parameters[index]["type"])
        else:
            values = [self._fresh(p) for p in parameters]
        if function["name"] not in self.called:
            # A function's first call gets the simplest arguments (0, "", []): a
            # function that hangs on some inputs only then answers at once, and
            # the hang probe does not take it for one that never returns.
            self.called.add(function["name"])
            values = [next(shrink_candidates(v, p["type"]), v) for v, p in zip(values, parameters, strict=True)]
        return split_call(values, parameters)

    def _fresh(self, parameter: dict):
        if "default" in parameter and self.values.random.random() < 0.5:
            return parameter["default"]
        return self.values.generate(parameter["type"])

    def observe(self, function: str, args: list, kwargs: dict, outcome: Outcome, executions: int) -> bool:
        """Merge the call's branches; keep the input if any was new. True if so.

        A new way out of the function (returning, raising a type it had not
        raised) counts as a new branch too: an exception leaves by the same
        arc a return does, and the examples need an input for each.
        """
        exit_feature = (f"<{function} {outcome.status} {outcome.crash_type}>", 0, 0)
        new = [arc for arc in (*outcome.arcs, exit_feature) if arc not in self.coverage]
        if not new:
            return False
        self.coverage.update(new)
        replayable = outcome.status in ("ok", "exception")
        self.corpus.setdefault(function, []).append(_Entry(list(args), dict(kwargs), executions, replayable))
        self.changed.add(function)
        return True

    def replayable(self, function: str) -> list[tuple[list, dict]]:
        """The corpus inputs of ``function`` that can be called again safely."""
        return [(e.args, e.kwargs) for e in self.corpus.get(function, []) if e.replayable]

    def state(self) -> dict:
        return {
            "coverage": [list(arc) for arc in sorted(self.coverage)],
            "corpus": {
                name: [[encode(e.args), encode(e.kwargs), e.added_at, e.replayable] for e in entries]
                for name, entries in self.corpus.items()
            },
            "called": sorted(self.called),
        }

    def restore(self, state: dict) -> None:
        self.coverage = {tuple(arc) for arc in state.get("coverage", [])}
        self.corpus = {
            name: [_Entry(decode(args), decode(kwargs), added, *rest) for args, kwargs, added, *rest in entries]
            for name, entries in state.get("corpus", {}).items()
        }
        self.changed = set(self.corpus)
        # Older checkpoints have no "called": a function with a corpus was called.
        self.called = set(state.get("called", self.corpus))


def dictionary(constants: dict) -> dict[str, list]:
    """The child's literals, typed back (bytes travel as latin-1 text), untrusted input dropped."""
    expected = {"int": int, "float": float, "str": str, "bytes": str}
    typed = {}
    for kind, cls in expected.items():
        items = constants.get(kind) if isinstance(constants, dict) else None
        if isinstance(items, list):
            values = [v for v in items if type(v) is cls]
            typed[kind] = [v.encode("latin-1", "replace") for v in values] if kind == "bytes" else values
    return typed


def site_key(function: str, outcome: Outcome) -> tuple[str, str, str]:
    """Where a call failed: function, error type, innermost traced line."""
    # The innermost 'File "...", line N' of the trace, found without parsing it.
    index = outcome.trace.rfind('File "')
    where = outcome.trace[index : outcome.trace.find("\n", index)] if index != -1 else ""
    return (function, outcome.crash_type, where)


SHRINK_BUDGET = 400
# Wall-clock cap too: candidates near an out-of-memory or hang cost seconds each.
SHRINK_SECONDS = 5.0


def shrink(child: Child, function: dict, args: list, kwargs: dict, outcome: Outcome, summary: Summary):
    """The simplest call that still fails at the same site (see :func:`engines.reduce.pyinputs.shrink_values`).

    Returns (args, kwargs, outcome).
    """
    parameters = function["parameters"]
    target = site_key(function["name"], outcome)
    last = [outcome]

    def still_fails(trial: list) -> bool:
        result = child.call(function["name"], *split_call(trial, parameters))
        summary.executions += 1
        if not child.alive:
            summary.restarts += 1
            child.stop()
            child.start()
        if result.status != "ok" and site_key(function["name"], result) == target:
            last[0] = result
            return True
        return False

    values = shrink_values([*args, *kwargs.values()], parameters, still_fails, Budget(SHRINK_BUDGET, SHRINK_SECONDS))
    return (*split_call(values, parameters), last[0])


@dataclass
class _Site:
    best_call: str
    best_outcome: Outcome
    pending: int = 0
    needed: frozenset = frozenset()
    values: tuple = ()


class CrashSites:
    """Failing calls grouped by where they failed, reported without flooding.

    The first failure at a crash site (function, error type, innermost line
    of the trace) is reported at once. Later ones at the same site are
    counted, and once a second the site is reported again with those hits
    and the smallest call that failed there -- a demo target fails hundreds
    of times a second at the same few places, and storing each failing call
    would cost more than running it. Triage counts the hits either way.
    """

    def __init__(self, config: Config, environment: dict[str, str], sink: events.EventSink):
        self.config = config
        self.environment = environment
        self.sink = sink
        self.sites: dict[tuple[str, str, str], _Site] = {}
        self.known: set[tuple[str, str, str]] = set()

    def keys(self) -> list:
        return [encode(key) for key in [*self.sites, *self.known]]

    def is_new(self, function: str, outcome: Outcome) -> bool:
        key = site_key(function, outcome)
        return key not in self.sites and key not in self.known

    def hit(self, function: str, call: str, outcome: Outcome, needed=frozenset(), values: tuple = ()) -> None:
        key = site_key(function, outcome)
        if key in self.known:
            # Reported before a resume: this run knows it, minus the details.
            self.known.discard(key)
            self.sites[key] = _Site(call, outcome, pending=1, needed=frozenset(needed), values=values)
            return
        site = self.sites.get(key)
        if site is None:
            self.sites[key] = _Site(call, outcome, needed=frozenset(needed), values=values)
            self.sink.finding(call_finding(self.config, function, call, outcome, self.environment, needed, values))
            return
        site.pending += 1
        if len(call) < len(site.best_call):
            site.best_call, site.best_outcome, site.needed = call, outcome, frozenset(needed)
            site.values = values

    def report_pending(self) -> None:
        for (function, _, _), site in self.sites.items():
            if site.pending:
                finding = call_finding(
                    self.config, function, site.best_call, site.best_outcome, self.environment, site.needed, site.values
                )
                self.sink.finding(dataclasses.replace(finding, hits=site.pending))
                site.pending = 0


def _kind(outcome: Outcome) -> str:
    if outcome.status == "timeout":
        return events.TIMEOUT
    if outcome.crash_type in ("MemoryError", "SIGKILL"):
        # RLIMIT_AS turns most runaway allocations into MemoryError; the
        # kernel's OOM killer, where it strikes first, sends SIGKILL.
        return events.OOM
    return events.CRASH


def _shell_quote(text: str) -> str:
    # Python reprs are full of single quotes, which shlex.quote turns into
    # '"'"' soup; double quotes with the four special characters escaped
    # read far better in a bug report.
    if "'" not in text:
        return shlex.quote(text)
    escaped = "".join("\\" + c if c in '\\"$`' else c for c in text)
    return f'"{escaped}"'


def resolve_target(target: str, search_path: list[str]) -> tuple[str, list[str]]:
    """A module name and import path for ``target``: a module name, or a .py file or directory."""
    path = os.path.abspath(target)
    if target.endswith(".py") and os.path.isfile(path):
        return os.path.splitext(os.path.basename(path))[0], [*search_path, os.path.dirname(path)]
    if os.sep in target and os.path.isdir(path):
        return os.path.basename(path.rstrip(os.sep)), [*search_path, os.path.dirname(path.rstrip(os.sep))]
    return target, list(search_path)


def reproducer(config: Config, call: str, needed: set[tuple[str, str]]) -> str:
    """A one-line shell command that replays ``call`` (``needed``: what to import first)."""
    code = "; ".join([*(f"from {module} import {name}" for module, name in sorted(needed)), call])
    command = f"python3 -c {_shell_quote(code)}"
    if config.search_path:
        command = f"PYTHONPATH={shlex.quote(':'.join(config.search_path))} {command}"
    return command


def run_environment(config: Config) -> dict[str, str]:
    return {
        "engine": ENGINE_NAME,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(terse=True),
        "seed": str(config.seed),
    }


def _random_state(generator: random.Random) -> list:
    version, internal, gauss = generator.getstate()
    return [version, list(internal), gauss]


def _restore(generator: random.Random, state: list) -> None:
    version, internal, gauss = state
    generator.setstate((version, tuple(internal), gauss))


def _state(summary: Summary, rng: random.Random, values: ValueGenerator, search=None, sites=None) -> dict:
    # The random streams are the whole of this engine's search state: with
    # them restored, a resumed run draws exactly the calls the lost one would
    # have drawn next.
    return {
        "version": STATE_VERSION,
        "executions": summary.executions,
        "findings": summary.findings,
        "restarts": summary.restarts,
        "rng": _random_state(rng),
        "values_rng": _random_state(values.random),
        "search": search.state() if search else {},
        "sites": sites.keys() if sites else [],
    }


def run(config: Config, sink: events.EventSink) -> Summary:
    """Fuzz ``config.target`` until the budget is spent or the sink asks to stop.

    Raises :class:`TargetError` when the target cannot be imported or has no
    fuzzable function; everything the target does while being called is a
    finding instead.
    """
    module, search_path = resolve_target(config.target, config.search_path)
    config = dataclasses.replace(config, target=module, search_path=search_path)
    summary = Summary()
    rng = random.Random(config.seed)
    values = ValueGenerator(rng.randrange(2**32))
    if config.resume and config.resume.get("version") == STATE_VERSION:
        _restore(rng, config.resume["rng"])
        _restore(values.random, config.resume["values_rng"])
        summary.executions = config.resume["executions"]
        summary.findings = config.resume["findings"]
        summary.restarts = config.resume["restarts"]
    environment = run_environment(config)
    sites = CrashSites(config, environment, sink)
    ignored = set(config.ignore_exceptions)
    search = Search(rng, values, guided=config.guided)
    if config.resume and config.resume.get("version") == STATE_VERSION:
        search.restore(config.resume.get("search", {}))
        sites.known = {decode(key) for key in config.resume.get("sites", [])}
    child = Child(config.target, config.limits, config.search_path, config.include, config.exclude, config.setup)
    hello = child.start()
    functions = hello["functions"]
    for function in functions:
        function["dictionary"] = dictionary(function.get("constants", {}))
    summary.functions = [f["name"] for f in functions]
    summary.skipped = hello["skipped"]
    discovered = getattr(sink, "discovered", None)
    if discovered is not None:
        discovered(summary.functions, summary.skipped)
    if not functions:
        child.stop()
        reasons = "; ".join(f"{s['name']}: {s['reason']}" for s in summary.skipped)
        raise TargetError(f"{config.target} has no fuzzable function ({reasons or 'none found'})")

    started = time.monotonic()
    deadline = started + config.seconds
    next_stats = started + STATS_INTERVAL_SECONDS
    next_checkpoint = started + CHECKPOINT_INTERVAL_SECONDS
    next_stop_check = started
    next_examples = started + FIRST_EXAMPLES_SECONDS
    by_name = {f["name"]: f for f in functions}
    hangs = HangProbe(config.limits.call_timeout_seconds)
    try:
        while True:
            now = time.monotonic()
            if now >= deadline:
                break
            if config.max_executions is not None and summary.executions >= config.max_executions:
                break
            if now >= next_stop_check:
                next_stop_check = now + STOP_CHECK_INTERVAL_SECONDS
                if sink.should_stop():
                    summary.stopped = True
                    break
            if now >= next_stats:
                next_stats = now + STATS_INTERVAL_SECONDS
                sites.report_pending()
                sink.stats(_stats(summary, now - started, search))
            if now >= next_checkpoint:
                next_checkpoint = now + CHECKPOINT_INTERVAL_SECONDS
                sink.checkpoint(_state(summary, rng, values, search, sites))
            if now >= next_examples:
                report_examples(child, by_name, search, sink)
                next_examples = time.monotonic() + EXAMPLES_INTERVAL_SECONDS

            function = rng.choice(functions)
            args, kwargs = search.next_call(function)
            outcome = child.call(function["name"], args, kwargs)
            summary.executions += 1
            if outcome.status == "unbuildable":
                continue
            search.observe(function["name"], args, kwargs, outcome, summary.executions)

            if outcome.status in ("ok", "exception"):
                hangs.came_back(function["name"])
            if outcome.status == "exception" and outcome.crash_type in ignored:
                continue
            if outcome.status == "timeout":
                needed = imports([args, kwargs]) | {(function["module"], function["function"])}
                call = call_source(function["function"], args, kwargs)
                given = (*args, *kwargs.values())

                def report(function=function, call=call, outcome=outcome, needed=needed, given=given):
                    summary.findings += 1
                    sites.hit(function["name"], call, outcome, needed, given)

                if hangs.timed_out(function["name"], report):
                    functions.remove(function)
                    summary.functions.remove(function["name"])
                    summary.skipped.append({"name": function["name"], "reason": hangs.reason()})
                    if discovered is not None:
                        discovered(summary.functions, summary.skipped)
                    if not functions:
                        break
            elif outcome.status != "ok":
                summary.findings += 1
                if child.alive and sites.is_new(function["name"], outcome):
                    # A new crash site: report its simplest failing call.
                    args, kwargs, outcome = shrink(child, function, args, kwargs, outcome, summary)
                needed = imports([args, kwargs]) | {(function["module"], function["function"])}
                call = call_source(function["function"], args, kwargs)
                sites.hit(function["name"], call, outcome, needed, (*args, *kwargs.values()))
            # After a fork bomb or an exhausted address space the child is
            # not to be trusted with more calls: start a fresh one.
            exhausted = outcome.crash_type in ("BlockingIOError", "MemoryError")
            if not child.alive or exhausted or child.calls >= RECYCLE_AFTER_CALLS:
                if not child.alive:
                    summary.restarts += 1
                child.stop()
                child.start()
        hangs.flush()
        report_examples(child, by_name, search, sink)
    finally:
        child.stop()
    sites.report_pending()
    sink.stats(_stats(summary, time.monotonic() - started, search))
    sink.checkpoint(_state(summary, rng, values, search, sites))
    return summary


def report_examples(child: Child, functions: dict[str, dict], search: Search, sink) -> None:
    """Choose examples for each function whose corpus grew, and hand them to the sink."""
    deliver = getattr(sink, "examples", None)
    if deliver is None:
        return
    for name in sorted(search.changed):
        inputs = search.replayable(name)
        if inputs:
            chosen = examples_.choose(child, functions[name], inputs)
            deliver(name, examples_.report(functions[name], chosen))
    search.changed.clear()


class HangProbe:
    """Sets aside the functions that never return; holds their timeouts until it knows.

    Until one of a function's calls comes back, its timeouts are held. If the
    first HANG_PROBE_CALLS calls all time out, the function "could not be
    fuzzed"; once any call returns or raises, it can be, and the held
    timeouts are real findings (a hang on some inputs only is a bug).
    """

    def __init__(self, timeout_seconds: float):
        self.timeout_seconds = timeout_seconds
        self.completed: set[str] = set()
        self.held: dict[str, list] = {}

    def timed_out(self, function: str, report) -> bool:
        """Hold this timeout or pass it on (returns False); True when ``function`` is to be set aside."""
        if function in self.completed:
            report()
            return False
        held = self.held.setdefault(function, [])
        held.append(report)
        if len(held) < HANG_PROBE_CALLS:
            return False
        del self.held[function]  # set aside: not a bug to report
        return True

    def came_back(self, function: str) -> None:
        if function not in self.completed:
            self.completed.add(function)
            for report in self.held.pop(function, []):
                report()

    def flush(self) -> None:
        """At the end of a run: timeouts still held are findings (too few calls to say more)."""
        for function in list(self.held):
            for report in self.held.pop(function):
                report()

    def reason(self) -> str:
        return f"hangs: its first {HANG_PROBE_CALLS} calls did not return within {self.timeout_seconds:g} s"


def _stats(summary: Summary, elapsed: float, search: Search | None = None) -> events.Stats:
    return events.Stats(
        executions=summary.executions,
        findings=summary.findings,
        elapsed_seconds=elapsed,
        functions=len(summary.functions),
        restarts=summary.restarts,
        coverage=len(search.coverage) if search else 0,
        corpus_size=search.corpus_size if search else 0,
    )


def call_finding(
    config: Config, function: str, call: str, outcome: Outcome, environment, needed=frozenset(), values=()
) -> events.Finding:
    """The finding a failing call makes; reduction signs re-run calls through it too."""
    return events.Finding(
        kind=_kind(outcome),
        target=config.target,
        function=function,
        crash_type=outcome.crash_type,
        message=outcome.message,
        trace=outcome.trace,
        input_text=call,
        reproducer=reproducer(config, call, needed),
        setup="\n".join(f"from {module} import {name}" for module, name in sorted(needed)),
        expected=outcome.expected,
        environment=environment,
        metadata=call_metadata(config, values),
    )


def call_metadata(config: Config, values: tuple) -> dict:
    """What replays the call without parsing its source: the typed values and where the target is.

    Reduction shrinks these further, on a worker, with the engine's own
    shrinking. A value the checkpoint format cannot hold leaves them out.
    """
    try:
        encoded = [encode(value) for value in values]
    except TypeError:
        return {}
    return {"values": encoded, "search_path": list(config.search_path), "setup_modules": list(config.setup)}
