"""Re-run a testcase here and tell whether it lands in the same bucket; reduce it while it does.

No database: a :class:`Case` is plain data, written to a JSON file for the
interestingness script C-Vise runs (``python -m triage.reproduction CASE
PROGRAM`` exits 0 when PROGRAM reproduces the case), and built from a stored
finding by :mod:`triage.reduction`.

"The same bucket" is the whole test: the candidate is run on the same
backends (or the same function) as the finding, the findings that run
produces are signed exactly as ingest signs them, and the candidate is
interesting only if one of them has the bucket's signature. A candidate
that still fails, but differently (another exception, other backends
disagreeing), is another bucket's testcase and is rejected.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from engines import sandbox
from engines.differential import compare, findings, harness
from engines.differential import engine as differential
from engines.differential.backends import available
from engines.differential.c import undefined_behaviour
from engines.pyfunc import engine as pyfunc
from engines.pyfunc.executor import Outcome
from engines.pyfunc.state import decode
from engines.pyfunc.values import imports, split_call
from engines.reduce import cclean, external, pyreduce, textreduce, treereduce
from engines.reduce.pyinputs import CallRunner, reduce_call
from engines.reduce.result import Reduction
from triage.signing import submission_signature
from triage.submission import submission_from_engine
from triage.target_options import SignatureOptions

DIFFERENTIAL, PYFUNC = "differential", "pyfunc"
PROJECT_ROOT = Path(__file__).resolve().parent.parent


class CannotReproduce(Exception):
    """This machine cannot run the testcase: a backend or the target is missing, or nothing replays it."""


@dataclass(frozen=True)
class Case:
    """How to re-run a finding here, and the signature that makes a run "the same bucket"."""

    runner: str  # differential or pyfunc
    signature: str
    kind: str
    target: str
    engine: str
    language: str
    top_n: int = 3
    ignore: tuple[str, ...] = ()
    # differential: every backend the finding was run on, and the designated reference ("" = majority)
    backends: tuple[str, ...] = ()
    reference: str = ""
    # a user-defined target's description (engines.differential.spec), as its campaign ran it
    spec: dict | None = None
    # pyfunc: the function (as the engine names it), its import path and setup modules
    function: str = ""
    search_path: tuple[str, ...] = ()
    setup: tuple[str, ...] = ()
    values: list = field(default_factory=list)
    # differential: seconds a backend may run a candidate (None: the backend's own run_timeout)
    run_timeout: float | None = None

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, data: str) -> Case:
        raw = json.loads(data)
        for name in ("ignore", "backends", "search_path", "setup"):
            raw[name] = tuple(raw.get(name, ()))
        return cls(**raw)

    @property
    def options(self) -> SignatureOptions:
        return SignatureOptions(top_n=self.top_n, ignore=tuple(re.compile(p) for p in self.ignore))


@dataclass(frozen=True)
class Attempt:
    """One run of a candidate: the bucket signatures it produced, and what happened, in a line."""

    signatures: tuple[str, ...]
    summary: str
    found: tuple = ()  # the engine's findings, one per signature: what is stored when a candidate is accepted

    def reproduces(self, case: Case) -> bool:
        return case.signature in self.signatures


# --- running a program on the case's backends -------------------------------------------------
def _backends(case: Case):
    if case.spec is not None:
        try:
            language = differential.user_language(case.spec, sandbox.Limits())
        except differential.SetupError as error:
            raise CannotReproduce(str(error)) from None
        table = {b.name: b for b in language.backends()}
        unknown = [name for name in case.backends if name not in table]
        if unknown:
            raise CannotReproduce(f"not backends of this target: {', '.join(unknown)}")
        missing = [name for name in case.backends if not table[name].available()]
        if missing:
            raise CannotReproduce(f"not installed on this worker: {', '.join(missing)}")
        return language, _timed(case, [table[name] for name in case.backends])
    language = differential.LANGUAGES.get(case.language)
    if language is None:
        raise CannotReproduce(f"no backends for {case.language!r} programs here")
    installed = {b.name: b for b in available(language.backends())}
    missing = [name for name in case.backends if name not in installed]
    if missing:
        raise CannotReproduce(f"not installed on this worker: {', '.join(missing)}")
    return language, _timed(case, [installed[name] for name in case.backends])


def _timed(case: Case, backends: list) -> list:
    if case.run_timeout is None:
        return backends
    return [dataclasses.replace(b, run_timeout=min(b.run_timeout, case.run_timeout)) for b in backends]


CLEAN_UP_MIN_SECONDS = 60.0


def for_reduction(case: Case, text: str) -> Case:
    """The case with its candidates' run time bounded by the original's (timeouts and OOMs keep theirs)."""
    if case.runner != DIFFERENTIAL or case.kind in ("timeout", "oom"):
        return case
    language, backends = _backends(case)
    timeout = harness.candidate_timeout(harness.process(text, language.suffix, backends, sandbox.Limits()))
    return case if timeout is None else dataclasses.replace(case, run_timeout=timeout)


def run_program(case: Case, text: str, limits: sandbox.Limits | None = None) -> Attempt:
    """Run ``text`` through the case's backends and sign the findings it produces."""
    language, backends = _backends(case)
    limits = limits or sandbox.Limits()
    results = harness.process(text, language.suffix, backends, limits)
    outcomes = ", ".join(f"{r.backend} {r.outcome}" for r in results)
    if compare.too_slow(results):
        return Attempt((), f"too slow on most backends ({outcomes})")
    verdict = compare.classify(results, case.reference or None)
    found = findings.findings(
        target=case.target,
        language=case.language,
        program=text,
        reproducer="",
        verdict=verdict,
        results=results,
        metadata={},
    )
    signed = tuple(submission_signature(submission_from_engine(f, case.engine), case.options).digest for f in found)
    described = "; ".join(f"{f.crash_type}: {f.message[:200]}" for f in found) or "no finding"
    attempt = Attempt(signed, f"{described} ({outcomes})", tuple(found))
    if case.kind == "miscompilation" and attempt.reproduces(case):
        # Only now, for the few candidates that would be accepted: these checks cost more than the run.
        doubt = _doubt(case, text, language, backends, results, verdict.reference, limits)
        if doubt:
            return Attempt((), doubt)
    return attempt


