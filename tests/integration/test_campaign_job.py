"""Campaigns run by real RQ worker processes against the real Redis and PostgreSQL."""

from __future__ import annotations

import os
import signal

import pytest
from django.db import transaction
from django.db.models import Sum

from campaigns.launch import campaign_launch, campaign_resume, campaign_stop
from campaigns.models import Campaign, CampaignStatus, Shard, ShardStatus, StatSample, Target
from engines.demo import textkit
from tests.conftest import run_worker_burst, start_process, stop_process, wait_for
from triage.models import Bucket, Finding

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]


def _target(module: str = "engines.demo.textkit", name: str = "textkit (demo)") -> Target:
    # Transactional tests empty the tables the demo migration filled.
    return Target.objects.get_or_create(name=name, defaults={"module": module, "engine": "pyfunc"})[0]


def _launch(**options) -> Campaign:
    with transaction.atomic():
        return campaign_launch(target=options.pop("target", None) or _target(), **options)


def _status(campaign: Campaign) -> str:
    return Campaign.objects.get(pk=campaign.pk).status


def _stored_hits(campaign: Campaign) -> int:
    return Finding.objects.filter(campaign=campaign).aggregate(hits=Sum("hit_count"))["hits"] or 0


def test_worker_runs_the_demo_campaign_into_one_bucket_per_bug():
    campaign = _launch(time_budget_seconds=6, seed=11)
    result = run_worker_burst()
    assert result.returncode == 0, result.stderr[-3000:]

    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.FINISHED, campaign.error
    assert campaign.executions > 1000
    assert 5 <= (campaign.finished_at - campaign.started_at).total_seconds() < 30
    # Thousands of failing executions, stored as a few findings with hit
    # counts, in one bucket per planted bug.
    assert campaign.findings_count > 1000
    assert _stored_hits(campaign) == campaign.findings_count
    assert Finding.objects.filter(campaign=campaign).count() < 200
    titles = {(b.crash_type, b.key_frames[0].rsplit(":", 1)[1]) for b in Bucket.objects.all()}
    assert titles == textkit.PLANTED_BUGS
    assert campaign.new_buckets == len(textkit.PLANTED_BUGS)
    assert StatSample.objects.filter(campaign=campaign).count() >= 2
    discovery = campaign.shards.get().discovery
    assert "mean" in discovery["functions"]
    assert [s["name"] for s in discovery["skipped"]] == ["apply_all"]


def test_two_shards_on_two_workers_finish_with_the_findings_of_both(rq_workers):
    rq_workers(2)
    campaign = _launch(time_budget_seconds=8, shard_count=2)
    wait_for(lambda: _status(campaign) == CampaignStatus.FINISHED, timeout=60)
    shards = list(campaign.shards.all())
    assert [s.status for s in shards] == [ShardStatus.FINISHED, ShardStatus.FINISHED]
    # Each shard ran on its own worker process, with its own seed.
    assert len({s.worker for s in shards}) == 2
    assert shards[0].seed != shards[1].seed
    assert all(s.findings > 0 for s in shards)
    # Every finding either shard reported is stored (repeats as hits).
    assert (
        _stored_hits(campaign) == sum(s.findings for s in shards) == Campaign.objects.get(pk=campaign.pk).findings_count
    )
    assert Campaign.objects.get(pk=campaign.pk).executions == sum(s.executions for s in shards)


def test_a_worker_killed_mid_shard_is_replaced_and_the_shard_resumes(rq_workers):
    # The reaper runs on RQ's cron every second and calls a shard dead after
    # 3 s without a heartbeat.
    fast_reaper = {"FUZZWEB_SHARD_STALE_SECONDS": "3", "FUZZWEB_REAP_INTERVAL_SECONDS": "1"}
    scheduler = start_process("rqcron", "fuzzweb.cron", env=fast_reaper)
    try:
        doomed = rq_workers(1)[0]
        campaign = _launch(time_budget_seconds=12, shard_count=1)
        shard = campaign.shards.get()
        wait_for(lambda: (Shard.objects.get(pk=shard.pk).checkpoint or {}).get("executions", 0) > 2000, timeout=30)
        findings_before = set(Finding.objects.filter(campaign=campaign).values_list("pk", flat=True))
        checkpoint = Shard.objects.get(pk=shard.pk).checkpoint["executions"]
        assert findings_before

        # The worker and its work horse (RQ puts the horse in its own session;
        # shard.worker names it), as when the machine's OOM killer strikes.
        horse = int(Shard.objects.get(pk=shard.pk).worker.rsplit(":", 1)[1])
        os.killpg(doomed.pid, signal.SIGKILL)
        os.killpg(horse, signal.SIGKILL)
        doomed.wait()
        rq_workers(1)  # a surviving worker elsewhere
        wait_for(lambda: _status(campaign) in (CampaignStatus.FINISHED, CampaignStatus.FAILED), timeout=60)
    finally:
        stop_process(scheduler)

    campaign.refresh_from_db()
    shard.refresh_from_db()
    assert campaign.status == CampaignStatus.FINISHED, campaign.error
    assert shard.attempts == 2
    # Resumed from the checkpoint, not from the start: the counters carried
    # on and the time budget was not spent twice.
    assert shard.executions > checkpoint
    assert shard.elapsed_seconds < 12 + 4
    # Nothing stored before the kill was lost.
    assert findings_before <= set(Finding.objects.filter(campaign=campaign).values_list("pk", flat=True))


