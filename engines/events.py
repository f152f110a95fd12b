"""The callback protocol between an engine and whoever runs it.

Engines never store anything themselves: they hand findings and statistics
to a sink. The web application's sink turns them into database rows; the
command-line sink prints them. Keeping the protocol this small is what lets
engines stay free of Django.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

# Kinds of finding an engine can report. They mirror the triage kinds.
CRASH = "crash"
TIMEOUT = "timeout"
OOM = "oom"
MISCOMPILATION = "miscompilation"


@dataclass(frozen=True)
class BackendOutcome:
    """One backend's part in a differential finding."""

    name: str
    outcome: str  # ok, wrong_output, rejected, compiler_crash, runtime_crash, timeout, oom
    output: str = ""
    exit_code: int | None = None
    stage: str = ""
    stderr: str = ""
    seconds: float = 0.0
    peak_memory_kb: int = 0
    version: str = ""


@dataclass(frozen=True)
class Finding:
    """One failing execution, as the engine saw it.

    ``trace`` is the raw text the target printed (a Python traceback, a
    faulthandler dump, ...); triage parses it. ``input_text`` is the failing
    input rendered as source code, and ``reproducer`` a one-line shell command
    that replays it. ``hits`` is how many failing executions the report stands
    for: engines may report repeats of a failure in aggregate.
    """

    kind: str
    target: str
    function: str
    crash_type: str
    message: str
    trace: str
    input_text: str
    reproducer: str
    environment: dict[str, str] = field(default_factory=dict)
    hits: int = 1
    # Python source that makes ``input_text`` runnable: the imports it needs.
    setup: str = ""
    # The function raised it on purpose (an explicit raise): expected
    # behaviour in the maintainers' eyes, reported as such, not as a bug.
    expected: bool = False
    # Differential engines: the language of ``input_text`` (a whole program),
    # the stage that failed, the reference backend and every backend's result.
    language: str = "python"
    stage: str = ""
    reference: str = ""
    backends: tuple[BackendOutcome, ...] = ()
    metadata: dict = field(default_factory=dict)


@dataclass(frozen=True)
class ProgramRecord:
    """One program a differential engine generated, and what each backend made of it.

    Kept for every program, interesting or not: the outcome pairs (K1 ok and
    K2 rejected, say) across a campaign are what tells frontends apart, and
    the seed regenerates the program.
    """

    number: int  # within the run, from 1
    seed: int
    generator: str  # the command that regenerates the program
    outcomes: dict  # backend -> outcome class (ok, wrong_output, rejected, ...)
    seconds: dict  # backend -> seconds spent on it, compile and run
    findings: int


@dataclass(frozen=True)
class Stats:
    """A periodic progress report."""

    executions: int
    findings: int
    elapsed_seconds: float
    functions: int = 0
    restarts: int = 0
    coverage: int = 0  # branches (arcs) of the target's code reached so far
    corpus_size: int = 0  # inputs kept because they reached new branches

    @property
    def executions_per_second(self) -> float:
        """Mean execution rate since the start of the run."""
        if self.elapsed_seconds <= 0:
            return 0.0
        return self.executions / self.elapsed_seconds


class EventSink(Protocol):
    """What an engine calls while it runs."""

    def finding(self, finding: Finding) -> None:
        """Record one failing execution."""

    def stats(self, stats: Stats) -> None:
        """Record progress; called about once a second."""

    def should_stop(self) -> bool:
        """Return True when the run must end early (a Stop button, a signal)."""

    def checkpoint(self, state: dict) -> None:
        """Keep ``state`` (plain JSON data); a later run given it resumes from there."""

    # Optional, looked up with getattr by the engines that produce them:
    #   discovered(functions: list[str], skipped: list[dict]) -- what will be fuzzed
    #   program(record: ProgramRecord) -- a differential engine's generated program
    #   examples(function: str, report: dict) -- a function's source and example
    #     calls (engines.pyfunc.examples.report); a later report replaces it
