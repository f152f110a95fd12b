"""Periodic jobs, run by RQ's own cron scheduler (`manage.py rqcron fuzzweb.cron`).

RQ's built-in cron (rq >= 2.5) is maintained with RQ itself and needs no
extra process type beyond the scheduler; rq-scheduler, the older add-on, is
a separate project that lags RQ's releases.
"""

from django.conf import settings
from rq import Queue, cron
from rq.utils import import_attribute

from campaigns.reaper import shards_reap_job, stats_rollup_job
from triage.jobs import findings_expire_job, issues_sync_job, reductions_reap_job, thresholds_learn_job


class _JsonQueue(Queue):
    """RQ's cron makes its queues without a serializer (pickle); ours read only JSON jobs."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("serializer", import_attribute(settings.RQ_SERIALIZER))
        super().__init__(*args, **kwargs)


# rq.cron has no serializer setting: its queue class is swapped here, in the
# scheduler process only (`manage.py rqcron fuzzweb.cron` imports this module).
cron.Queue = _JsonQueue


cron.register(shards_reap_job, "default", interval=settings.FUZZWEB_REAP_INTERVAL_SECONDS, job_timeout=300)
cron.register(stats_rollup_job, "default", interval=600, job_timeout=1800)
cron.register(reductions_reap_job, "default", interval=300, job_timeout=300)
cron.register(issues_sync_job, "default", interval=settings.FUZZWEB_ISSUE_SYNC_SECONDS, job_timeout=1800)
cron.register(findings_expire_job, "default", interval=24 * 3600, job_timeout=6 * 3600)
cron.register(thresholds_learn_job, "default", interval=24 * 3600, job_timeout=1800)
