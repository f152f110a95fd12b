"""Starting and stopping campaigns."""

from __future__ import annotations

import random

import django_rq
from django.db import transaction
from django.utils import timezone

from campaigns.models import Campaign, CampaignStatus, Target

QUEUE = "campaigns"
# RQ kills a job that outlives its timeout; leave room past the budget for
# start-up and the final flush of findings.
JOB_TIMEOUT_MARGIN_SECONDS = 300


def campaign_launch(*, target: Target, time_budget_seconds: int, seed: int | None = None, user=None) -> Campaign:
    """Create a campaign and queue its job once the row is committed."""
    campaign = Campaign.objects.create(
        target=target,
        engine=target.engine,
        seed=random.randrange(2**31) if seed is None else seed,
        time_budget_seconds=time_budget_seconds,
        created_by=user,
    )
    # Enqueue after commit: a worker that picks the job up first must find the row.
    transaction.on_commit(lambda: _enqueue(campaign))
    return campaign


def _enqueue(campaign: Campaign) -> None:
    from campaigns.jobs import campaign_run

    django_rq.get_queue(QUEUE).enqueue(
        campaign_run,
        campaign.pk,
        job_id=f"campaign-{campaign.pk}",
        job_timeout=campaign.time_budget_seconds + JOB_TIMEOUT_MARGIN_SECONDS,
    )


def campaign_stop(*, campaign_id: int) -> bool:
    """Ask a campaign to stop; return False if it had already ended.

    A queued campaign stops at once; a running one is marked stopping and its
    job, which polls for this, ends within a second or so.
    """
    now = timezone.now()
    if Campaign.objects.filter(pk=campaign_id, status=CampaignStatus.QUEUED).update(
        status=CampaignStatus.STOPPED, finished_at=now
    ):
        return True
    return bool(
        Campaign.objects.filter(pk=campaign_id, status=CampaignStatus.RUNNING).update(status=CampaignStatus.STOPPING)
    )


def campaigns_stop_all() -> int:
    """Ask every active campaign to stop; return how many were asked."""
    active = Campaign.objects.filter(status__in=(CampaignStatus.QUEUED, CampaignStatus.RUNNING))
    return sum(campaign_stop(campaign_id=pk) for pk in active.values_list("pk", flat=True))
