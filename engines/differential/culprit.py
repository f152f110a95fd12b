"""Which optimisation breaks a program: the culprit of a C wrong-code (or optimisation-only crash) finding.

Two ways in, one per compiler family, both by re-compiling the (reduced)
program and asking ``bad(result)`` of each build:

- clang (LLVM): ``-mllvm -opt-bisect-limit=N`` runs only the first N
  optimisation passes. With every pass the program is bad, with none it is
  good (else no pass is to blame); a binary search finds the first N at
  which it turns bad, and clang's own ``BISECT: running pass (N) NAME on
  FUNCTION`` line names that pass and where it ran.
- gcc: the level's ``-f`` flags (``-Q --help=optimizers``). If turning one
  off (``-fno-…``) makes the program good, that flag is the culprit;
  otherwise delta debugging finds a smallest set of flags whose removal
  does. Where turning every flag off is still bad, the bug is below the
  flags (the level itself, or a backend pass), and the culprit says so.
  Asked to narrow further, the same search runs over gcc's debug counters
  (``-fdbg-cnt-list``; ``-fdbg-cnt=NAME:0`` stops every transformation the
  counter counts): the counter whose zeroing makes the program right, and
  by bisection the first count N at which ``-fdbg-cnt=NAME:N`` breaks it,
  which is how a gcc developer pins the one transformation to look at.

Where neither names a cause (another compiler, or a program that stays
wrong with every flag off or every pass skipped), the answer says the bug
is beyond the pipeline, and the caller keys it by the shape of its reduced
program instead (engines.differential.shape).

Every compile and run goes through the same sandboxed harness as the
campaign's. Pure of Django; the caller stores the answer.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import partial

from engines import sandbox
from engines.differential import harness
from engines.differential.backends import Backend, version_of

_BISECT_LINE = re.compile(r"^BISECT: running pass \((\d+)\) (.+?) on (.+)$", re.M)
_GCC_FLAG = re.compile(r"^\s+(-f[a-z0-9][a-z0-9-]*)\s+\[enabled\]\s*$", re.M)
MAX_TESTS = 400


@dataclass(frozen=True)
class Culprit:
    """What broke the program, as a maintainer would name it in a report."""

    method: str  # opt-bisect, flags, none
    name: str  # the pass (InstCombinePass), the flag set (-ftree-vrp), or why none was found
    position: int | None = None  # opt-bisect: the pass's number; flags: how many flags the level enables
    detail: str = ""  # where it ran (the function), the passes counted, …
    tests: int = 0
    narrowed: str = ""  # gcc: the debug counter and first count that break it ("ccp:3"), where one does
    # No flag or pass of the pipeline is to blame (or there is no pipeline to ask): the program's shape is.
    beyond_pipeline: bool = False

    @property
    def key(self) -> str:
        """The part that identifies the cause (no positions or functions, which move with the program)."""
        return f"{self.method}:{self.name}"

    def to_dict(self) -> dict:
        return {
            "method": self.method,
            "name": self.name,
            "position": self.position,
            "detail": self.detail,
            "tests": self.tests,
            "narrowed": self.narrowed,
            "beyond_pipeline": self.beyond_pipeline,
        }


# The methods that name a cause; "none" says why there is none. "shape" is the reduced difference's
# (engines.differential.shape), for backends with no pipeline to bisect.
FOUND = ("opt-bisect", "flags", "shape")


def cause_key(compiler_family: str, answer: dict) -> str:
    """What identifies a cause across levels and backends: the compiler family and the pass or flags found."""
    return f"{compiler_family}:{answer['method']}:{answer['name']}" if answer.get("method") in FOUND else ""


class _Budget:
    def __init__(self, limit: int):
        self.used, self.limit = 0, limit
        self._lock = threading.Lock()  # the single-flag scan spends from several threads

    def spend(self) -> None:
        with self._lock:
            self.used += 1
            if self.used > self.limit:
                raise _OutOfTests


class _OutOfTests(Exception):
    pass


def prints_otherwise_than(expected: harness.Result) -> Callable[[harness.Result], bool]:
    """The ``bad`` of a wrong-code finding: a build that runs to its end but exits or prints otherwise."""
    observed = (expected.exit_status, expected.stdout)
    return lambda result: result.completed and (result.exit_status, result.stdout) != observed


def family(backend: Backend) -> str:
    """clang, gcc or "" from the backend's version line (falling back to its program's name)."""
    version = version_of(backend).lower()
    program = backend.program.rsplit("/", 1)[-1].lower()
    if "clang" in version or program.startswith("clang"):
        return "clang"
    if "gcc" in version or "free software foundation" in version or program.startswith(("gcc", "cc")):
        return "gcc"
    return ""


def find(
    backend: Backend,
    program: str,
    suffix: str,
    bad: Callable[[harness.Result], bool],
    limits: sandbox.Limits | None = None,
    max_tests: int = MAX_TESTS,
    narrow: bool = False,
    others: tuple[Backend, ...] = (),
) -> Culprit:
    """The culprit of ``program`` misbehaving under ``backend``; ``bad`` says whether one build still does.

    ``narrow``: for gcc, also the debug counter and count that break it (a few dozen compiles more).
    ``others``: the same compiler at other levels the program misbehaves at (gcc: the flags must suffice there too).
    """
    limits = limits or sandbox.Limits()
    budget = _Budget(max_tests)

    def trial(extra: tuple[str, ...], on: Backend = backend) -> harness.Result:
        budget.spend()
        return harness.process(program, suffix, [_with_flags(on, extra)], limits)[0]

    kind = family(backend)
    try:
        if backend.compile is None:
            return Culprit("none", "an interpreter: no optimisation pipeline to bisect", beyond_pipeline=True)
        if not bad(trial(())):
            return Culprit("none", "does not misbehave again", tests=budget.used)
        if kind == "clang":
            listing = _compile_stderr(backend, program, suffix, ("-mllvm", "-opt-bisect-limit=-1"), limits)
            return _opt_bisect(listing, trial, bad, budget)
        if kind == "gcc":
            found = _gcc_flags(backend, trial, bad, budget, others)
            if narrow and found.method == "flags":
                found = replace(found, narrowed=_debug_counter(backend, trial, bad, budget), tests=budget.used)
            return found
        return Culprit(
            "none",
            "not gcc or clang: no known way to bisect its optimisations",
            tests=budget.used,
            beyond_pipeline=True,
        )
    except _OutOfTests:
        return Culprit("none", f"no answer within {max_tests} compiles", tests=budget.used)


def _with_flags(backend: Backend, extra: tuple[str, ...]) -> Backend:
    # Last, so -fno-… overrides the level given before it.
    compile_ = (backend.compile[0], *backend.compile[1:], *extra) if extra else backend.compile
    return replace(backend, compile=compile_)


def _compile_stderr(backend: Backend, program: str, suffix: str, extra: tuple[str, ...], limits) -> str:
    """What the compile step alone prints on stderr (the harness keeps the run step's)."""
    return harness.compile_only(program, suffix, _with_flags(backend, extra), limits).stderr


def _opt_bisect(listing: str, trial, bad, budget: _Budget) -> Culprit:
    passes = {int(n): (name, where) for n, name, where in _BISECT_LINE.findall(listing)}
    if not passes:
        return Culprit("none", "this clang prints no opt-bisect lines", tests=budget.used, beyond_pipeline=True)
    if bad(trial(("-mllvm", "-opt-bisect-limit=0"))):
        return Culprit(
            "none",
            "misbehaves with every optimisation pass skipped",
            detail="front end or codegen",
            tests=budget.used,
            beyond_pipeline=True,
        )
    # Invariant: limit ``good`` is good, limit ``high`` is bad.
    good, high = 0, max(passes)
    while high - good > 1:
        middle = (good + high) // 2
        if bad(trial(("-mllvm", f"-opt-bisect-limit={middle}"))):
            high = middle
        else:
            good = middle
    name, where = passes.get(high, ("?", "?"))
    return Culprit("opt-bisect", name, high, f"pass {high} of {max(passes)}, on {where}", budget.used)


def gcc_level_flags(backend: Backend) -> list[str]:
    """The ``-f`` optimisation flags the backend's level enables (``gcc -Q --help=optimizers``)."""
    levels = [part for part in backend.compile if re.fullmatch(r"-O[0-3sgz]?|-Ofast", part)]
    command = [backend.compile[0], *(levels[-1:] or ["-O0"]), "-Q", "--help=optimizers"]
    try:
        listed = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)  # noqa: S603
    except (OSError, subprocess.TimeoutExpired):
        return []
    return _GCC_FLAG.findall(listed.stdout)