def _doubt(case: Case, text: str, language, backends, results, reference: str, limits) -> str:
    """Why a disagreement may be the program's fault rather than a backend's ("" if none).

    Reducers drift towards exactly such programs: one whose output is not a
    function of its text (an object's address, hash order) disagrees with
    everything, every time, and so does C that reads uninitialised memory.
    """
    backend = next(b for b in backends if b.name == reference)
    again = harness.process(text, language.suffix, [backend], limits)[0]
    first = next(r for r in results if r.backend == reference)
    if (again.stdout, again.exit_status) != (first.stdout, first.exit_status):
        return f"nondeterministic: {reference} printed something else when run again"
    if case.language == "c":
        reason = undefined_behaviour(text, limits)
        if reason:
            return f"undefined behaviour: {reason}"
    return ""


# --- running a call of the case's function ------------------------------------------------------
def call_runner(case: Case) -> CallRunner:
    try:
        return CallRunner(case.target, case.function, case.search_path, case.setup)
    except pyfunc.TargetError as error:
        raise CannotReproduce(str(error)) from None


def outcome_attempt(case: Case, outcome: Outcome) -> Attempt:
    """Sign a call's outcome as the function engine would have reported it (the call's text is not signed)."""
    if outcome.status == "ok":
        return Attempt((), "returned normally")
    config = pyfunc.Config(target=case.target, search_path=list(case.search_path), setup=list(case.setup))
    finding = pyfunc.call_finding(config, case.function, "", outcome, {})
    signature = submission_signature(submission_from_engine(finding, case.engine), case.options).digest
    return Attempt((signature,), f"{outcome.crash_type}: {outcome.message[:200]}" if outcome.crash_type else "failed")


def decoded(values: list) -> list:
    """A call's arguments from their stored (checkpoint) encoding."""
    return [decode(value) for value in values]


def run_call(case: Case, runner: CallRunner, values: list) -> Attempt:
    outcome = runner.call(values)
    attempt = outcome_attempt(case, outcome)
    if not attempt.signatures:
        return attempt
    # The whole finding, as the engine would report this call: its source, imports and typed values.
    args, kwargs = split_call(values, runner.parameters)
    needed = imports([args, kwargs]) | {(runner.function["module"], runner.function["function"])}
    config = pyfunc.Config(target=case.target, search_path=list(case.search_path), setup=list(case.setup))
    environment = pyfunc.run_environment(config)
    finding = pyfunc.call_finding(config, case.function, runner.source(values), outcome, environment, needed, values)
    return dataclasses.replace(attempt, found=(finding,))


