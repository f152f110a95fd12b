"""What a finding looks like on its way in, whoever reports it.

Engines on our workers, the ingest API and the command-line client all hand
triage a :class:`Submission`; :mod:`triage.ingest` stores it. Plain data, no
ORM: validation and conversion happen before anything touches the database.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engines import events

KINDS = ("crash", "timeout", "oom", "miscompilation")
OUTCOMES = ("ok", "rejected", "compiler_crash", "runtime_crash", "timeout", "oom", "wrong_output")

# The one table of sizes a finding may have. One-line fields are the sizes of
# their columns (tests/unit/test_ingest_limits.py keeps the two equal): the
# API refuses a longer value naming the field, a campaign's finding is cut to
# it, so neither ever reaches the database too long.
SHORT_FIELDS = {
    "target": 255, "engine": 64, "function": 255, "stage": 255, "crash_type": 255, "reference": 100,
    "testcase_language": 32,
}  # fmt: skip
MAX_TESTCASE_BYTES = 4 * 1024 * 1024
MAX_METADATA_BYTES = 256 * 1024  # as JSON
MAX_VERSIONS = 64
MAX_BACKENDS = 64
MAX_BACKEND_OUTPUT = 1024 * 1024  # stored clipped far shorter; past this the request is refused
MAX_HITS = 10**9


@dataclass(frozen=True)
class Backend:
    """One backend's result for a differential finding."""

    name: str
    outcome: str
    output: str = ""
    exit_code: int | None = None


@dataclass(frozen=True)
class Submission:
    """One reported finding. ``testcase_bytes`` is set for binary testcases."""

    kind: str
    target: str
    engine: str = ""
    function: str = ""
    crash_type: str = ""
    message: str = ""
    trace: str = ""
    testcase: str = ""
    testcase_bytes: bytes | None = None
    testcase_language: str = "text"
    reproducer: str = ""
    stage: str = ""
    reference: str = ""
    backends: tuple[Backend, ...] = ()
    versions: dict[str, str] = field(default_factory=dict)
    metadata: dict = field(default_factory=dict)
    hits: int = 1  # failing executions this submission stands for
    # False for findings from the API without the replay right: stored and bucketed, never re-run.
    replay_allowed: bool = True


def submission_from_engine(finding: events.Finding, engine: str) -> Submission:
    """Convert an engine's finding: a Python call (pyfunc), or a program run by several backends."""
    metadata = {
        **finding.metadata,
        **({"setup": finding.setup, "call": finding.input_text} if finding.setup else {}),
        **({"expected": True} if finding.expected else {}),
    }
    if finding.backends:
        # What the backend grid shows beyond the outcome classes triage signs.
        metadata["backend_details"] = [
            {
                "name": b.name,
                "stage": b.stage,
                "stderr": b.stderr,
                "seconds": b.seconds,
                "peak_memory_kb": b.peak_memory_kb,
                "version": b.version,
            }
            for b in finding.backends
        ]
    return Submission(
        kind=finding.kind,
        target=finding.target,
        engine=engine,
        function=finding.function,
        crash_type=finding.crash_type,
        message=finding.message,
        trace=finding.trace,
        testcase=finding.input_text,
        testcase_language=finding.language,
        reproducer=finding.reproducer,
        stage=finding.stage or finding.function,
        reference=finding.reference,
        backends=tuple(Backend(b.name, b.outcome, b.output, b.exit_code) for b in finding.backends),
        versions=dict(finding.environment),
        hits=finding.hits,
        metadata=metadata,
    )
