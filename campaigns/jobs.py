"""RQ jobs. A job takes ids, claims its work, and calls an engine or service."""

from __future__ import annotations

import logging

from django.db import close_old_connections
from django.utils import timezone

from campaigns.models import Campaign, CampaignStatus
from campaigns.sink import CampaignSink
from engines.pyfunc import engine as pyfunc

log = logging.getLogger(__name__)


def campaign_run(campaign_id: int) -> str:
    """Run a queued campaign to the end of its budget or until stopped."""
    close_old_connections()
    claimed = Campaign.objects.filter(pk=campaign_id, status=CampaignStatus.QUEUED).update(
        status=CampaignStatus.RUNNING, started_at=timezone.now(), heartbeat_at=timezone.now()
    )
    if not claimed:
        # Stopped before it started, or another worker has it.
        return "not claimed"
    campaign = Campaign.objects.select_related("target").get(pk=campaign_id)
    target = campaign.target
    config = pyfunc.Config(
        target=target.module,
        seconds=campaign.time_budget_seconds,
        seed=campaign.seed,
        search_path=[p for p in target.search_path.split(":") if p],
    )
    sink = CampaignSink(campaign_id, engine=campaign.engine)
    try:
        summary = pyfunc.run(config, sink)
        sink.flush()
    except pyfunc.TargetError as error:
        sink.flush()
        _finish(campaign_id, CampaignStatus.FAILED, error=str(error))
        return "failed"
    except BaseException as error:
        log.exception("campaign %s crashed", campaign_id)
        _finish(campaign_id, CampaignStatus.FAILED, error=f"{type(error).__name__}: {error}")
        raise
    final = CampaignStatus.STOPPED if summary.stopped else CampaignStatus.FINISHED
    _finish(campaign_id, final, executions=summary.executions)
    return final


def _finish(campaign_id: int, status: str, **fields) -> None:
    Campaign.objects.filter(pk=campaign_id, status__in=(CampaignStatus.RUNNING, CampaignStatus.STOPPING)).update(
        status=status, finished_at=timezone.now(), **fields
    )