# --- verification and reduction -----------------------------------------------------------------
@dataclass(frozen=True)
class Verification:
    runs: int
    passes: int
    attempts: tuple[Attempt, ...]

    @property
    def reliable(self) -> bool:
        return self.runs > 0 and self.passes == self.runs

    @property
    def flaky(self) -> bool:
        return 0 < self.passes < self.runs

    def describe(self, case: Case) -> str:
        """What the failing runs did instead, for the page."""
        other = [a.summary for a in self.attempts if not a.reproduces(case)]
        return "; ".join(dict.fromkeys(other))[:1000]


def verify(case: Case, text: str, runs: int, values: list | None = None) -> Verification:
    """Run the testcase ``runs`` times; a reducer's result is accepted only if every run reproduces."""
    attempts: list[Attempt] = []
    if case.runner == PYFUNC:
        runner = call_runner(case)
        try:
            # A fresh child for each run: state one call leaves behind must not make the next one fail.
            for _ in range(runs):
                attempts.append(run_call(case, runner, values if values is not None else decoded(case.values)))
                runner.child.stop()
                runner.child.start()
        finally:
            runner.stop()
    else:
        attempts = [run_program(case, text) for _ in range(runs)]
    return Verification(runs, sum(a.reproduces(case) for a in attempts), tuple(attempts))


def reduce_case(
    case: Case,
    text: str,
    seconds: float,
    on_progress: Callable[[str, int], None] | None = None,
    max_tests: int | None = None,
) -> tuple[Reduction, list | None]:
    """Reduce the testcase with the reducer for its kind; returns the reduction and, for a call, its values.

    ``max_tests`` bounds a Python program's reduction by tests as well as by ``seconds``.
    """
    case = for_reduction(case, text)
    if case.runner == PYFUNC:
        runner = call_runner(case)
        try:

            def same(outcome: Outcome) -> bool:
                return outcome_attempt(case, outcome).reproduces(case)

            return reduce_call(runner, decoded(case.values), same, seconds=seconds, on_progress=on_progress)
        finally:
            runner.stop()
    if case.language in ("c", "cpp", "c++") and external.available_tool():
        with tempfile.NamedTemporaryFile("w", suffix=".json", prefix="fuzzweb-case-", delete=False) as handle:
            handle.write(case.to_json())
        started = time.monotonic()
        try:
            check = ["env", f"PYTHONPATH={PROJECT_ROOT}", sys.executable, "-m", "triage.reproduction", handle.name]
            suffix = _backends(case)[0].suffix if case.runner == DIFFERENTIAL else ".c"
            reduced = external.reduce_c(text, check, suffix, seconds=seconds, on_progress=on_progress)
        finally:
            Path(handle.name).unlink(missing_ok=True)
        # C-Vise's fixpoint keeps Csmith's wrappers and checksum; the clean-up gets the rest of the budget,
        # and at least a minute: it is a few dozen tests, and what makes the result worth pasting.
        remaining = max(CLEAN_UP_MIN_SECONDS, seconds - (time.monotonic() - started))
        cleaned, tests = reduced.text, 0
        if case.language == "c":  # C only: the candidates' undefined-behaviour check is C's (_doubt)
            cleaned, tests = cclean.clean(reduced.text, lambda c: run_program(case, c).reproduces(case), remaining)
        if cleaned != reduced.text and on_progress is not None:
            on_progress(cleaned, reduced.tests + tests)
        return dataclasses.replace(
            reduced, text=cleaned, tests=reduced.tests + tests, seconds=time.monotonic() - started
        ), None

    def interesting(candidate: str) -> bool:
        return run_program(case, candidate).reproduces(case)

    if case.language == "python":
        tests = {} if max_tests is None else {"max_tests": max_tests}
        return pyreduce.reduce_python(text, interesting, seconds=seconds, on_progress=on_progress, **tests), None
    if case.language == "kotlin":
        return treereduce.reduce_kotlin(text, interesting, seconds=seconds, on_progress=on_progress), None
    return textreduce.reduce_text(text, interesting, seconds=seconds, on_progress=on_progress), None


def main(argv: list[str] | None = None) -> int:
    """Interestingness test for external reducers: exit 0 when PROGRAM reproduces the case in CASE (JSON)."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m triage.reproduction CASE.json PROGRAM", file=sys.stderr)
        return 2
    case = Case.from_json(Path(args[0]).read_text())
    text = Path(args[1]).read_text(encoding="utf-8", errors="surrogateescape")
    attempt = run_program(case, text)
    print(attempt.summary, file=sys.stderr)
    return 0 if attempt.reproduces(case) else 1


if __name__ == "__main__":
    raise SystemExit(main())