def test_stop_ends_a_running_campaign_within_seconds(rq_workers):
    rq_workers(2)
    campaign = _launch(time_budget_seconds=300, shard_count=2)
    wait_for(lambda: campaign.shards.filter(status=ShardStatus.RUNNING, executions__gt=0).count() == 2, timeout=30)
    assert campaign_stop(campaign_id=campaign.pk)
    wait_for(lambda: _status(campaign) == CampaignStatus.STOPPED, timeout=5)
    assert set(campaign.shards.values_list("status", flat=True)) == {ShardStatus.STOPPED}
    assert campaign_stop(campaign_id=campaign.pk) is False


def test_a_stopped_campaign_resumes_where_it_stopped(rq_workers):
    rq_workers(1)
    campaign = _launch(time_budget_seconds=8, shard_count=1)
    wait_for(lambda: (campaign.shards.get().checkpoint or {}).get("executions", 0) > 500, timeout=30)
    campaign_stop(campaign_id=campaign.pk)
    wait_for(lambda: _status(campaign) == CampaignStatus.STOPPED, timeout=5)
    stopped_at = campaign.shards.get().elapsed_seconds
    assert stopped_at < 8
    assert campaign_resume(campaign_id=campaign.pk)
    wait_for(lambda: _status(campaign) == CampaignStatus.FINISHED, timeout=30)
    shard = campaign.shards.get()
    assert shard.attempts == 2
    # The second run only used what was left of the budget.
    assert 8 <= shard.elapsed_seconds < 8 + 2


def test_queued_campaign_stops_without_running():
    campaign = _launch(time_budget_seconds=60, shard_count=2)
    assert campaign_stop(campaign_id=campaign.pk)
    assert run_worker_burst().returncode == 0
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.STOPPED
    assert list(campaign.shards.values_list("attempts", flat=True)) == [0, 0]


# Alone: a hang is told from a slow call by the 2-second call limit, and the other half of
# the parallel suite compiling beside it made even calls of hang_on_odd miss it.
@pytest.mark.serial
def test_hostile_targets_are_findings_and_the_worker_survives(rq_workers):
    worker = rq_workers(1)[0]
    hostile = _target("tests.targets.hostile", "hostile")
    # A fixed seed: in 80 calls over nine functions hang_on_odd gets about
    # eight, and one seed in a hundred or so draws no odd number among them
    # (seed 101 does; CI failed on such a draw). Seed 8 gives it seven.
    campaign = _launch(target=hostile, time_budget_seconds=90, max_executions=80, seed=8)
    wait_for(lambda: _status(campaign) == CampaignStatus.FINISHED, timeout=120)
    kinds = dict(Finding.objects.filter(campaign=campaign).values_list("function", "kind").distinct())
    skipped = {item["name"]: item["reason"] for item in campaign.shards.get().discovery["skipped"]}
    assert kinds["segfault"] == "crash"
    assert kinds.get("hang_on_odd") == "timeout", (kinds, skipped)
    assert "hang" not in kinds
    assert skipped["hang"].startswith("hangs: its first 3 calls did not return")
    assert kinds["fork_bomb"] == "crash"
    assert kinds["allocate_50_gb"] == "oom"
    assert worker.poll() is None  # the worker is alive and well
    # And it still serves: a second campaign runs on it.
    second = _launch(time_budget_seconds=3)
    wait_for(lambda: _status(second) == CampaignStatus.FINISHED, timeout=30)


def test_unimportable_target_fails_the_campaign_with_its_reason():
    campaign = _launch(target=_target("tests.targets.broken_import", "broken"), time_budget_seconds=10)
    result = run_worker_burst()
    campaign.refresh_from_db()
    # It stayed queued once in a fresh-clone run: say what the worker did.
    assert campaign.status == CampaignStatus.FAILED, (campaign.status, result.returncode, result.stderr[-3000:])
    assert "missing native library" in campaign.error
