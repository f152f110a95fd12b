"""Culprit optimisations: what breaks a C program, per bucket and per finding, found on a worker.

- A bucket's reduced representative (after its reduction): each backend that
  misbehaves is searched for the pass or the flags that break the program
  (engines.differential.culprit), against what the reference (or the
  majority) printed, and the releases × levels it breaks at. Stored on the
  bucket, shown on its page and in its report.
- Each new C wrong-code finding: its backends-and-outcomes bucket is only
  provisional (every bug at gcc -O2 would share it, and one bug seen at
  three levels would have three). Once its culprit is known the finding
  moves to the bucket of that culprit, one per compiler family and cause,
  so two bugs at -O2 split and one bug at several levels joins. The move is
  recorded (BucketMove, kind culprit) and undoable.
- Python implementations have no pipeline to bisect: a Python wrong-code
  finding is reduced first (FUZZWEB_SHAPE_TESTS, FUZZWEB_SHAPE_SECONDS) and its culprit is the
  shape of the reduced difference (engines.differential.shape): the
  operations the reduced program keeps, and how the run differed.
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.db import close_old_connections, transaction
from django.utils import timezone

from engines import sandbox
from engines.differential import compare, culprit, harness, shape, versions
from triage.audit import audit
from triage.culprit_queue import culprit_search_done, culprit_search_queue, culprit_search_started
from triage.models import Bucket, BucketMove, CulpritSearch, Finding, Kind, Method, Reduction
from triage.rebucket import bucket_recount
from triage.reproduction import CannotReproduce, _backends

MAX_BACKENDS = 4
C_LANGUAGES = ("c", "cpp", "c++")
# Languages whose wrong code is keyed by the shape of its reduced difference (engines.differential.shape).
SHAPE_LANGUAGES = ("python",)
# Languages whose wrong code gets a release matrix only (no culprit to name yet).
MATRIX_LANGUAGES = ("kotlin",)
# Suffixes with no optimisation pipeline to bisect, and the matrix of the releases a program breaks at.
NO_PIPELINE = {".py": versions.python_matrix, ".kt": versions.kotlin_matrix}


def culprit_wanted(bucket: Bucket) -> bool:
    finding = bucket.representative
    if finding is None or not finding.backends:
        return False
    if finding.testcase_language in (*SHAPE_LANGUAGES, *MATRIX_LANGUAGES):
        return bucket.kind == Kind.MISCOMPILATION
    return finding.testcase_language in C_LANGUAGES and (
        bucket.kind == Kind.MISCOMPILATION or finding.stage == "compile"
    )


def culprit_enqueue_if_wanted(*, bucket_id: int) -> None:
    """Queue the bucket's culprit search, once the transaction commits, if its representative can have one."""
    bucket = Bucket.objects.select_related("representative").get(pk=bucket_id)
    if culprit_wanted(bucket):
        culprit_search_queue(CulpritSearch.Subject.BUCKET, bucket_id)


def bucket_culprit_find(*, bucket_id: int) -> dict:
    """Search each misbehaving backend of the bucket's representative; store and return the answers."""
    close_old_connections()
    culprit_search_started(CulpritSearch.Subject.BUCKET, bucket_id)
    bucket = Bucket.objects.select_related("representative__campaign").filter(pk=bucket_id).first()
    if bucket is None or not culprit_wanted(bucket):
        culprit_search_done(CulpritSearch.Subject.BUCKET, bucket_id, "nothing to do")
        return {}
    from triage.reduction import case_for

    finding = bucket.representative
    try:
        case = case_for(finding, bucket)
        language, backends = _backends(case)
    except CannotReproduce as error:
        found = {"error": str(error)}
    else:
        found = _search(finding.testcase, language.suffix, backends, case.reference, shape_beyond=True)
    found["program_size"] = len(finding.testcase)
    found["finding"] = finding.pk
    named = ", ".join(f"{name}: {c['name']}" for name, c in found.get("backends", {}).items())
    with transaction.atomic():
        Bucket.objects.filter(pk=bucket_id).update(culprit=found)
        audit(bucket_id=bucket_id, user=None, field="culprit", new=named or found.get("error", "none"))
        culprit_search_done(CulpritSearch.Subject.BUCKET, bucket_id, named or found.get("error", "none"))
    return found


