"""RQ jobs. A job takes ids, claims its work with a conditional update, runs it."""

from __future__ import annotations

import logging
import os
import socket

from django.db import close_old_connections
from django.db.models import F
from django.utils import timezone

from campaigns.heartbeat import Heartbeat
from campaigns.launch import campaign_finalize, shard_execution_budget
from campaigns.models import Campaign, CampaignStatus, Shard, ShardStatus, target_fields
from campaigns.sink import ShardSink
from engines import registry

log = logging.getLogger(__name__)


class UnknownEngine(Exception):
    """The campaign names an engine this worker's registry does not have."""


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def shard_run(shard_id: int) -> str:
    """Run one shard to the end of its budget, or until stopped; resume from its checkpoint."""
    close_old_connections()
    now = timezone.now()
    claimed = Shard.objects.filter(pk=shard_id, status=ShardStatus.QUEUED).update(
        status=ShardStatus.RUNNING, worker=worker_name(), started_at=now, heartbeat_at=now
    )
    if not claimed:
        # Stopped before it started, or another worker has it.
        return "not claimed"
    Shard.objects.filter(pk=shard_id).update(attempts=F("attempts") + 1)
    shard = Shard.objects.select_related("campaign__target").get(pk=shard_id)
    campaign = shard.campaign
    Campaign.objects.filter(pk=campaign.pk, status=CampaignStatus.QUEUED).update(
        status=CampaignStatus.RUNNING, started_at=now
    )
    sink = ShardSink(shard)
    entry = registry.get(campaign.engine)
    setup_errors = entry.setup_error_types() if entry is not None else ()
    try:
        if entry is None:
            raise UnknownEngine(f"no engine {campaign.engine!r} on this worker")
        with Heartbeat(shard_id):
            summary = _engine_run(shard, sink, entry)
            sink.drain()
    except (UnknownEngine, *setup_errors) as error:
        sink.drain()
        _end(shard_id, ShardStatus.FAILED, error=str(error))
        campaign_finalize(campaign_id=campaign.pk)
        return "failed"
    except BaseException as error:
        log.exception("shard %s crashed", shard_id)
        _end(shard_id, ShardStatus.FAILED, error=f"{type(error).__name__}: {error}")
        campaign_finalize(campaign_id=campaign.pk)
        raise
    final = ShardStatus.STOPPED if summary.stopped else ShardStatus.FINISHED
    _end(shard_id, final)
    campaign_finalize(campaign_id=campaign.pk)
    return final


def _engine_run(shard: Shard, sink: ShardSink, entry: registry.Engine):
    """Run the campaign's engine for this shard's remaining budget."""
    campaign, target = shard.campaign, shard.campaign.target
    budget = registry.Budget(
        seconds=max(0.0, campaign.time_budget_seconds - shard.elapsed_seconds),
        seed=shard.seed,
        max_executions=shard_execution_budget(campaign),
        resume=shard.checkpoint,
    )
    return entry.runner()(target_fields(target), campaign.options or {}, budget, sink)


def _end(shard_id: int, status: str, error: str = "") -> None:
    close_old_connections()
    Shard.objects.filter(pk=shard_id, status=ShardStatus.RUNNING).update(
        status=status, finished_at=timezone.now(), error=error
    )
