"""The culprit optimisation of a bucket's reduced program, found on a worker after its reduction.

For a C miscompilation (or a compiler crash) whose representative was
reduced: each backend that misbehaves is searched for the pass or the flags
that break the program (engines.differential.culprit), against what the
reference (or the majority) printed. Stored on the bucket, shown on its page
and in its report.
"""

from __future__ import annotations

import django_rq
from django.db import close_old_connections

from engines import sandbox
from engines.differential import compare, culprit, harness, versions
from triage.audit import audit
from triage.models import Bucket, Kind
from triage.reproduction import CannotReproduce, _backends

QUEUE = "reduce"
MAX_BACKENDS = 4
C_LANGUAGES = ("c", "cpp", "c++")


def culprit_wanted(bucket: Bucket) -> bool:
    finding = bucket.representative
    return (
        finding is not None
        and finding.testcase_language in C_LANGUAGES
        and bool(finding.backends)
        and (bucket.kind == Kind.MISCOMPILATION or finding.stage == "compile")
    )


def culprit_enqueue(*, bucket_id: int) -> None:
    from triage.jobs import culprit_job

    django_rq.get_queue(QUEUE).enqueue(culprit_job, bucket_id, job_timeout=3600, result_ttl=3600)


def bucket_culprit_find(*, bucket_id: int) -> dict:
    """Search each misbehaving backend of the bucket's representative; store and return the answers."""
    close_old_connections()
    bucket = Bucket.objects.select_related("representative__campaign").get(pk=bucket_id)
    if not culprit_wanted(bucket):
        return {}
    from triage.reduction import case_for

    finding = bucket.representative
    try:
        case = case_for(finding, bucket)
        language, backends = _backends(case)
    except CannotReproduce as error:
        found = {"error": str(error)}
    else:
        found = _search(finding.testcase, language.suffix, backends, case.reference)
    found["program_size"] = len(finding.testcase)
    found["finding"] = finding.pk
    Bucket.objects.filter(pk=bucket_id).update(culprit=found)
    named = ", ".join(f"{name}: {c['name']}" for name, c in found.get("backends", {}).items())
    audit(bucket_id=bucket_id, user=None, field="culprit", new=named or found.get("error", "none"))
    return found


def _search(program: str, suffix: str, backends, reference: str) -> dict:
    limits = sandbox.Limits()
    results = harness.process(program, suffix, backends, limits)
    verdict = compare.classify(results, reference or None)
    expected = next((r for r in results if r.backend == verdict.reference), None)
    answers, found = {}, {}
    for backend in backends:
        outcome = verdict.outcomes.get(backend.name)
        if outcome == "wrong_output" and expected is not None:
            observed = (expected.exit_status, expected.stdout)

            def bad(result, observed=observed):
                return result.completed and (result.exit_status, result.stdout) != observed

        elif outcome == "compiler_crash":

            def bad(result):
                return result.outcome == "compiler_crash"

        else:
            continue
        answers[backend.name] = culprit.find(backend, program, suffix, bad, limits).to_dict()
        if "matrix" not in found and backend.compile is not None and culprit.family(backend):
            # The releases and levels it breaks at, for the first misbehaving compiler's family.
            found["matrix"] = versions.matrix(backend, culprit.family(backend), program, suffix, bad, limits)
        if len(answers) >= MAX_BACKENDS:
            break
    found.update({"backends": answers, "reference": verdict.reference})
    return found