# A provisional bucket's findings searched at most: past that, its findings stay put
# (a maintainer can still split them), so one noisy bug cannot starve the reduce queue.
CULPRITS_PER_BUCKET = 40
CULPRIT_SIGNATURE = "culprit-v1"


def culprits_for_new_findings(findings) -> int:
    """Queue the culprit search of each new C or Python wrong-code finding that may be re-run; how many were queued."""
    queued = 0
    searched: dict[int, int] = {}
    for finding in findings:
        if not (
            finding.kind == Kind.MISCOMPILATION
            and finding.testcase_language in (*C_LANGUAGES, *SHAPE_LANGUAGES)
            and finding.backends
            and finding.replay_allowed
            and any(b.get("outcome") == "wrong_output" for b in finding.backends if isinstance(b, dict))
        ):
            continue
        if finding.bucket_id not in searched:
            searched[finding.bucket_id] = BucketMove.objects.filter(
                source_id=finding.bucket_id, kind=BucketMove.Kind.CULPRIT
            ).count()
        if searched[finding.bucket_id] >= CULPRITS_PER_BUCKET:
            continue
        searched[finding.bucket_id] += 1
        # Behind campaigns and reductions: after them on the reduce queue, never ahead.
        culprit_search_queue(CulpritSearch.Subject.FINDING, finding.pk)
        queued += 1
    return queued


def culprit_key(found: dict, backends) -> str:
    """What identifies the cause: per compiler family, the pass or flags found (levels and backends left out)."""
    families = {backend.name: culprit.family(backend) for backend in backends}
    keys = {culprit.cause_key(families.get(name) or name, answer) for name, answer in found.get("backends", {}).items()}
    return " | ".join(sorted(keys - {""}))


def finding_culprit_move(*, finding_id: int) -> str:
    """Search the finding's culprit and move it to that culprit's bucket; says what happened."""
    close_old_connections()
    culprit_search_started(CulpritSearch.Subject.FINDING, finding_id)
    outcome = _finding_culprit_move(finding_id)
    culprit_search_done(CulpritSearch.Subject.FINDING, finding_id, outcome)
    return outcome


def _finding_culprit_move(finding_id: int) -> str:
    finding = Finding.objects.select_related("bucket", "campaign").filter(pk=finding_id).first()
    if finding is None or finding.bucket.method == Method.CULPRIT:
        return "nothing to do"
    from triage.reduction import case_for
    from triage.reproduction import reduce_case, run_program

    try:
        case = case_for(finding, finding.bucket)
        language, backends = _backends(case)
    except CannotReproduce as error:
        return f"cannot re-run: {error}"

    def reproduces(candidate: str) -> bool:
        return run_program(case, candidate).reproduces(case)

    program = finding.testcase
    if finding.testcase_language in SHAPE_LANGUAGES:
        # The shape is read off a reduced program: what the unreduced one does besides the bug says nothing.
        try:
            program = reduce_case(
                case, program, settings.FUZZWEB_SHAPE_SECONDS, max_tests=settings.FUZZWEB_SHAPE_TESTS
            )[0].text
            # Then the value that differs, printed alone where that takes operations away.
            program = shape.canonical(program, reproduces)
        except (CannotReproduce, RecursionError, MemoryError, ValueError) as error:
            # A program too deep for Python's parser, say: it stays in its provisional bucket.
            return f"cannot reduce: {type(error).__name__}: {str(error)[:200]}"
    found = _search(program, language.suffix, backends, case.reference, matrix=False)
    if not culprit_key(found, backends) and _beyond_pipeline(found) and finding.testcase_language in C_LANGUAGES:
        # No flag or pass to blame: the cause is what the reduced program keeps, as for Python.
        try:
            program = reduce_case(case, program, settings.FUZZWEB_SHAPE_SECONDS)[0].text
            # Then without the statements a reduction cut short kept and the difference does not need.
            program = shape.c_canonical(program, reproduces)
        except (CannotReproduce, OSError, ValueError) as error:
            return f"cannot reduce: {type(error).__name__}: {str(error)[:200]}"
        if program == finding.testcase:
            # Nothing smaller reproduces it (undefined behaviour the check refuses, say): an unreduced
            # program's shape is its generator's, not its bug's. It stays where it is.
            return "no culprit found: no smaller program reproduces it to read a shape from"
        found = _search(program, language.suffix, backends, case.reference, matrix=False, shape_beyond=True)
    found["reduced"] = program if program != finding.testcase else ""
    key = culprit_key(found, backends)
    if not key:
        return "no culprit found"
    return _move(finding, key, found)