# GCC flags that switch a whole group of passes on or off rather than one transformation: the loop
# optimiser (every pass under pass_tree_loop), inlining, vectorisation, and the switch dozens of passes
# read. Removing one makes most bugs in its group go away, so it names a cause only when nothing
# narrower does.
GCC_UMBRELLA_FLAGS = frozenset({"-ftree-loop-optimize", "-finline", "-ftree-vectorize", "-fexpensive-optimizations"})
# Compiles run at once in the single-flag scan: each is a compile and a run of its own.
PARALLEL = max(1, min(4, os.cpu_count() or 1))


def _gcc_flags(backend: Backend, trial, bad, budget: _Budget, others=()) -> Culprit:
    """The flags whose removal makes the program right; ``others``: more levels it misbehaves at.

    Every flag is tried alone: a bug in an analysis several passes share is
    made right by removing any of them, and one bug's programs agree on the
    pass it is in but each adds the passes that expose it, so the answer is
    the set, not whichever one a search happens to reach first. At the
    other levels only the flags found are tried again; the cause is what
    suffices at every level. Where no single flag does, delta debugging
    finds a smallest set removed together.
    """
    flags = gcc_level_flags(backend)
    if not flags:
        return Culprit("none", "the compiler listed no optimisation flags", tests=budget.used, beyond_pipeline=True)

    def good_without(subset: list[str], build=trial) -> bool:
        return not bad(build(tuple(f"-fno-{flag[2:]}" for flag in subset)))

    if not good_without(flags):
        return Culprit(
            "none",
            "misbehaves with every -f flag of its level off",
            len(flags),
            "the level or a backend pass",
            budget.used,
            beyond_pipeline=True,
        )
    alone = _each_alone(flags, good_without)
    for other in others:
        enabled = set(gcc_level_flags(other))
        still = [flag for flag in alone if flag in enabled]
        kept = _each_alone(still, partial(good_without, build=partial(trial, on=other)))
        # A level where none of them suffices says nothing about which: keep what the others agree on.
        alone = [flag for flag in alone if flag in kept or flag not in enabled] if kept else alone
    if alone:
        narrow = [flag for flag in alone if flag not in GCC_UMBRELLA_FLAGS] or alone
        detail = "removing it alone makes the program right" if len(narrow) == 1 else "removing any one alone does"
        if others:
            detail += f", at each of the {1 + len(others)} levels it misbehaves at"
        if len(narrow) < len(alone):
            umbrellas = ", ".join(sorted(set(alone) - set(narrow)))
            detail += f"; so does removing {umbrellas}, which switch whole groups of passes off"
        return Culprit("flags", " or ".join(sorted(narrow)), len(flags), detail, budget.used)
    # Delta debugging over the removal set: a few dozen compiles where no single flag suffices.
    smallest = _ddmin_removal(flags, good_without)
    detail = "removing it alone makes the program right" if len(smallest) == 1 else "removed together"
    return Culprit("flags", " ".join(sorted(smallest)), len(flags), detail, budget.used)


