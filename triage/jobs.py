"""RQ jobs of the triage app. A job takes ids, calls a service, returns a summary."""

from __future__ import annotations

from dataclasses import asdict

from django.db import close_old_connections

from triage.culprit_queue import culprit_searches_requeue_lost
from triage.rebucket import RebucketSummary, bucket_rebucket, findings_rebucket
from triage.reduction import reduction_run, reductions_reap_stale, reductions_requeue_lost


def rebucket_job(only_outdated: bool = True) -> dict:
    """Re-bucket findings with the current signature algorithm."""
    close_old_connections()
    return asdict(findings_rebucket(only_outdated=only_outdated))


def rebucket_buckets_job(bucket_ids: list[int]) -> dict:
    """Re-bucket the findings of the given buckets, whatever version made them."""
    close_old_connections()
    summary = RebucketSummary()
    for bucket_id in bucket_ids:
        bucket_rebucket(bucket_id=bucket_id, summary=summary)
    return asdict(summary)


def reduction_job(reduction_id: int) -> str:
    """Reduce a bucket's testcase, or verify an uploaded one; returns the reduction's final state."""
    close_old_connections()
    return reduction_run(reduction_id=reduction_id)


def culprit_job(bucket_id: int) -> dict:
    from triage.culprits import bucket_culprit_find

    return bucket_culprit_find(bucket_id=bucket_id)


def finding_culprit_job(finding_id: int) -> str:
    from triage.culprits import finding_culprit_move

    return finding_culprit_move(finding_id=finding_id)


def reductions_reap_job() -> int:
    """Fail reductions whose worker died; queue again reductions and culprit searches whose job was lost."""
    close_old_connections()
    return reductions_reap_stale() + reductions_requeue_lost() + culprit_searches_requeue_lost()


def issues_sync_job() -> dict:
    """Read the state of filed issues back from their trackers."""
    from triage.trackers import issues_sync

    close_old_connections()
    return issues_sync()


def findings_expire_job() -> int:
    """Retention: drop the duplicate testcases of closed buckets older than FUZZWEB_RETENTION_DAYS."""
    from django.conf import settings

    from triage.retention import findings_expire

    close_old_connections()
    return findings_expire(older_than_days=settings.FUZZWEB_RETENTION_DAYS)


def thresholds_learn_job() -> int:
    """Daily: per-target fuzzy thresholds from maintainers' merges, splits and undos (triage.decisions)."""
    from triage.decisions import thresholds_learn

    close_old_connections()
    return len(thresholds_learn())