def _beyond_pipeline(found: dict) -> bool:
    return any(answer.get("beyond_pipeline") for answer in found.get("backends", {}).values())


def _covering_bucket_key(finding: Finding, key: str) -> str:
    """A key already bucketed that this one covers (engines.differential.shape.covering), else ``key``.

    A shape whose operations this finding's reduced program performs too, or gcc flags any one of which
    also makes this finding's program right.
    """
    if ":shape:" not in key and ":flags:" not in key:
        return key
    existing = Bucket.objects.filter(method=Method.CULPRIT, kind=finding.kind, findings__target=finding.target)
    keys = {" | ".join(frames) for frames in existing.values_list("key_frames", flat=True).distinct()}
    return shape.covering(key, sorted(keys)) or key


def _reduced_versions(finding_id: int, bucket_id: int) -> list[int]:
    """The findings the bucket's reductions made from ``finding_id``, and from those in turn (later rounds)."""
    found: list[int] = []
    frontier = [finding_id]
    while frontier:  # as deep as the rounds a reduction may run (FUZZWEB_REDUCTION_ROUNDS)
        results = Reduction.objects.filter(
            bucket_id=bucket_id, finding_id__in=frontier, result__bucket_id=bucket_id
        ).values_list("result_id", flat=True)
        frontier = [pk for pk in dict.fromkeys(results) if pk != finding_id and pk not in found]
        found += frontier
    return found


def _move(finding: Finding, key: str, found: dict) -> str:
    source_id = finding.bucket_id
    key = _covering_bucket_key(finding, key)
    digest = hashlib.sha256(f"{CULPRIT_SIGNATURE}|{finding.target}|{finding.kind}|{key}".encode()).hexdigest()
    with transaction.atomic():
        source = Bucket.objects.select_for_update().get(pk=source_id)
        bucket, created = Bucket.objects.get_or_create(
            signature=digest,
            signature_version=source.signature_version,
            defaults={
                "kind": source.kind,
                "crash_type": source.crash_type,
                "title": f"wrong code: {key}"[:300],
                "key_frames": key.split(" | "),
                "method": Method.CULPRIT,
                "restricted_to_id": source.restricted_to_id,
                "first_seen": finding.created_at,
                "last_seen": finding.last_seen,
                "culprit": {**found, "finding": finding.pk, "program_size": len(found["reduced"] or finding.testcase)},
            },
        )
        moved = Finding.objects.filter(pk=finding.pk, bucket_id=source_id).update(bucket=bucket)
        if not moved:
            return "moved meanwhile"
        # Its reduced versions go with it: left behind, they would keep the emptied provisional bucket's
        # page reduced and the culprit bucket's not (a reduction that ends on a text already stored finds it there).
        reduced = _reduced_versions(finding.pk, source_id)
        if reduced:
            Finding.objects.filter(pk__in=reduced, bucket_id=source_id).update(bucket=bucket)
            Reduction.objects.filter(bucket_id=source_id, result_id__in=reduced).update(bucket=bucket)
        BucketMove.objects.create(
            kind=BucketMove.Kind.CULPRIT, source_id=source_id, target=bucket, finding_ids=[finding.pk, *reduced]
        )
        audit(bucket_id=source_id, user=None, field="culprit", new=f"#{bucket.pk}", note=f"finding {finding.pk}: {key}")
        audit(bucket_id=bucket.pk, user=None, field="culprit", old=f"#{source_id}", note=f"finding {finding.pk}: {key}")
        bucket_recount(bucket_id=source_id)
        bucket_recount(bucket_id=bucket.pk)
    if created and reduced:
        # Reduced already: what is left to do is the culprit and matrix of the reduced program.
        culprit_enqueue_if_wanted(bucket_id=bucket.pk)
    elif created:
        from triage.reduction import reduction_request, reductions_for_new_buckets

        # Ahead of the other findings' culprit searches: this bucket is what a triager will now look at.
        if found.get("reduced") and settings.FUZZWEB_AUTO_REDUCE:
            # The search reduced the program to read its shape: verified against the bucket, it is the reduction.
            reduction_request(
                bucket=bucket, source=Reduction.Source.AUTO, finding=finding, text=found["reduced"], at_front=True
            )
        else:
            reductions_for_new_buckets([bucket.pk], at_front=True)
    return f"moved to #{bucket.pk} ({key})"


