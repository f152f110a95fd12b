"""The stale-shard reaper and the stats roll-up, run periodically by RQ's cron.

A shard whose heartbeat stopped had its worker die (SIGKILL, OOM killer, a
machine gone); it is queued again and resumes from its checkpoint. A shard
whose RQ job vanished (Redis restarted without persistence) is queued again
too. Campaigns whose shards all ended are finalized.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from rq.exceptions import NoSuchJobError
from rq.job import Job

from campaigns.launch import campaign_finalize, shard_enqueue
from campaigns.models import ACTIVE_STATUSES, Campaign, Shard, ShardStatus, StatSample

log = logging.getLogger(__name__)
MAX_ATTEMPTS = 5


@dataclass
class ReapSummary:
    requeued: int = 0
    failed: int = 0
    finalized: int = 0


def _job_exists(job_id: str) -> bool:
    import django_rq

    if not job_id:
        return False
    try:
        job = Job.fetch(job_id, connection=django_rq.get_connection("default"), serializer=settings.RQ_SERIALIZER)
    except NoSuchJobError:
        return False
    return job.get_status(refresh=False) not in ("failed", "stopped", "canceled")


def shards_reap(*, stale_after: float | None = None) -> ReapSummary:
    """Re-queue shards that lost their worker or their job; finalize finished campaigns."""
    stale_after = settings.FUZZWEB_SHARD_STALE_SECONDS if stale_after is None else stale_after
    summary = ReapSummary()
    cutoff = timezone.now() - timedelta(seconds=stale_after)
    for shard in Shard.objects.select_related("campaign").filter(status=ShardStatus.RUNNING, heartbeat_at__lt=cutoff):
        _requeue(shard, ShardStatus.RUNNING, f"no heartbeat for {stale_after:.0f} s", summary)
    for shard in Shard.objects.select_related("campaign").filter(status=ShardStatus.QUEUED, queued_at__lt=cutoff):
        if not _job_exists(shard.job_id):
            _requeue(shard, ShardStatus.QUEUED, "its job was lost", summary)
    for campaign_id in Campaign.objects.filter(status__in=ACTIVE_STATUSES).values_list("pk", flat=True):
        if campaign_finalize(campaign_id=campaign_id):
            summary.finalized += 1
    return summary


def _requeue(shard: Shard, expected: str, reason: str, summary: ReapSummary) -> None:
    now = timezone.now()
    if shard.attempts >= MAX_ATTEMPTS:
        if Shard.objects.filter(pk=shard.pk, status=expected).update(
            status=ShardStatus.FAILED, finished_at=now, error=f"gave up after {shard.attempts} attempts: {reason}"
        ):
            summary.failed += 1
        return
    # Conditional: if the worker came back to life meanwhile, it keeps the shard.
    if Shard.objects.filter(pk=shard.pk, status=expected, heartbeat_at=shard.heartbeat_at).update(
        status=ShardStatus.QUEUED, queued_at=now, worker=""
    ):
        log.warning("re-queueing %s: %s", shard, reason)
        shard.refresh_from_db()
        shard_enqueue(shard=shard)
        summary.requeued += 1


def stats_rollup(*, older_than: float = 3600, keep_every: float = 60) -> int:
    """Thin out old samples to one per shard per ``keep_every`` seconds; return how many went."""
    cutoff = timezone.now() - timedelta(seconds=older_than)
    removed = 0
    old = StatSample.objects.filter(at__lt=cutoff).order_by("shard_id", "at").values_list("pk", "shard_id", "at")
    doomed, last_kept = [], {}
    for pk, shard_id, at in old.iterator():
        kept = last_kept.get(shard_id)
        if kept is not None and (at - kept).total_seconds() < keep_every:
            doomed.append(pk)
        else:
            last_kept[shard_id] = at
        if len(doomed) >= 5000:
            removed += StatSample.objects.filter(pk__in=doomed).delete()[0]
            doomed = []
    if doomed:
        removed += StatSample.objects.filter(pk__in=doomed).delete()[0]
    return removed


def shards_reap_job() -> dict:
    """RQ entry point of the reaper."""
    from dataclasses import asdict

    return asdict(shards_reap())


def stats_rollup_job() -> int:
    """RQ entry point of the roll-up."""
    return stats_rollup()
