"""A reduction or culprit search whose job Redis lost is queued again; Redis gone when it is queued fails nothing."""

from __future__ import annotations

from datetime import timedelta

import django_rq
import pytest
from django.utils import timezone

from tests.integration.test_ingest import make_finding
from triage.culprit_queue import (
    culprit_search_done,
    culprit_search_queue,
    culprit_search_started,
    culprit_searches_requeue_lost,
)
from triage.culprits import finding_culprit_move
from triage.ingest import finding_ingest
from triage.models import CulpritSearch, Reduction, ReductionState
from triage.reduce_queue import QUEUE
from triage.reduction import reduction_enqueue, reduction_run, reductions_requeue_lost

# Committed as it goes: the queue defers its writes to the commit, as it does in a worker.
pytestmark = pytest.mark.django_db(transaction=True)


def _queued_reduction(age_seconds: float) -> Reduction:
    bucket = finding_ingest(submission=make_finding()).bucket
    reduction = Reduction.objects.create(bucket=bucket, finding=bucket.representative, source=Reduction.Source.AUTO)
    Reduction.objects.filter(pk=reduction.pk).update(created_at=timezone.now() - timedelta(seconds=age_seconds))
    return reduction


def _job_ids() -> list[str]:
    return django_rq.get_queue(QUEUE).job_ids


def test_a_queued_reduction_whose_job_is_gone_is_queued_again_once():
    lost, recent = _queued_reduction(600), _queued_reduction(1)
    queue = django_rq.get_queue(QUEUE)
    queue.empty()  # what a Redis restart leaves: the rows say queued, no job anywhere
    assert reductions_requeue_lost(older_than=60) == 1
    assert _job_ids() == [f"reduction-{lost.pk}"]
    assert queue.fetch_job(f"reduction-{lost.pk}").args == [lost.pk]
    # Its job is there now: the next sweep leaves it, and a reduction just made is not yet lost.
    assert reductions_requeue_lost(older_than=60) == 0
    assert Reduction.objects.get(pk=recent.pk).state == ReductionState.QUEUED


def test_redis_unreachable_when_queueing_leaves_the_row_queued_and_raises_nothing(settings):
    reduction = _queued_reduction(600)
    _unreachable(settings)
    assert reduction_enqueue(reduction) is False
    culprit_search_queue(CulpritSearch.Subject.BUCKET, reduction.bucket_id)  # logged, not raised
    assert Reduction.objects.get(pk=reduction.pk).state == ReductionState.QUEUED
    assert CulpritSearch.objects.get(subject_id=reduction.bucket_id).finished_at is None


def test_a_second_job_for_a_reduction_under_way_leaves_it_alone():
    # The sweep may queue a reduction again whose first job was only late (or had another id before
    # this version): the job that comes second finds the row taken and runs nothing.
    reduction = _queued_reduction(600)
    Reduction.objects.filter(pk=reduction.pk).update(state=ReductionState.REDUCING, message="round 1")
    assert reduction_run(reduction_id=reduction.pk) == ReductionState.REDUCING
    again = Reduction.objects.get(pk=reduction.pk)
    assert (again.state, again.message, again.finished_at) == (ReductionState.REDUCING, "round 1", None)


def _unreachable(settings) -> dict:
    """Point the queues where nothing listens (a copy: the fixture restores attributes, not what is inside them)."""
    reachable = settings.RQ_QUEUES
    settings.RQ_QUEUES = {name: {**queue, "URL": "redis://127.0.0.1:1/0"} for name, queue in reachable.items()}
    return reachable


def test_a_culprit_search_redis_lost_is_queued_again_once_by_the_sweep(settings):
    finding = finding_ingest(submission=make_finding())
    queue = django_rq.get_queue(QUEUE)
    queue.empty()  # its bucket's reduction
    reachable = _unreachable(settings)
    culprit_search_queue(CulpritSearch.Subject.FINDING, finding.pk)  # Redis down at the commit: logged
    settings.RQ_QUEUES = reachable
    assert _job_ids() == []
    # Just asked for: its job may still be on its way.
    assert culprit_searches_requeue_lost(older_than=60) == 0
    CulpritSearch.objects.update(created_at=timezone.now() - timedelta(seconds=600))
    assert culprit_searches_requeue_lost(older_than=60) == 1
    search = CulpritSearch.objects.get()
    job = queue.fetch_job(f"culprit-finding-{finding.pk}-{search.pk}")
    assert job.func_name == "triage.jobs.finding_culprit_job" and job.args == [finding.pk]
    assert culprit_searches_requeue_lost(older_than=60) == 0  # its job is there now


def test_a_culprit_search_asked_for_twice_waits_once_and_its_job_ends_it():
    finding = finding_ingest(submission=make_finding())
    django_rq.get_queue(QUEUE).empty()  # its bucket's reduction
    culprit_search_queue(CulpritSearch.Subject.FINDING, finding.pk)
    culprit_search_queue(CulpritSearch.Subject.FINDING, finding.pk)
    search = CulpritSearch.objects.get()
    assert _job_ids() == [f"culprit-finding-{finding.pk}-{search.pk}"]
    # The job runs (a crash, not wrong code: it cannot be re-run on backends) and the search is over.
    outcome = finding_culprit_move(finding_id=finding.pk)
    search = CulpritSearch.objects.get()
    assert search.finished_at is not None and search.outcome == outcome and outcome.startswith("cannot re-run")
    django_rq.get_queue(QUEUE).empty()
    CulpritSearch.objects.update(created_at=timezone.now() - timedelta(seconds=600))
    assert culprit_searches_requeue_lost(older_than=60) == 0


def test_the_sweep_drops_searches_finished_a_week_ago():
    old, recent = (CulpritSearch.objects.create(subject=CulpritSearch.Subject.BUCKET, subject_id=n) for n in (1, 2))
    CulpritSearch.objects.filter(pk=old.pk).update(finished_at=timezone.now() - timedelta(days=8))
    CulpritSearch.objects.filter(pk=recent.pk).update(finished_at=timezone.now() - timedelta(days=1))
    culprit_searches_requeue_lost()
    assert list(CulpritSearch.objects.values_list("subject_id", flat=True)) == [2]


def test_a_search_asked_for_while_one_runs_is_a_search_of_its_own():
    """What the running one read may have changed since (a newly reduced representative)."""
    bucket = finding_ingest(submission=make_finding()).bucket
    django_rq.get_queue(QUEUE).empty()
    culprit_search_queue(CulpritSearch.Subject.BUCKET, bucket.pk)
    culprit_search_started(CulpritSearch.Subject.BUCKET, bucket.pk)
    culprit_search_queue(CulpritSearch.Subject.BUCKET, bucket.pk)
    first, second = CulpritSearch.objects.order_by("pk")
    assert _job_ids() == [f"culprit-bucket-{bucket.pk}-{first.pk}", f"culprit-bucket-{bucket.pk}-{second.pk}"]
    # The first job ends its own search only; the second's job is still to run.
    culprit_search_done(CulpritSearch.Subject.BUCKET, bucket.pk, "gcc: -O2")
    first.refresh_from_db(), second.refresh_from_db()
    assert first.finished_at is not None and first.outcome == "gcc: -O2"
    assert second.started_at is None and second.finished_at is None
