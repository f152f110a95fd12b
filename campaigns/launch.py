"""Campaign lifecycle services: launch, stop, clone, resume, finalize.

queued -> running -> stopping -> finished / stopped / failed. A campaign is
N shards, each an RQ job on its engine's queue; the campaign's state follows
from its shards' (campaign_finalize). Every transition is a conditional
update, so workers, the reaper and the browser can race safely.
"""

from __future__ import annotations

import math
import random

import django_rq
from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from campaigns.models import SHARD_DONE, Campaign, CampaignStatus, Shard, ShardStatus, Target
from engines import registry

# RQ kills a job that outlives its timeout; leave room past the budget for
# start-up and the final flush of findings.
JOB_TIMEOUT_MARGIN_SECONDS = 300


def engine_queue(engine: str) -> str:
    """The queue an engine's shards go to (engines/registry.py); workers pick the engines they can run."""
    entry = registry.get(engine)
    if entry is None:
        raise ValueError(f"no engine {engine!r} in the registry")
    return entry.queue


def campaign_launch(
    *,
    target: Target,
    time_budget_seconds: int,
    shard_count: int = 1,
    max_executions: int | None = None,
    seed: int | None = None,
    user=None,
    cloned_from: Campaign | None = None,
    options: dict | None = None,
) -> Campaign:
    """Create a campaign and its shards; queue the shards once committed.

    A user-defined target's description is copied into the campaign: its
    shards, re-runs and reductions use what it was launched with.
    """
    options = dict(options or {})
    entry = registry.get(target.engine)
    if entry is not None and entry.user_defined:
        options["spec"] = target.differential
    with transaction.atomic():
        campaign = Campaign.objects.create(
            target=target,
            engine=target.engine,
            seed=random.randrange(2**31) if seed is None else seed,
            time_budget_seconds=time_budget_seconds,
            max_executions=max_executions,
            shard_count=shard_count,
            created_by=user,
            cloned_from=cloned_from,
            options=options,
        )
        now = timezone.now()
        shards = Shard.objects.bulk_create(
            # Each shard its own seed: N shards explore N different sequences.
            Shard(campaign=campaign, index=index, seed=campaign.seed + index, queued_at=now)
            for index in range(shard_count)
        )
        transaction.on_commit(lambda: [shard_enqueue(shard=shard) for shard in shards])
    return campaign


def shard_enqueue(*, shard: Shard) -> None:
    """Put a shard's job on its engine's queue."""
    from campaigns.jobs import shard_run

    campaign = shard.campaign
    remaining = max(0.0, campaign.time_budget_seconds - shard.elapsed_seconds)
    job = django_rq.get_queue(engine_queue(campaign.engine)).enqueue(
        shard_run,
        shard.pk,
        job_id=f"{shard.job_name}-{shard.attempts + 1}-{random.randrange(16**6):06x}",
        job_timeout=int(remaining) + JOB_TIMEOUT_MARGIN_SECONDS,
        result_ttl=3600,
    )
    Shard.objects.filter(pk=shard.pk).update(job_id=job.id)


def shard_execution_budget(campaign: Campaign) -> int | None:
    """Each shard's share of the campaign's execution budget."""
    if campaign.max_executions is None:
        return None
    return math.ceil(campaign.max_executions / campaign.shard_count)


def campaign_stop(*, campaign_id: int) -> bool:
    """Ask a campaign to stop; return False if it had already ended.

    Shards not yet started stop at once; running ones see the campaign's
    stopping state within half a second and end, keeping their findings.
    """
    now = timezone.now()
    asked = Campaign.objects.filter(pk=campaign_id, status__in=(CampaignStatus.QUEUED, CampaignStatus.RUNNING)).update(
        status=CampaignStatus.STOPPING
    )
    if not asked:
        return False
    Shard.objects.filter(campaign_id=campaign_id, status=ShardStatus.QUEUED).update(
        status=ShardStatus.STOPPED, finished_at=now
    )
    campaign_finalize(campaign_id=campaign_id)
    return True


def campaigns_stop_all() -> int:
    """Ask every active campaign to stop; return how many were asked."""
    active = Campaign.objects.filter(status__in=(CampaignStatus.QUEUED, CampaignStatus.RUNNING))
    return sum(campaign_stop(campaign_id=pk) for pk in active.values_list("pk", flat=True))


def campaign_finalize(*, campaign_id: int) -> str | None:
    """Once every shard has ended, end the campaign; return its final status, if any.

    finished when all shards finished; stopped when it was asked to stop;
    failed when a shard failed and none finished.
    """
    statuses = list(Shard.objects.filter(campaign_id=campaign_id).values_list("status", flat=True))
    if not statuses or any(status not in SHARD_DONE for status in statuses):
        return None
    campaign = Campaign.objects.get(pk=campaign_id)
    if campaign.status == CampaignStatus.STOPPING or ShardStatus.STOPPED in statuses:
        final = CampaignStatus.STOPPED
    elif ShardStatus.FINISHED in statuses:
        final = CampaignStatus.FINISHED
    else:
        final = CampaignStatus.FAILED
    errors = "\n".join(
        error for error in Shard.objects.filter(campaign_id=campaign_id).values_list("error", flat=True) if error
    )
    executions = Shard.objects.filter(campaign_id=campaign_id).aggregate(total=Sum("executions"))["total"] or 0
    ended = Campaign.objects.filter(
        pk=campaign_id, status__in=(CampaignStatus.QUEUED, CampaignStatus.RUNNING, CampaignStatus.STOPPING)
    ).update(status=final, finished_at=timezone.now(), error=errors[:10_000], executions=executions)
    return final if ended else None


def campaign_clone(*, campaign_id: int, user=None) -> Campaign:
    """Run a campaign again: same target, budget and shards, a new seed."""
    original = Campaign.objects.select_related("target").get(pk=campaign_id)
    return campaign_launch(
        target=original.target,
        time_budget_seconds=original.time_budget_seconds,
        shard_count=original.shard_count,
        max_executions=original.max_executions,
        user=user,
        cloned_from=original,
        options=original.options,
    )


def campaign_resume(*, campaign_id: int) -> bool:
    """Continue a stopped or failed campaign: unfinished shards go on from their checkpoints."""
    with transaction.atomic():
        resumed = Campaign.objects.filter(
            pk=campaign_id, status__in=(CampaignStatus.STOPPED, CampaignStatus.FAILED)
        ).update(status=CampaignStatus.QUEUED, finished_at=None, error="")
        if not resumed:
            return False
        now = timezone.now()
        shards = list(
            Shard.objects.select_related("campaign").filter(
                campaign_id=campaign_id, status__in=(ShardStatus.STOPPED, ShardStatus.FAILED)
            )
        )
        Shard.objects.filter(pk__in=[s.pk for s in shards]).update(
            status=ShardStatus.QUEUED, queued_at=now, finished_at=None, error=""
        )
        transaction.on_commit(lambda: [shard_enqueue(shard=shard) for shard in shards])
    if not shards:
        campaign_finalize(campaign_id=campaign_id)
    return True
