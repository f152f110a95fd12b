"""Try it: three programs through every backend of a description, before it is saved.

A broken command template shows at once, with each command's stderr,
instead of as a campaign whose every program "fails". The programs run on a
worker (queue of the user-defined differential engine) in the sandbox, like
a campaign's; the page polls for the grid.
"""

from __future__ import annotations

import random

import django_rq
from rq.exceptions import NoSuchJobError
from rq.job import Job

from engines import registry, sandbox
from engines.differential import compare, csmith, harness, spec

PROGRAMS = 3
SHOWN_OUTPUT = 2000
RESULT_SECONDS = 3600
_QUEUE = registry.get("differential").queue


def trial_run(description: dict, seed: int) -> dict:
    """The job: generate ``PROGRAMS`` programs and run each through every backend; plain data for the page."""
    checked = spec.parse(description)
    missing = spec.missing(checked)
    limits = sandbox.Limits()
    rng = random.Random(seed)
    rows = []
    for _ in range(PROGRAMS):
        try:
            program = spec.generate(checked.generator, checked.suffix, rng, limits)
        except csmith.GeneratorError as error:
            rows.append({"generator_error": str(error)[:SHOWN_OUTPUT], "results": []})
            continue
        present = [b for b in checked.backends if b.name not in missing]
        results = harness.process(program.text, checked.suffix, present, limits) if present else []
        verdict = compare.classify(results, checked.reference or None) if len(results) >= 2 else None
        rows.append(
            {
                "command": program.command,
                "program": program.text[:SHOWN_OUTPUT],
                "generator_bug": bool(verdict and verdict.generator_bug),
                "results": [
                    {
                        "backend": r.backend,
                        "stage": r.stage,
                        "outcome": r.outcome,
                        # Against the others: ok, wrong_output, rejected, compiler_crash, …
                        "verdict": verdict.outcomes.get(r.backend, "") if verdict is not None else "",
                        "exit_status": r.exit_status,
                        "signal": r.signal,
                        "seconds": r.total_seconds,
                        "stdout": r.stdout[:SHOWN_OUTPUT],
                        "stderr": r.stderr[-SHOWN_OUTPUT:],
                    }
                    for r in results
                ],
            }
        )
    return {"backends": [b.name for b in checked.backends], "missing": missing, "programs": rows}


def trial_enqueue(*, description: dict, user) -> str:
    """Queue a trial of a checked description for ``user``; its job id."""
    job = django_rq.get_queue(_QUEUE).enqueue(
        trial_run,
        description,
        random.randrange(2**31),
        job_timeout=900,
        result_ttl=RESULT_SECONDS,
        meta={"user": user.pk},
    )
    return job.id


def trial_state(*, job_id: str, user) -> dict | None:
    """The trial's state for ``user`` (None if it is not theirs or is gone): queued, running, done or failed."""
    try:
        job = Job.fetch(job_id, connection=django_rq.get_connection(_QUEUE), serializer=_serializer())
    except (NoSuchJobError, ValueError):
        return None
    if job.meta.get("user") != user.pk:
        return None
    status = job.get_status(refresh=True)
    if status == "finished":
        return {"state": "done", **job.return_value()}
    if status == "failed":
        return {"state": "failed", "error": "the trial job failed on the worker; see its log"}
    return {"state": "running" if status == "started" else "queued"}


def _serializer():
    from django.conf import settings
    from rq.utils import import_attribute

    return import_attribute(settings.RQ_SERIALIZER)
