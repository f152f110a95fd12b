"""Reduction of buckets' testcases in the background, and verification of maintainers' own reductions.

The life of a reduction (:class:`triage.models.Reduction`):

1. queued: a new bucket (automatically), "Reduce again", or an upload;
2. the original is re-run ``ORIGINAL_RUNS`` times. Never reproducing is
   reported as such; reproducing only sometimes is flaky, and a flaky
   testcase is not reduced (a reducer steered by coin flips shrinks towards
   whatever happened to fail);
3. the reducer for its kind runs within the time budget, saving its best
   candidate on the row as it goes;
4. the result is re-run ``VERIFY_RUNS`` times. Only if every run lands in
   the bucket is it accepted: stored as a verified finding of the bucket,
   which becomes the representative if it is the smallest verified one.

An upload skips 2 and 3.
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta

import django_rq
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from rq.job import Job

from crashes import signatures
from engines import registry
from triage import reduce_queue
from triage.audit import audit
from triage.ingest import content_hash, prepare_finding
from triage.models import REDUCTION_UNDER_WAY, Bucket, BucketMove, Finding, Origin, Reduction, ReductionState
from triage.rebucket import representative_of
from triage.reproduction import DIFFERENTIAL, PYFUNC, Attempt, CannotReproduce, Case, reduce_case, verify
from triage.submission import submission_from_engine
from triage.target_options import signature_options

log = logging.getLogger(__name__)

ORIGINAL_RUNS = 3
VERIFY_RUNS = 5
PROGRESS_SAVE_SECONDS = 1.0
# Past the budget: verification runs, a C-Vise shutting down, a slow kotlinc.
JOB_MARGIN_SECONDS = 900
# A round that used this much of its budget was stopped by it, not by running out of candidates.
RAN_OUT_OF_TIME = 0.9
# What a round must have taken off the size it started from for another round to be worth a worker.
MIN_GAIN = 0.05


def _replay_kind(engine: str) -> str:
    # How the engine's findings are re-run (engines/registry.py); findings of external fuzzers: not at all.
    entry = registry.get(engine)
    return entry.replay if entry is not None else registry.REPLAY_NONE


def case_for(finding: Finding, bucket: Bucket) -> Case:
    """How to re-run ``finding`` here; raises CannotReproduce when nothing on this machine can."""
    if not finding.replay_allowed:
        raise CannotReproduce(
            "this finding came through the API with a token that may not make this server run code: "
            "it is stored and bucketed, never re-run (an admin can give a token the replay right)"
        )
    if bucket.signature_version != signatures.CURRENT.VERSION:
        raise CannotReproduce(f"the bucket was signed by algorithm v{bucket.signature_version}: re-bucket it first")
    options = signature_options(finding.target)
    common = dict(
        # The finding's own signature: in a bucket a culprit, a merge or a split moved it to, the bucket's
        # signature is not what a run of the finding produces, and no candidate would ever reproduce it.
        signature=finding.signature if finding.signature_version == bucket.signature_version else bucket.signature,
        kind=finding.kind,
        target=finding.target,
        engine=finding.engine,
        language=finding.testcase_language,
        top_n=options.top_n,
        ignore=tuple(pattern.pattern for pattern in options.ignore),
    )
    if finding.backends:
        campaign_options = finding.campaign.options if finding.campaign_id else {}
        # A campaign without a designated reference judged by majority; so does the re-run.
        reference = (
            campaign_options.get("reference") or (campaign_options.get("spec") or {}).get("reference", "")
            if finding.campaign_id
            else finding.reference
        )
        return Case(
            runner=DIFFERENTIAL,
            backends=tuple(b["name"] for b in finding.backends),
            reference=reference,
            spec=campaign_options.get("spec"),
            **common,
        )
    replays_calls = _replay_kind(finding.engine) == registry.REPLAY_CALL
    if replays_calls and "values" in finding.metadata:
        return Case(
            runner=PYFUNC,
            function=finding.function,
            search_path=tuple(finding.metadata.get("search_path", ())),
            setup=tuple(finding.metadata.get("setup_modules", ())),
            values=list(finding.metadata["values"]),
            **common,
        )
    if replays_calls:
        raise CannotReproduce("this call was reported without its typed values (reported before reduction existed)")
    raise CannotReproduce(
        f"findings of {finding.engine or 'external'} fuzzers carry no recipe to re-run them here; "
        "upload a smaller version to have it verified against the bucket"
        if not finding.backends
        else "no backends to run it on"
    )


# --- requesting --------------------------------------------------------------------------------
def reduction_request(
    *,
    bucket: Bucket,
    source: str,
    user=None,
    text: str | None = None,
    finding: Finding | None = None,
    original: str | None = None,
    at_front: bool = False,
) -> Reduction:
    """Queue a reduction of the bucket's representative (or the verification of ``text``, an upload).

    ``original`` is what a later round shows as the original: the text the first round started from.
    """
    finding = finding or bucket.representative or bucket.findings.order_by("testcase_size").first()
    if original is None:
        original = finding.testcase if finding else ""
    reduction = Reduction.objects.create(
        bucket=bucket,
        finding=finding,
        source=source,
        user=user,
        language=finding.testcase_language if finding else "text",
        original_text=original,
        original_size=len(original),
        reduced_text=text or "",
        reduced_size=len(text) if text is not None else 0,
    )
    if user is not None:
        # A person made this server run code: the bucket's history says who, and what.
        what = f"uploaded {len(text or '')} characters to verify" if text is not None else "asked to reduce again"
        audit(bucket_id=bucket.pk, user=user, field="reduction", new=reduction.get_source_display(), note=what)
    transaction.on_commit(lambda: reduction_enqueue(reduction, at_front))
    return reduction


def reduction_again(*, bucket_id: int, user) -> Reduction | None:
    """ "Reduce again" from the bucket page: queue one unless a reduction of the bucket is under way (None then).

    The bucket row is locked while checking, so two clicks queue one job.
    """
    with transaction.atomic():
        bucket = Bucket.objects.select_for_update().get(pk=bucket_id)
        if _under_way(bucket):
            return None
        return reduction_request(bucket=bucket, source=Reduction.Source.AGAIN, user=user)


def _under_way(bucket: Bucket) -> bool:
    return bucket.reductions.filter(state__in=REDUCTION_UNDER_WAY).exists()


def _job_id(reduction_id: int) -> str:
    return f"reduction-{reduction_id}"


def reduction_enqueue(reduction: Reduction, at_front: bool = False) -> bool:
    """Put the reduction's job on the reduce queue; False when Redis cannot be reached.

    It runs after the commit that made the bucket, often inside a campaign's
    shard: a Redis restart at that moment must not fail the shard. The
    reduction stays queued and :func:`reductions_requeue_lost` queues it again.
    """
    from triage.jobs import reduction_job

    seconds = settings.FUZZWEB_REDUCTION_SECONDS
    return reduce_queue.enqueue(
        reduction_job,
        reduction.pk,
        job_id=_job_id(reduction.pk),
        job_timeout=int(seconds) + JOB_MARGIN_SECONDS,
        result_ttl=3600,
        at_front=at_front,
    )


def reductions_requeue_lost(*, older_than: float = 60) -> int:
    """Queue again the queued reductions whose job is gone (never queued, or wiped by a Redis restart)."""
    cutoff = timezone.now() - timedelta(seconds=older_than)
    connection = django_rq.get_queue(reduce_queue.QUEUE).connection
    requeued = 0
    for reduction in Reduction.objects.filter(state=ReductionState.QUEUED, created_at__lt=cutoff):
        if not Job.exists(_job_id(reduction.pk), connection=connection) and reduction_enqueue(reduction):
            requeued += 1
    return requeued


def reductions_for_new_buckets(bucket_ids: list[int], at_front: bool = False) -> int:
    """Queue the automatic reduction of each new bucket; returns how many were queued.

    ``at_front``: ahead of what waits on the reduce queue (a culprit bucket's, ahead of the culprit
    searches that fill it).
    """
    if not settings.FUZZWEB_AUTO_REDUCE or not bucket_ids:
        return 0
    queued = 0
    for bucket in Bucket.objects.filter(pk__in=bucket_ids).select_related("representative"):
        if bucket.representative is not None and replayable(bucket.representative):
            reduction_request(bucket=bucket, source=Reduction.Source.AUTO, at_front=at_front)
            queued += 1
    return queued


def replayable(finding: Finding) -> bool:
    """Whether a worker may and can re-run ``finding``: allowed, and a program on backends or a call with values.

    Findings from the API are re-run only when their token had the replay
    right (``replay_allowed``); a maintainer can still upload a smaller
    version, which is theirs and runs in the sandbox.
    """
    if not finding.replay_allowed:
        return False
    return bool(finding.backends) or (
        _replay_kind(finding.engine) == registry.REPLAY_CALL and "values" in finding.metadata
    )


# --- running -----------------------------------------------------------------------------------
def _update(reduction: Reduction, **fields) -> None:
    for name, value in fields.items():
        setattr(reduction, name, value)
    Reduction.objects.filter(pk=reduction.pk).update(updated_at=timezone.now(), **fields)


def _finish(reduction: Reduction, state: str, message: str = "", **fields) -> None:
    _update(reduction, state=state, message=message[:4000], finished_at=timezone.now(), **fields)


def reduction_run(*, reduction_id: int) -> str:
    """Carry a queued reduction to its end; returns its final state."""
    related = ("bucket", "finding", "finding__campaign")
    reduction = Reduction.objects.select_related(*related).filter(pk=reduction_id).first()
    if reduction is None or reduction.finished:
        return reduction.state if reduction else "missing"
    # One run per reduction: a job queued again by the sweep (its first job thought lost) finds it taken.
    claimed = Reduction.objects.filter(pk=reduction.pk, state=ReductionState.QUEUED).update(
        state=ReductionState.VERIFYING, updated_at=timezone.now()
    )
    if not claimed:
        return Reduction.objects.get(pk=reduction.pk).state
    reduction.state = ReductionState.VERIFYING
    if reduction.finding is None:
        _finish(reduction, ReductionState.FAILED, "the bucket has no finding to reduce")
        return reduction.state
    try:
        case = case_for(reduction.finding, reduction.bucket)
        if reduction.source == Reduction.Source.UPLOAD:
            _verify_upload(reduction, case)
        elif reduction.reduced_text:
            _verify_reduced(reduction, case)
        else:
            _reduce(reduction, case)
    except CannotReproduce as error:
        _finish(reduction, ReductionState.UNSUPPORTED, str(error))
    except Exception as error:  # a reducer's own failure must not leave the row "reducing" forever
        log.exception("reduction %s failed", reduction.pk)
        _finish(reduction, ReductionState.FAILED, f"{type(error).__name__}: {error}")
    return reduction.state


def _reduce(reduction: Reduction, case: Case) -> None:
    finding = reduction.finding
    _update(reduction, state=ReductionState.VERIFYING)
    original = verify(case, finding.testcase, ORIGINAL_RUNS)
    _update(reduction, original_runs=original.runs, original_passes=original.passes)
    if original.passes == 0:
        _finish(
            reduction,
            ReductionState.NOT_REPRODUCED,
            f"the original did not reproduce in {original.runs} runs here: {original.describe(case)}",
        )
        return
    if original.flaky:
        Finding.objects.filter(pk=finding.pk).update(verified_at=None)
        _refresh_representative(reduction.bucket_id)  # it may have been the verified representative
        _finish(
            reduction,
            ReductionState.FLAKY,
            f"the original reproduced in only {original.passes} of {original.runs} runs "
            f"(otherwise: {original.describe(case)}); a flaky testcase is not reduced",
        )
        return
    _mark_verified(finding, reduction.bucket)

    started = time.monotonic()
    last_save = [0.0]

    def on_progress(text: str, tests: int) -> None:
        now = time.monotonic()
        if now - last_save[0] >= PROGRESS_SAVE_SECONDS:
            last_save[0] = now
            _update(reduction, reduced_text=text, reduced_size=len(text), tests=tests, seconds=now - started)

    _update(reduction, state=ReductionState.REDUCING)
    max_tests = settings.FUZZWEB_REDUCTION_TESTS
    result, values = reduce_case(
        case, finding.testcase, settings.FUZZWEB_REDUCTION_SECONDS, on_progress, max_tests=max_tests
    )
    _update(
        reduction,
        reducer=result.reducer,
        reduced_text=result.text,
        reduced_size=len(result.text),
        tests=result.tests,
        seconds=time.monotonic() - started,
    )
    if result.text == finding.testcase:
        _finish(reduction, ReductionState.DONE, "no smaller version reproduces the bucket", verify_runs=0)
        if reduction.source == Reduction.Source.MORE:
            _culprit_after(reduction.bucket_id)  # the round before left the culprit to the last round: this one
        return
    elapsed = time.monotonic() - started  # the reducer's time, not the verification's
    represents = _verify_and_accept(reduction, case, result.text, values, Origin.REDUCED, culprit=False)
    budget = settings.FUZZWEB_REDUCTION_SECONDS
    more = (
        represents
        and keep_going(len(finding.testcase), len(result.text), elapsed, budget, result.tests, max_tests)
        and _rounds_so_far(reduction) < settings.FUZZWEB_REDUCTION_ROUNDS
        and _another_round(reduction)
    )
    # The culprit (re-compiling the program at every release and level) after the first round, and after
    # the last (on whatever is then the representative, even if this round's result was refused); not
    # after each round in between.
    first = reduction.source != Reduction.Source.MORE
    if (represents and first) or (not first and not more):
        _culprit_after(reduction.bucket_id)


def keep_going(
    start_size: int, end_size: int, elapsed: float, budget: float, tests: int = 0, max_tests: int | None = None
) -> bool:
    """Whether a round that went from ``start_size`` to ``end_size`` earns another.

    Only a round its budget stopped, of seconds or of tests (a reducer that
    ran out of candidates is done), and that still took at least
    :data:`MIN_GAIN` off: a reducer creeping by single characters is not
    worth a worker's hour.
    """
    stopped = elapsed >= RAN_OUT_OF_TIME * budget or (max_tests is not None and tests >= max_tests)
    return stopped and end_size <= (1 - MIN_GAIN) * start_size


def _rounds_so_far(reduction: Reduction) -> int:
    """How many rounds kept going in a row before and including this one."""
    rounds = 0
    for source in reduction.bucket.reductions.filter(created_at__lte=reduction.created_at).values_list(
        "source", flat=True
    ):
        if source != Reduction.Source.MORE:
            break
        rounds += 1
    return rounds


def _another_round(reduction: Reduction) -> bool:
    """Queue the next round from the version this one accepted, if it is still the representative; whether queued.

    Queued on the reduce queue after what is waiting there, and workers take
    the engines' queues first: it runs behind campaigns and new buckets.
    """
    bucket = Bucket.objects.get(pk=reduction.bucket_id)
    if bucket.representative_id != reduction.result_id or _under_way(bucket):
        return False
    reduction_request(
        bucket=bucket, source=Reduction.Source.MORE, finding=reduction.result, original=reduction.original_text
    )
    return True


def _verify_upload(reduction: Reduction, case: Case) -> None:
    _update(reduction, state=ReductionState.VERIFYING, reducer="uploaded")
    values = None
    if case.runner == PYFUNC:
        try:
            values = _call_values(case, reduction.reduced_text)
        except ValueError as error:
            _finish(reduction, ReductionState.REFUSED, f"refused: {error}")
            return
    _verify_and_accept(reduction, case, reduction.reduced_text, values, Origin.UPLOADED)


def _verify_reduced(reduction: Reduction, case: Case) -> None:
    """A program reduced already (by the finding's culprit search, for its shape): verified, then kept."""
    _update(reduction, state=ReductionState.VERIFYING, reducer="culprit search")
    _verify_and_accept(reduction, case, reduction.reduced_text, None, Origin.REDUCED)


def _call_values(case: Case, text: str) -> list:
    """The values of an uploaded call ``f(1, 'a')``: literals only, never evaluated as code."""
    import ast

    from engines.pyfunc.state import encode

    try:
        call = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as error:
        raise ValueError(f"not a Python call: {error.msg}") from None
    if not isinstance(call, ast.Call):
        raise ValueError("not a call: upload the call, as in f(1, 'a')")
    # The engine names a method Class.method; the call may name it either way.
    called = ast.unparse(call.func)
    if called != case.function and called.rsplit(".", 1)[-1] != case.function.rsplit(".", 1)[-1]:
        raise ValueError(f"it calls {called}, but this bucket's function is {case.function}")
    try:
        values = [ast.literal_eval(arg) for arg in call.args] + [ast.literal_eval(k.value) for k in call.keywords]
        [encode(value) for value in values]
    except (ValueError, TypeError, SyntaxError):
        raise ValueError("only calls with literal arguments (numbers, strings, lists...) can be checked") from None
    return values


def _verify_and_accept(
    reduction: Reduction, case: Case, text: str, values: list | None, origin: str, culprit: bool = True
) -> bool:
    """Verify ``text`` and store it if it reproduces; whether it became the bucket's representative.

    ``culprit``: queue the culprit search on the new representative (a round that queues another
    leaves it to the last).
    """
    try:
        check = verify(case, text, VERIFY_RUNS, values)
    except (ValueError, TypeError) as error:  # a call whose arity does not match the function
        _finish(reduction, ReductionState.REFUSED, f"refused: it cannot be run as a call of {case.function}: {error}")
        return False
    _update(reduction, verify_runs=check.runs, verify_passes=check.passes)
    if check.reliable:
        stored = _store(reduction, case, _reproducing(case, check.attempts), origin)
        current = Bucket.objects.filter(pk=reduction.bucket_id).values_list("representative_id", flat=True).get()
        note = ""
        if current != stored.pk:
            kept = Finding.objects.filter(pk=current).values_list("testcase_size", flat=True).first()
            note = f"it reproduces, but the current reduced version ({kept} characters) is smaller and stays"
        _finish(reduction, ReductionState.DONE, note, result=stored)
        if current == stored.pk and culprit:
            _culprit_after(reduction.bucket_id)
        return current == stored.pk
    if check.flaky:
        _finish(
            reduction,
            ReductionState.FLAKY,
            f"reproduced the bucket in only {check.passes} of {check.runs} runs "
            f"(otherwise: {check.describe(case)}); not accepted",
        )
        return False
    other = _other_bucket(check.attempts)
    where = f"it lands in another bucket ({other})" if other else f"it does not reproduce: {check.describe(case)}"
    verb = "refused" if origin == Origin.UPLOADED else "rejected"
    _finish(reduction, ReductionState.REFUSED, f"{verb}: {where}")
    return False


def _culprit_after(bucket_id: int) -> None:
    # The pass or flags behind a C wrong-code bucket, searched on its newly reduced program.
    from triage.culprits import culprit_enqueue_if_wanted

    culprit_enqueue_if_wanted(bucket_id=bucket_id)


def _reproducing(case: Case, attempts: tuple[Attempt, ...]):
    attempt = next(a for a in attempts if a.reproduces(case))
    return attempt.found[attempt.signatures.index(case.signature)]


def _other_bucket(attempts: tuple[Attempt, ...]) -> str:
    digests = {digest for attempt in attempts for digest in attempt.signatures}
    bucket = Bucket.objects.filter(signature__in=digests, signature_version=signatures.CURRENT.VERSION).first()
    if bucket is not None:
        return f"#{bucket.pk} {bucket.title}"
    return "a new one, not seen before" if digests else ""


def _store(reduction: Reduction, case: Case, engine_finding, origin: str) -> Finding:
    """The verified smaller testcase, as a finding of the bucket (no hit: nobody's fuzzer found it)."""
    source = reduction.finding
    submission = submission_from_engine(engine_finding, source.engine)
    now = timezone.now()
    row, signature = prepare_finding(submission, source.campaign_id, now, signature_options(source.target))
    if signature.digest != case.signature:  # verify() said otherwise: a bug, not a maintainer's error
        raise AssertionError("a verified reduction signed differently from the finding it reduces")
    with transaction.atomic():
        move = _follow_culprit_move(reduction, source.pk)
        existing = Finding.objects.filter(content_hash=content_hash(submission)).first()
        if existing is not None:
            Finding.objects.filter(pk=existing.pk).update(verified_at=now)
            stored = existing
        else:
            row.bucket_id = reduction.bucket_id
            row.hit_count = 0
            row.origin = origin
            row.verified_at = now
            row.metadata = {**row.metadata, "reduced_from": source.pk, "reduction": reduction.pk}
            row.save()
            stored = row
        if move is not None and stored.bucket_id == reduction.bucket_id:
            # An undone move takes the reduced version back with the finding it was made from.
            BucketMove.objects.filter(pk=move.pk).update(finding_ids=[*move.finding_ids, stored.pk])
        _refresh_representative(reduction.bucket_id)
    return stored


def _follow_culprit_move(reduction: Reduction, source_id: int) -> BucketMove | None:
    """The culprit move that took the finding being reduced to another bucket meanwhile, if one did.

    The reduction then ends in that bucket (``reduction.bucket_id`` is changed): its result is a
    smaller version of a finding that is there now, and the provisional bucket it left is empty.
    """
    current = Finding.objects.filter(pk=source_id).values_list("bucket_id", flat=True).first()
    if current is None or current == reduction.bucket_id:
        return None
    moves = BucketMove.objects.filter(
        kind=BucketMove.Kind.CULPRIT, source_id=reduction.bucket_id, target_id=current, undone_at__isnull=True
    ).order_by("-pk")
    # finding_ids is a JSON list: matched here, not in SQL (SQLite, the embedded default, has no JSON contains).
    move = next((move for move in moves if source_id in move.finding_ids), None)
    if move is not None:
        Reduction.objects.filter(pk=reduction.pk).update(bucket_id=current)
        reduction.bucket_id = current
    return move


def _mark_verified(finding: Finding, bucket: Bucket) -> None:
    Finding.objects.filter(pk=finding.pk).update(verified_at=timezone.now())
    _refresh_representative(bucket.pk)


def _refresh_representative(bucket_id: int) -> None:
    chosen = representative_of(bucket_id)
    if chosen is not None:
        Bucket.objects.filter(pk=bucket_id).update(
            representative=chosen,
            representative_size=chosen.testcase_size,
            representative_verified=chosen.verified_at is not None,
        )


def reductions_reap_stale(*, older_than: float | None = None) -> int:
    """Mark reductions whose worker died mid-run as failed; their best candidate so far stays on the row."""
    older_than = older_than if older_than is not None else settings.FUZZWEB_REDUCTION_SECONDS + JOB_MARGIN_SECONDS
    cutoff = timezone.now() - timedelta(seconds=older_than)
    active = (ReductionState.VERIFYING, ReductionState.REDUCING)
    return Reduction.objects.filter(state__in=active, updated_at__lt=cutoff).update(
        state=ReductionState.FAILED,
        message="the worker running it stopped; the best version it reached is kept, unverified",
        finished_at=timezone.now(),
    )
