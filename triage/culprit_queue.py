"""Culprit searches on the reduce queue, recorded so that one Redis loses is queued again.

A search is asked for inside a transaction (a new wrong-code finding, a
reduced bucket) and queued once it commits. Redis may be down at that
moment, or restart before a worker takes the job, and it keeps nothing on
disk: the ``CulpritSearch`` row stays until the job has run, and
:func:`culprit_searches_requeue_lost` (every few minutes, with the
reductions' sweep) queues again each one whose job is gone.
"""

from __future__ import annotations

from datetime import timedelta

import django_rq
from django.db import transaction
from django.utils import timezone
from rq.job import Job

from triage import reduce_queue
from triage.models import CulpritSearch

Subject = CulpritSearch.Subject
# Job timeouts: a bucket's search runs the release matrix too.
_TIMEOUTS = {Subject.BUCKET: 3600, Subject.FINDING: 1800}


def _job_id(subject: str, subject_id: int) -> str:
    return f"culprit-{subject}-{subject_id}"


def _enqueue(subject: str, subject_id: int) -> bool:
    from triage.jobs import culprit_job, finding_culprit_job

    job = culprit_job if subject == Subject.BUCKET else finding_culprit_job
    return reduce_queue.enqueue(
        job,
        subject_id,
        job_id=_job_id(subject, subject_id),
        job_timeout=_TIMEOUTS[subject],
        result_ttl=3600 if subject == Subject.BUCKET else 600,
    )


def culprit_search_queue(subject: str, subject_id: int) -> None:
    """Record a search of ``subject`` #``subject_id`` and queue its job once the transaction commits.

    One search waits per subject: asking again while one waits queues nothing more.
    """
    if CulpritSearch.objects.filter(subject=subject, subject_id=subject_id, finished_at__isnull=True).exists():
        return
    CulpritSearch.objects.create(subject=subject, subject_id=subject_id)
    transaction.on_commit(lambda: _enqueue(subject, subject_id))


def culprit_search_done(subject: str, subject_id: int, outcome: str) -> None:
    """The job of ``subject`` #``subject_id`` has run: its search is no longer waiting."""
    CulpritSearch.objects.filter(subject=subject, subject_id=subject_id, finished_at__isnull=True).update(
        finished_at=timezone.now(), outcome=outcome[:2000]
    )


# How long a finished search's row is kept (for its outcome), before the sweep drops it.
KEEP_FINISHED = timedelta(days=7)


def culprit_searches_requeue_lost(*, older_than: float = 60) -> int:
    """Queue again the searches still waiting whose job Redis no longer has; how many were queued."""
    now = timezone.now()
    CulpritSearch.objects.filter(finished_at__lt=now - KEEP_FINISHED).delete()
    cutoff = now - timedelta(seconds=older_than)
    connection = django_rq.get_queue(reduce_queue.QUEUE).connection
    requeued = 0
    waiting = CulpritSearch.objects.filter(finished_at__isnull=True, created_at__lt=cutoff)
    for subject, subject_id in waiting.values_list("subject", "subject_id"):
        if not Job.exists(_job_id(subject, subject_id), connection=connection) and _enqueue(subject, subject_id):
            requeued += 1
    return requeued
