"""Campaigns run by a real RQ worker against the real Redis and PostgreSQL."""

from __future__ import annotations

import pytest
from django.db import transaction

from campaigns.launch import campaign_launch, campaign_stop
from campaigns.models import Campaign, CampaignStatus, Target
from engines.demo import textkit
from tests.conftest import run_worker_burst, wait_for
from triage.models import Bucket, Finding

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]


def _demo_target() -> Target:
    # Transactional tests empty the tables the demo migration filled.
    return Target.objects.get_or_create(
        name="textkit (demo)", defaults={"module": "engines.demo.textkit", "engine": "pyfunc"}
    )[0]


def test_worker_runs_the_demo_campaign_into_one_bucket_per_bug():
    with transaction.atomic():
        campaign = campaign_launch(target=_demo_target(), time_budget_seconds=6, seed=11)
    result = run_worker_burst()
    assert result.returncode == 0, result.stderr[-3000:]

    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.FINISHED, campaign.error
    assert campaign.executions > 1000
    assert campaign.started_at and campaign.finished_at
    assert 5 <= (campaign.finished_at - campaign.started_at).total_seconds() < 30

    stored = Finding.objects.filter(campaign=campaign).count()
    assert stored == campaign.findings_count > 50
    buckets = Bucket.objects.all()
    titles = {(b.crash_type, b.key_frames[0].rsplit(":", 1)[1]) for b in buckets}
    assert titles == textkit.PLANTED_BUGS
    assert campaign.new_buckets == len(textkit.PLANTED_BUGS)
    assert sum(b.hit_count for b in buckets) == stored
    assert all(b.representative_id for b in buckets)


def test_stop_ends_a_running_campaign_within_seconds(rq_worker):
    with transaction.atomic():
        campaign = campaign_launch(target=_demo_target(), time_budget_seconds=300)
    wait_for(lambda: Campaign.objects.get(pk=campaign.pk).status == CampaignStatus.RUNNING, timeout=30)
    wait_for(lambda: Campaign.objects.get(pk=campaign.pk).executions > 0, timeout=10)
    assert campaign_stop(campaign_id=campaign.pk)
    wait_for(lambda: Campaign.objects.get(pk=campaign.pk).status == CampaignStatus.STOPPED, timeout=5)
    campaign.refresh_from_db()
    assert campaign.finished_at is not None
    assert campaign_stop(campaign_id=campaign.pk) is False


def test_queued_campaign_stops_without_running():
    with transaction.atomic():
        campaign = campaign_launch(target=_demo_target(), time_budget_seconds=60)
    assert campaign_stop(campaign_id=campaign.pk)
    result = run_worker_burst()
    assert result.returncode == 0
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.STOPPED
    assert campaign.executions == 0


def test_unimportable_target_fails_the_campaign_with_its_reason():
    broken = Target.objects.create(name="broken", module="tests.targets.broken_import")
    with transaction.atomic():
        campaign = campaign_launch(target=broken, time_budget_seconds=10)
    run_worker_burst()
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.FAILED
    assert "missing native library" in campaign.error
