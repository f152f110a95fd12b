"""A reduction whose job Redis lost is queued again; Redis gone when it is queued fails nothing."""

from __future__ import annotations

from datetime import timedelta

import django_rq
import pytest
from django.utils import timezone

from tests.integration.test_ingest import make_finding
from triage.culprits import culprit_enqueue
from triage.ingest import finding_ingest
from triage.models import Reduction, ReductionState
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
    # Nothing listens there (a copy: the fixture restores attributes, not what is inside them).
    settings.RQ_QUEUES = {name: {**queue, "URL": "redis://127.0.0.1:1/0"} for name, queue in settings.RQ_QUEUES.items()}
    assert reduction_enqueue(reduction) is False
    culprit_enqueue(bucket_id=reduction.bucket_id)  # logged, not raised
    assert Reduction.objects.get(pk=reduction.pk).state == ReductionState.QUEUED


def test_a_second_job_for_a_reduction_under_way_leaves_it_alone():
    # The sweep may queue a reduction again whose first job was only late (or had another id before
    # this version): the job that comes second finds the row taken and runs nothing.
    reduction = _queued_reduction(600)
    Reduction.objects.filter(pk=reduction.pk).update(state=ReductionState.REDUCING, message="round 1")
    assert reduction_run(reduction_id=reduction.pk) == ReductionState.REDUCING
    again = Reduction.objects.get(pk=reduction.pk)
    assert (again.state, again.message, again.finished_at) == (ReductionState.REDUCING, "round 1", None)
