"""The shard heartbeat: beaten while a long engine step runs, silent once the shard's run ends."""

from __future__ import annotations

import time
from datetime import timedelta

import django_rq
import pytest
from django.utils import timezone

from campaigns.heartbeat import Heartbeat
from campaigns.models import Campaign, Shard, ShardStatus, Target
from campaigns.reaper import shards_reap

pytestmark = pytest.mark.django_db(transaction=True)


def _running_shard() -> Shard:
    target = Target.objects.create(name="slow compiles", engine="diff-c")
    campaign = Campaign.objects.create(target=target, engine="diff-c", time_budget_seconds=60)
    long_ago = timezone.now() - timedelta(minutes=10)
    return Shard.objects.create(campaign=campaign, index=0, seed=1, status=ShardStatus.RUNNING, heartbeat_at=long_ago)


def test_a_shard_busy_in_one_long_step_keeps_its_heartbeat_and_is_not_reaped():
    shard = _running_shard()
    with Heartbeat(shard.pk, every=0.1) as heartbeat:
        time.sleep(0.6)  # one compile that takes longer than the reaper waits, in miniature
        shard.refresh_from_db()
        assert timezone.now() - shard.heartbeat_at < timedelta(seconds=2)
        assert shards_reap(stale_after=2).requeued == 0
    assert not heartbeat.thread.is_alive()
    # The last beat as the run left it: beats between the check above and the run's end are
    # the run's (a busy machine delays that end by more than a beat's interval).
    shard.refresh_from_db()
    beaten = shard.heartbeat_at
    time.sleep(0.3)
    shard.refresh_from_db()
    assert shard.heartbeat_at == beaten  # no beats after the run


def test_without_a_heartbeat_the_same_shard_is_reaped():
    shard = _running_shard()
    assert shards_reap(stale_after=2).requeued == 1
    shard.refresh_from_db()
    assert shard.status == ShardStatus.QUEUED
    django_rq.get_queue("engine-diff-c").empty()  # the job the reaper queued: no worker here runs it