# Flags removed together in the first round of the scan.
GROUP = 8


def _each_alone(flags: list[str], good_without: Callable[[list[str]], bool]) -> list[str]:
    """The flags whose removal alone makes the program right.

    Group testing: removing less optimisation does not break a program
    that removing more made right, so a flag that suffices alone lies in a
    group whose removal does. Groups first, then each flag of the groups
    that made the program right: about ``len(flags) / GROUP + GROUP`` compiles
    per flag found instead of one per flag. A few compiles at a time.
    """
    groups = [flags[i : i + GROUP] for i in range(0, len(flags), GROUP)]
    with ThreadPoolExecutor(PARALLEL) as pool:
        # One group or none: its flags are tried alone straight away.
        verdicts = list(pool.map(good_without, groups)) if len(groups) > 1 else [True] * len(groups)
        suspects = [flag for group, good in zip(groups, verdicts, strict=True) if good for flag in group]
        alone = list(pool.map(lambda flag: good_without([flag]), suspects))
    return [flag for flag, good in zip(suspects, alone, strict=True) if good]


_COUNTER = re.compile(r"^\s*([a-z][a-z0-9_]+)\s+\d", re.M)
MAX_COUNT = 1 << 20


def gcc_debug_counters(backend: Backend) -> list[str]:
    """The names of the backend's gcc debug counters (``-fdbg-cnt-list``), or [] if it lists none."""
    command = [backend.compile[0], "-fdbg-cnt-list", "-x", "c", "-c", "-o", "/dev/null", "-"]
    try:
        listed = subprocess.run(  # noqa: S603
            command, input="int x;\n", capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    return _COUNTER.findall(listed.stdout + listed.stderr)


def _debug_counter(backend: Backend, trial, bad, budget: _Budget) -> str:
    """ "NAME:N": the counter whose zeroing makes the program right, and the first count that breaks it."""
    counters = gcc_debug_counters(backend)

    def good_without(subset: list[str]) -> bool:
        return not bad(trial(("-fdbg-cnt=" + ",".join(f"{name}:0" for name in subset),)))

    try:
        if not counters or not good_without(counters):
            return ""
        found = _ddmin_removal(counters, good_without)
        if len(found) != 1:
            return ""
        name = found[0]

        def bad_at(count: int) -> bool:
            return bad(trial((f"-fdbg-cnt={name}:{count}",)))

        # Invariant: count ``good`` is good (0 is), ``high`` is bad; double until bad, then bisect.
        good, high = 0, 1
        while not bad_at(high):
            good, high = high, high * 2
            if high > MAX_COUNT:
                return ""
        while high - good > 1:
            middle = (good + high) // 2
            if bad_at(middle):
                high = middle
            else:
                good = middle
        return f"{name}:{high}"
    except _OutOfTests:
        return ""


def _ddmin_removal(flags: list[str], good_without: Callable[[list[str]], bool]) -> list[str]:
    """A 1-minimal subset whose removal makes the program good (delta debugging on the removal set)."""
    current, chunks = list(flags), 2
    while len(current) >= 2:
        size = max(1, len(current) // chunks)
        parts = [current[i : i + size] for i in range(0, len(current), size)]
        for part in parts:
            if good_without(part):
                current, chunks = part, 2
                break
        else:
            for part in parts:
                rest = [flag for flag in current if flag not in part]
                if rest and good_without(rest):
                    current, chunks = rest, max(chunks - 1, 2)
                    break
            else:
                if chunks >= len(current):
                    break
                chunks = min(len(current), chunks * 2)
    return current
