"""Campaign pages: launch form, live progress endpoint, stop."""

from __future__ import annotations

import django_rq
import pytest
from django.urls import reverse

from campaigns.models import Campaign, CampaignStatus, Shard, Target
from tests.integration.test_ingest import make_finding
from triage.ingest import findings_ingest

pytestmark = pytest.mark.django_db(transaction=True)

XSS = "<img src=x onerror=alert(1)>"


@pytest.fixture
def target():
    return Target.objects.get_or_create(name="textkit (demo)", defaults={"module": "engines.demo.textkit"})[0]


def test_launch_form_creates_and_queues_a_campaign(logged_in, target):
    queue = django_rq.get_queue("engine-pyfunc")
    queue.empty()
    response = logged_in.post(
        reverse("campaigns:new"),
        {"target": target.pk, "time_budget_seconds": 60, "shard_count": 3, "max_executions": 9000},
    )
    campaign = Campaign.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("campaigns:detail", args=[campaign.pk])
    assert campaign.status == CampaignStatus.QUEUED
    assert (campaign.time_budget_seconds, campaign.shard_count, campaign.max_executions) == (60, 3, 9000)
    shards = list(campaign.shards.all())
    assert [s.seed - campaign.seed for s in shards] == [0, 1, 2]
    # One job per shard on the engine's own queue, each naming its shard.
    assert sorted(queue.fetch_job(job_id).args[0] for job_id in queue.job_ids) == [s.pk for s in shards]
    queue.empty()


def test_launch_form_rejects_a_bad_budget(logged_in, target):
    response = logged_in.post(reverse("campaigns:new"), {"target": target.pk, "time_budget_seconds": -5})
    assert response.status_code == 200
    assert not Campaign.objects.exists()
    assert b"greater than or equal to 5" in response.content


def test_progress_endpoint_reports_live_numbers(logged_in, target):
    campaign = Campaign.objects.create(target=target, engine="pyfunc", time_budget_seconds=60)
    Shard.objects.create(campaign=campaign, index=0, seed=1, executions=1000, elapsed_seconds=10)
    Shard.objects.create(campaign=campaign, index=1, seed=2, executions=234, elapsed_seconds=10)
    findings_ingest(submissions=[make_finding(function=XSS)] * 3, campaign_id=campaign.pk)
    progress = logged_in.get(reverse("campaigns:progress", args=[campaign.pk])).json()
    assert progress["executions"] == 1234
    assert progress["executions_per_second"] == 123.4
    assert (progress["rate_label"], progress["rate"]) == ("Executions per second", 123.4)
    assert [s["executions"] for s in progress["shards"]] == [1000, 234]
    assert progress["active"] is True
    assert [b["hits"] for b in progress["buckets"]] == [3]
    assert progress["buckets"][0]["title"] == f"KeyError in {XSS}"

    html = logged_in.get(reverse("campaigns:detail", args=[campaign.pk])).content.decode()
    assert XSS not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html


def test_stop_button_marks_a_running_campaign_stopping(logged_in, target):
    campaign = Campaign.objects.create(
        target=target, engine="pyfunc", time_budget_seconds=60, status=CampaignStatus.RUNNING
    )
    Shard.objects.create(campaign=campaign, index=0, seed=1, status="running")
    response = logged_in.post(reverse("campaigns:stop", args=[campaign.pk]))
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.STOPPING


def test_campaign_list_shows_status(logged_in, target):
    Campaign.objects.create(target=target, engine="pyfunc", time_budget_seconds=60, status=CampaignStatus.FAILED)
    html = logged_in.get(reverse("campaigns:list")).content.decode()
    assert "status-failed" in html and "textkit (demo)" in html


def test_run_again_clones_the_campaign_with_a_new_seed(logged_in, target):
    original = Campaign.objects.create(
        target=target,
        engine="pyfunc",
        time_budget_seconds=30,
        shard_count=3,
        max_executions=500,
        status=CampaignStatus.FINISHED,
        seed=42,
    )
    django_rq.get_queue("engine-pyfunc").empty()
    response = logged_in.post(reverse("campaigns:clone", args=[original.pk]))
    clone = Campaign.objects.exclude(pk=original.pk).get()
    assert response["Location"] == reverse("campaigns:detail", args=[clone.pk])
    assert (clone.target, clone.time_budget_seconds, clone.shard_count, clone.max_executions) == (target, 30, 3, 500)
    assert clone.cloned_from == original and clone.status == CampaignStatus.QUEUED
    assert clone.shards.count() == 3
    assert len(django_rq.get_queue("engine-pyfunc").job_ids) == 3
    django_rq.get_queue("engine-pyfunc").empty()


def test_only_ended_campaigns_can_be_resumed(logged_in, target):
    running = Campaign.objects.create(
        target=target, engine="pyfunc", time_budget_seconds=30, status=CampaignStatus.RUNNING
    )
    response = logged_in.post(reverse("campaigns:resume", args=[running.pk]), follow=True)
    assert b"Only a stopped or failed campaign can be resumed" in response.content
    assert Campaign.objects.get(pk=running.pk).status == CampaignStatus.RUNNING


def test_campaign_page_lists_functions_not_fuzzed_and_why(logged_in, target):
    campaign = Campaign.objects.create(target=target, engine="pyfunc", time_budget_seconds=30)
    Shard.objects.create(
        campaign=campaign,
        index=0,
        seed=1,
        discovery={"functions": ["mean"], "skipped": [{"name": "apply_all", "reason": "unsupported <Callable>"}]},
    )
    html = logged_in.get(reverse("campaigns:detail", args=[campaign.pk])).content.decode()
    assert "1 fuzzed, 1 not" in html
    assert "<code>apply_all</code>" in html and "unsupported &lt;Callable&gt;" in html


def test_a_differential_campaign_reports_programs_per_hour(logged_in):
    target = Target.objects.get_or_create(name="C compilers (Csmith)", defaults={"engine": "diff-c"})[0]
    campaign = Campaign.objects.create(target=target, engine="diff-c", time_budget_seconds=600)
    Shard.objects.create(campaign=campaign, index=0, seed=1, executions=90, elapsed_seconds=60)
    progress = logged_in.get(reverse("campaigns:progress", args=[campaign.pk])).json()
    assert (progress["rate_label"], progress["rate"], progress["rate_factor"]) == ("Programs per hour", 5400, 3600)
    page = logged_in.get(reverse("campaigns:detail", args=[campaign.pk])).content.decode()
    assert '<dt>Programs per hour</dt><dd id="rate">5400</dd>' in page
