"""Put one program through every backend and record what each did, stage by stage."""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
from dataclasses import dataclass

from engines import sandbox
from engines.differential import execute
from engines.differential.backends import Backend, version_of

# Outcome classes, as triage names them (triage.submission.OUTCOMES), plus oom.
OK, REJECTED, COMPILER_CRASH, RUNTIME_CRASH, TIMEOUT, OOM = (
    "ok",
    "rejected",
    "compiler_crash",
    "runtime_crash",
    "timeout",
    "oom",
)
_OOM_MARKERS = ("out of memory", "virtual memory exhausted", "MemoryError", "std::bad_alloc", "OutOfMemoryError")


@dataclass(frozen=True)
class Result:
    """One backend's result for one program."""

    backend: str
    stage: str  # the last stage reached: compile or run
    outcome: str  # ok, rejected, compiler_crash, runtime_crash, timeout, oom
    exit_status: int | None
    signal: str
    stdout: str
    stderr: str
    seconds: float  # of the last stage reached
    peak_memory_kb: int
    version: str
    compile_seconds: float = 0.0  # of the compile stage, when it got past it

    @property
    def total_seconds(self) -> float:
        return self.compile_seconds + self.seconds if self.stage == "run" else self.seconds

    @property
    def completed(self) -> bool:
        """The program ran to an end of its own (its output can be compared)."""
        return self.stage == "run" and self.outcome in (OK, RUNTIME_CRASH)


def _compile_outcome(backend: Backend, run: execute.Run) -> str:
    if run.timed_out:
        return TIMEOUT
    if run.returncode == 0:
        return OK
    if any(marker in run.stderr for marker in _OOM_MARKERS):
        return OOM
    if (
        run.signal
        or run.returncode in backend.crash_exit_codes
        or any(marker in run.stderr for marker in backend.crash_markers)
    ):
        return COMPILER_CRASH
    return REJECTED


def _run_outcome(run: execute.Run) -> str:
    if run.timed_out:
        return TIMEOUT
    if any(marker in run.stderr for marker in _OOM_MARKERS):
        return OOM
    return OK if run.returncode == 0 else RUNTIME_CRASH


def _result(backend: Backend, stage: str, outcome: str, run: execute.Run, compile_seconds: float = 0.0) -> Result:
    return Result(
        backend=backend.name,
        stage=stage,
        outcome=outcome,
        exit_status=run.returncode,
        signal=run.signal,
        stdout=run.stdout,
        stderr=run.stderr,
        seconds=round(run.seconds, 3),
        peak_memory_kb=run.peak_memory_kb,
        version=version_of(backend),
        compile_seconds=round(compile_seconds, 3),
    )


def process(program: str, suffix: str, backends: list[Backend], limits: sandbox.Limits) -> list[Result]:
    """Compile (where the backend compiles) and run ``program`` with each backend, in a scratch directory."""
    workdir = tempfile.mkdtemp(prefix="fuzzweb-diff-")
    try:
        source = os.path.join(workdir, f"program{suffix}")
        with open(source, "w", encoding="utf-8") as handle:
            handle.write(program)
        return [_one(backend, source, workdir, limits) for backend in backends]
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def compile_only(program: str, suffix: str, backend: Backend, limits: sandbox.Limits) -> execute.Run:
    """The compile step alone, run as :func:`process` runs it: what a compiler prints even when it succeeds."""
    workdir = tempfile.mkdtemp(prefix="fuzzweb-compile-")
    try:
        source = os.path.join(workdir, f"program{suffix}")
        with open(source, "w", encoding="utf-8") as handle:
            handle.write(program)
        return _compile(backend, _values(backend, source, workdir), workdir, _limits(backend, limits))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _values(backend: Backend, source: str, workdir: str) -> dict[str, str]:
    return {"source": source, "binary": os.path.join(workdir, f"{backend.name}.bin"), "workdir": workdir}


def _limits(backend: Backend, limits: sandbox.Limits) -> sandbox.Limits:
    return (
        dataclasses.replace(limits, memory_bytes=backend.memory_bytes) if backend.memory_bytes is not None else limits
    )


def _compile(backend: Backend, values: dict[str, str], workdir: str, limits: sandbox.Limits) -> execute.Run:
    command = backend.command(backend.compile, **values)
    environment = dict(backend.environment)
    return backend.compile_step(command, workdir, backend.compile_timeout, limits, environment, backend.paths)


def _one(backend: Backend, source: str, workdir: str, limits: sandbox.Limits) -> Result:
    values = _values(backend, source, workdir)
    limits = _limits(backend, limits)
    environment = dict(backend.environment)
    compile_seconds = 0.0
    if backend.compile is not None:
        compiled = _compile(backend, values, workdir, limits)
        outcome = _compile_outcome(backend, compiled)
        if outcome != OK:
            return _result(backend, "compile", outcome, compiled)
        compile_seconds = compiled.seconds
    ran = execute.run(
        backend.command(backend.run, **values), workdir, backend.run_timeout, limits, environment, backend.paths
    )
    return _result(backend, "run", _run_outcome(ran), ran, compile_seconds)


# A reduction's candidates may run this many times as long as the original's slowest run, and at least
# CANDIDATE_MIN_TIMEOUT seconds: reducers make endless loops (a loop's counter cut away), and each one
# held a test for the backends' whole run_timeout (10 s), the better part of a Python reduction's minute.
CANDIDATE_TIMEOUT_FACTOR = 5.0
CANDIDATE_MIN_TIMEOUT = 1.0


def candidate_timeout(original: list[Result]) -> float | None:
    """Seconds a reduction's candidate may run, from the original's results (None: a timeout keeps its own)."""
    if any(r.outcome == TIMEOUT for r in original):
        return None
    slowest = max((r.seconds for r in original if r.stage == "run"), default=0.0)
    return max(CANDIDATE_MIN_TIMEOUT, CANDIDATE_TIMEOUT_FACTOR * slowest)