def culprit_move_undo(*, move_id: int, user) -> int:
    """Put the findings of a culprit move back in the bucket they came from; how many went back."""
    with transaction.atomic():
        move = BucketMove.objects.select_for_update().get(pk=move_id, kind=BucketMove.Kind.CULPRIT)
        if move.undone_at is not None:
            return 0
        back = Finding.objects.filter(pk__in=move.finding_ids, bucket_id=move.target_id).update(
            bucket_id=move.source_id
        )
        Reduction.objects.filter(bucket_id=move.target_id, result_id__in=move.finding_ids).update(
            bucket_id=move.source_id
        )
        BucketMove.objects.filter(pk=move.pk).update(undone_at=timezone.now())
        audit(
            bucket_id=move.target_id, user=user, field="culprit", new="undone", note=f"{back} back to #{move.source_id}"
        )
        audit(
            bucket_id=move.source_id,
            user=user,
            field="culprit",
            new="undone",
            note=f"{back} back from #{move.target_id}",
        )
        bucket_recount(bucket_id=move.source_id)
        bucket_recount(bucket_id=move.target_id)
    return back


def _search(
    program: str, suffix: str, backends, reference: str, matrix: bool = True, shape_beyond: bool = False
) -> dict:
    """Each misbehaving backend's culprit (and, with ``matrix``, the releases and levels it breaks at).

    ``shape_beyond``: a C program (reduced) whose pipeline names no cause is keyed by its shape, once per
    program (every backend misbehaves on the same reduced text).
    """
    limits = sandbox.Limits()
    results = harness.process(program, suffix, backends, limits)
    verdict = compare.classify(results, reference or None)
    expected = next((r for r in results if r.backend == verdict.reference), None)
    answers, found, searched_families = {}, {}, set()
    for backend, result in zip(backends, results, strict=True):
        outcome = verdict.outcomes.get(backend.name)
        if outcome == "wrong_output" and expected is not None and suffix in NO_PIPELINE:
            # No pass or flag to bisect: Python's culprit is its shape; for both, the releases it breaks at.
            answers[backend.name] = (
                shape.answer(program, expected.exit_status, result.exit_status, result.signal)
                if suffix == ".py"
                else culprit.Culprit("none", "kotlinc has no pipeline to bisect here").to_dict()
            )
            if matrix and "matrix" not in found:
                found["matrix"] = NO_PIPELINE[suffix](program, culprit.prints_otherwise_than(expected), limits)
            continue
        if outcome == "wrong_output" and expected is not None:
            bad = culprit.prints_otherwise_than(expected)

        elif outcome == "compiler_crash":

            def bad(result):
                return result.outcome == "compiler_crash"

        else:
            continue
        family = culprit.family(backend)
        if not matrix and family and family in searched_families:
            # Per finding, one compiler of a family is enough: its levels share the optimisers.
            continue
        searched_families.add(family)
        # The bucket's search (on its reduced program) also narrows gcc's flags to a debug counter.
        # Per finding, the family's other levels that misbehave too: gcc's flags must suffice at each.
        others = (
            ()
            if matrix
            else tuple(
                other
                for other in backends
                if other is not backend
                and verdict.outcomes.get(other.name) == outcome
                and family
                and culprit.family(other) == family
            )
        )
        answer = culprit.find(backend, program, suffix, bad, limits, narrow=matrix, others=others).to_dict()
        if answer["beyond_pipeline"] and shape_beyond and outcome == "wrong_output" and suffix in shape.C_SUFFIXES:
            if any(found.get("method") == "shape" for found in answers.values()):
                continue
            answer = {
                **shape.answer(program, expected.exit_status, result.exit_status, result.signal, suffix),
                "searched": answer["name"],
            }
        answers[backend.name] = answer
        if matrix and "matrix" not in found and backend.compile is not None and culprit.family(backend):
            # The releases and levels it breaks at, for the first misbehaving compiler's family.
            found["matrix"] = versions.matrix(backend, culprit.family(backend), program, suffix, bad, limits)
        if len(answers) >= MAX_BACKENDS:
            break
    found.update({"backends": answers, "reference": verdict.reference})
    return found
