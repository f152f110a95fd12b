"""Turn one program's verdict into findings: what a maintainer files, one per kind of trouble."""

from __future__ import annotations

import re

from engines import events
from engines.differential.compare import WRONG_OUTPUT, Verdict, is_suspicious_timeout
from engines.differential.harness import COMPILER_CRASH, OOM, REJECTED, TIMEOUT, Result

ENGINE_NAME = "differential"


def _outcomes(verdict: Verdict, results: list[Result]) -> tuple[events.BackendOutcome, ...]:
    return tuple(
        events.BackendOutcome(
            name=r.backend,
            outcome=verdict.outcomes[r.backend],
            output=r.stdout,
            exit_code=r.exit_status,
            stage=r.stage,
            stderr=r.stderr,
            seconds=r.total_seconds,
            peak_memory_kb=r.peak_memory_kb,
            version=r.version,
        )
        for r in results
    )


def findings(
    *,
    target: str,
    language: str,
    program: str,
    reproducer: str,
    verdict: Verdict,
    results: list[Result],
    metadata: dict,
) -> list[events.Finding]:
    """The findings in one program's results: miscompilation, compiler crashes, timeouts, OOMs, generator bug."""
    if not verdict.interesting:
        return []
    backends = _outcomes(verdict, results)
    environment = {"engine": ENGINE_NAME, **{r.backend: r.version for r in results if r.version}}
    common = dict(
        target=target,
        input_text=program,
        reproducer=reproducer,
        environment=environment,
        language=language,
        reference=verdict.reference,
        backends=backends,
        metadata=metadata,
        setup="",
    )
    if verdict.generator_bug:
        first = next((_first_error(r.stderr) for r in results if r.stderr.strip()), "")
        return [
            events.Finding(
                kind=events.CRASH,
                function="generator",
                crash_type="GeneratorBug",
                message=f"every backend rejected the program: {first}",
                trace="",
                stage="compile",
                **common,
            )
        ]
    found = []
    wrong = [name for name, outcome in verdict.outcomes.items() if outcome == WRONG_OUTPUT]
    if wrong:
        difference = verdict.first_difference[wrong[0]]
        found.append(
            events.Finding(
                kind=events.MISCOMPILATION,
                function=", ".join(wrong),
                crash_type="wrong output",
                message=(
                    f"{', '.join(wrong)} disagree with {verdict.reference} at line {difference['line']}: "
                    f"expected {difference['expected']!r}, got {difference['actual']!r}"
                ),
                trace="",
                stage="run",
                **common,
            )
        )
    rejecting = [r for r in results if verdict.outcomes[r.backend] == REJECTED]
    if rejecting:
        accepting = [r.backend for r in results if r.stage == "run"]
        if accepting:
            found.append(_rejection(rejecting, accepting, common))
    for result in results:
        outcome = verdict.outcomes[result.backend]
        if outcome == COMPILER_CRASH:
            found.append(
                events.Finding(
                    kind=events.CRASH,
                    function=result.backend,
                    crash_type=result.signal or "compiler crash",
                    message=_first_error(result.stderr),
                    trace=result.stderr,
                    stage="compile",
                    **common,
                )
            )
        elif outcome == OOM or (outcome == TIMEOUT and is_suspicious_timeout(result, results)):
            found.append(
                events.Finding(
                    kind=events.TIMEOUT if outcome == TIMEOUT else events.OOM,
                    function=result.backend,
                    crash_type="Timeout" if outcome == TIMEOUT else "Out of memory",
                    message=f"{result.backend} at the {result.stage} stage after {result.seconds:g} s",
                    trace=result.stderr,
                    # Timeouts are bucketed by target and stage: one bucket per backend and stage.
                    stage=f"{result.backend} {result.stage}",
                    **common,
                )
            )
    return found


def _rejection(rejecting: list[Result], others: list[str], common: dict) -> events.Finding:
    """Some backends refuse a program others accept: a frontend disagreement (K1 against K2, say).

    Bucketed by who rejected and the compiler's first error without its
    location, so one frontend bug is one bucket however many programs hit it.
    """
    names = ", ".join(r.backend for r in rejecting)
    error = _first_error(rejecting[0].stderr)
    return events.Finding(
        kind=events.CRASH,
        function=names,
        crash_type=f"rejected by {names}",
        message=f"{names} rejected what {', '.join(others)} accepted: {error}",
        trace="",
        stage="compile",
        **common,
    )


# "program.kt:12:5: error: ..." and "/tmp/x/program.c:3:1: error: ...": where, not what.
_LOCATION = re.compile(r"^\S*?program\.\w+(?::\d+)*:\s*")


def _first_error(stderr: str) -> str:
    """The compiler's first error line, without the file and position it names."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    chosen = next((line for line in lines if "error" in line.lower() or "fault" in line.lower()), "")
    chosen = chosen or (lines[0] if lines else "")
    return _LOCATION.sub("", chosen)[:500]
