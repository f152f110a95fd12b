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
# Each subject's job and how long it may run and its result is kept (a bucket's search runs the release
# matrix too).
_JOBS = {Subject.BUCKET: ("culprit_job", 3600, 3600), Subject.FINDING: ("finding_culprit_job", 1800, 600)}


def _job_id(search: CulpritSearch) -> str:
    return f"culprit-{search.subject}-{search.subject_id}-{search.pk}"


def _enqueue(search: CulpritSearch) -> bool:
    from triage import jobs

    name, timeout, result_ttl = _JOBS[search.subject]
    return reduce_queue.enqueue(
        getattr(jobs, name), search.subject_id, job_id=_job_id(search), job_timeout=timeout, result_ttl=result_ttl
    )


def _not_started(subject: str, subject_id: int):
    return CulpritSearch.objects.filter(
        subject=subject, subject_id=subject_id, started_at__isnull=True, finished_at__isnull=True
    )


def culprit_search_queue(subject: str, subject_id: int) -> None:
    """Record a search of ``subject`` #``subject_id`` and queue its job once the transaction commits.

    A search not yet started covers a second request (it reads the subject when it runs);
    one under way does not, since what it read may have changed since.
    """
    if _not_started(subject, subject_id).exists():
        return
    search = CulpritSearch.objects.create(subject=subject, subject_id=subject_id)
    transaction.on_commit(lambda: _enqueue(search))


def culprit_search_started(subject: str, subject_id: int) -> None:
    """A job for ``subject`` #``subject_id`` starts: it answers every search of it asked for so far."""
    _not_started(subject, subject_id).update(started_at=timezone.now())


def culprit_search_done(subject: str, subject_id: int, outcome: str) -> None:
    """The job of ``subject`` #``subject_id`` has run: the searches it started are over."""
    CulpritSearch.objects.filter(
        subject=subject, subject_id=subject_id, started_at__isnull=False, finished_at__isnull=True
    ).update(finished_at=timezone.now(), outcome=outcome[:2000])


# How long a finished search's row is kept (for its outcome), before the sweep drops it.
KEEP_FINISHED = timedelta(days=7)


def culprit_searches_requeue_lost(*, older_than: float = 60) -> int:
    """Queue again the searches still waiting whose job Redis no longer has; how many were queued."""
    now = timezone.now()
    CulpritSearch.objects.filter(finished_at__lt=now - KEEP_FINISHED).delete()
    cutoff = now - timedelta(seconds=older_than)
    connection = django_rq.get_queue(reduce_queue.QUEUE).connection
    requeued = 0
    for search in CulpritSearch.objects.filter(finished_at__isnull=True, created_at__lt=cutoff):
        if not Job.exists(_job_id(search), connection=connection) and _enqueue(search):
            requeued += 1
    return requeued
