"""A restricted bucket must not leak to outsiders through any side channel, and cannot be used to hide a public one.

Each test is one channel: an outsider (a triager outside the bucket's
group) looks where the restricted bucket could show through, and must find
neither its number, its title, its testcase nor a count that includes it;
an insider of the group still sees it there.
"""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from campaigns.models import Campaign, FunctionExamples, ProgramRun, Shard, StatSample, Target
from campaigns.selectors import campaign_progress
from fuzzweb.models import Scope
from fuzzweb.tokens import api_token_create
from tests.integration.test_ingest import make_finding
from tests.web.test_restricted_buckets import security_team
from triage.ingest import findings_ingest
from triage.merge import bucket_merge, bucket_merge_undo, bucket_split
from triage.models import Bucket, BucketEvent, Finding, Reduction, ReductionState
from triage.overview import overview_data
from triage.reduction import _other_bucket
from triage.reproduction import Attempt
from triage.restriction import bucket_restrict
from triage.workflow import TriageError

pytestmark = pytest.mark.django_db

SECRET = "SECRET_heap_overflow_in_parse_header"
SECRET_CALL = "parse_header(b'\\xff' * 4097)"


def _ingest(campaign, **fields) -> Bucket:
    return findings_ingest(submissions=[make_finding(**fields)], campaign_id=campaign.pk).findings[0].bucket


@pytest.fixture
def world(django_user_model, default_labels):
    security, users = security_team(django_user_model)
    target = Target.objects.get(module="engines.demo.textkit")
    campaign = Campaign.objects.create(target=target, engine="pyfunc", time_budget_seconds=10)
    secret = (
        findings_ingest(
            submissions=[
                make_finding(function="parse_header", error=f"ValueError: {SECRET}", call=f"{SECRET_CALL[:-1]}+{i})")
                for i in range(3)
            ],
            campaign_id=campaign.pk,
        )
        .findings[0]
        .bucket
    )
    public = _ingest(campaign, function="mean", error="ZeroDivisionError: division by zero", call="mean([])")
    assert bucket_restrict(bucket_id=secret.pk, group_id=security.pk, user=users["sam"])
    secret.refresh_from_db()
    return {"users": users, "security": security, "campaign": campaign, "secret": secret, "public": public}


def _as(client, user):
    client.force_login(user)
    return client


def _leaks(text: str, secret: Bucket) -> list[str]:
    """What of ``secret`` shows in ``text``."""
    # Its number as a bucket's ("#12", not campaign #12 nor #123).
    number = re.search(rf"(?<!campaign )(?<!/campaigns/{secret.pk}/\">)#{secret.pk}(?!\d)", text, re.IGNORECASE)
    marks = {
        "number": number.group(0) if number else "\0never",
        "link": f"/triage/buckets/{secret.pk}/",
        "title": secret.title,
        "message": SECRET,
        "testcase": "4097",
    }
    return [name for name, mark in marks.items() if mark in text]


# --- function pages ----------------------------------------------------------------------------
def test_function_page_leaves_out_the_examples_of_a_restricted_crash(client, world):
    campaign, secret = world["campaign"], world["secret"]
    shard = Shard.objects.create(campaign=campaign, index=0, seed=1, discovery={"functions": ["parse_header"]})
    FunctionExamples.objects.create(
        campaign=campaign,
        shard=shard,
        name="parse_header",
        module="app.units",
        file="/src/app/units.py",
        first_line=40,
        source="def parse_header(data):\n    if len(data) > 4096:\n        raise ValueError(data)\n    return data\n",
        executable_lines=[41, 42, 43],
        examples=[
            {"call": SECRET_CALL, "outcome": "raised", "result": f"ValueError: {SECRET}", "lines": [41, 42]},
            {"call": "parse_header(b'')", "outcome": "returned", "result": "b''", "lines": [41, 43]},
        ],
    )
    url = reverse("campaigns:function", args=[campaign.pk, "parse_header"])
    outside = _as(client, world["users"]["tina"]).get(url).content.decode()
    assert "→ <code>b&#x27;&#x27;</code>" in outside
    assert _leaks(outside, secret) == []
    # Nor does the campaign page count it among the function's examples.
    detail = client.get(reverse("campaigns:detail", args=[campaign.pk])).content.decode()
    assert '<td class="num">1</td>' in detail and _leaks(detail, secret) == []
    inside = _as(client, world["users"]["insider"]).get(url).content.decode()
    assert SECRET in inside


# --- reduction messages ------------------------------------------------------------------------
def test_a_reduction_message_does_not_name_a_restricted_bucket(client, world):
    public, secret = world["public"], world["secret"]
    # What the reduction job writes when an upload to the public bucket crashes the restricted way.
    landed = _other_bucket((Attempt(signatures=(secret.signature,), summary="ValueError"),))
    fresh = _other_bucket((Attempt(signatures=("0" * 64,), summary="ValueError"),))
    for where in (landed, fresh):
        Reduction.objects.create(
            bucket=public,
            finding=public.findings.first(),
            source=Reduction.Source.UPLOAD,
            state=ReductionState.REFUSED,
            reduced_text="mean([1])",
            message=f"refused: it lands in another bucket ({where})",
        )
        outside = _as(client, world["users"]["tina"])
        panel = outside.get(reverse("triage:bucket_reduction", args=[public.pk])).content.decode()
        page = outside.get(reverse("triage:bucket", args=[public.pk])).content.decode()
        assert _leaks(panel, secret) == [] and _leaks(page, secret) == []
        # A bucket they may not see reads like one that does not exist yet.
        assert "it lands in another bucket, none you can see" in panel, panel
    inside = _as(client, world["users"]["insider"])
    Reduction.objects.filter(bucket=public).exclude(message__contains=f"#{secret.pk}").delete()
    panel = inside.get(reverse("triage:bucket_reduction", args=[public.pk])).content.decode()
    assert f"#{secret.pk} " in panel and f"/triage/buckets/{secret.pk}/" in panel


# --- ingest responses --------------------------------------------------------------------------
def _api_finding(i: int) -> dict:
    submission = make_finding(function="parse_header", error=f"ValueError: {SECRET}", call=f"parse_header({i})")
    fields = ("kind", "target", "function", "crash_type", "message", "trace", "testcase", "testcase_language")
    return {name: getattr(submission, name) for name in fields}


def test_an_ingest_response_does_not_name_a_restricted_bucket(client, world):
    secret = world["secret"]
    token = api_token_create(user=world["users"]["tina"], name="fuzz box", scope=Scope.INGEST)[1]
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}", "content_type": "application/json"}
    one = client.post("/api/v1/findings", json.dumps(_api_finding(1)), **auth)
    bulk = client.post("/api/v1/findings/bulk", json.dumps({"findings": [_api_finding(2)]}), **auth)
    assert one.status_code == 201 and bulk.status_code == 200, (one.content, bulk.content)
    # Stored, and counted in the restricted bucket where it belongs...
    assert Finding.objects.get(pk=one.json()["finding"]).bucket_id == secret.pk
    assert Finding.objects.get(pk=bulk.json()["results"][0]["finding"]).bucket_id == secret.pk
    # ...but the answer names no bucket.
    for body in (one.json(), bulk.json()["results"][0]):
        assert body.get("bucket") is None and body.get("bucket_url") is None, body
        assert _leaks(json.dumps(body), secret) == [] and str(secret.pk) not in json.dumps(body).replace(
            str(body["finding"]), ""
        )
        assert "stored" in body["note"]
    # The group's own fuzzer is told where it went.
    token = api_token_create(user=world["users"]["insider"], name="their box", scope=Scope.INGEST)[1]
    mine = client.post("/api/v1/findings", json.dumps(_api_finding(3)), HTTP_AUTHORIZATION=f"Bearer {token}",
                       content_type="application/json").json()  # fmt: skip
    assert mine["bucket"] == secret.pk and mine["bucket_url"] == f"/triage/buckets/{secret.pk}/"


# --- differential program lists ----------------------------------------------------------------
def test_differential_program_list_leaves_out_programs_of_restricted_buckets(client, world):
    target = Target.objects.get_or_create(name="C compilers (Csmith)", defaults={"engine": "diff-c"})[0]
    campaign = Campaign.objects.create(target=target, engine="diff-c", time_budget_seconds=600)
    shard = Shard.objects.create(campaign=campaign, index=0, seed=1)
    for number, seed, findings in ((1, 4242, 1), (2, 777, 1), (3, 31337, 0)):
        ProgramRun.objects.create(
            campaign=campaign,
            shard=shard,
            number=number,
            seed=seed,
            generator=f"csmith --seed {seed}",
            outcomes={"gcc": "ok", "clang": "wrong_output" if findings else "ok"},
            findings=findings,
        )
    metadata = {"seed": 4242, "generator": "csmith --seed 4242"}
    hidden = _ingest(campaign, function="fold_const", error=f"AssertionError: {SECRET}", metadata=metadata)
    _ingest(campaign, function="fold_other", error="AssertionError: x", metadata={"seed": 777})
    bucket_restrict(bucket_id=hidden.pk, group_id=world["security"].pk, user=world["users"]["sam"])
    hidden.refresh_from_db()
    url = reverse("campaigns:detail", args=[campaign.pk])
    outside = _as(client, world["users"]["tina"]).get(url).content.decode()
    assert "csmith --seed 777" in outside and "csmith --seed 31337" in outside
    assert "csmith --seed 4242" not in outside and _leaks(outside, hidden) == []
    # The tally counts only the programs they may see: one disagreement, one agreement.
    assert "2 programs" in outside
    assert outside.count('<td class="num">1</td></tr>') >= 2
    inside = _as(client, world["users"]["insider"]).get(url).content.decode()
    assert "csmith --seed 4242" in inside and "3 programs" in inside


# --- merge chains ------------------------------------------------------------------------------
def test_merge_chains_do_not_name_a_restricted_bucket(client, world):
    users, campaign = world["users"], world["campaign"]
    kept = _ingest(campaign, function="quantile", error="IndexError: list index out of range", call="quantile([])")
    dup = _ingest(campaign, function="median", error="IndexError: list index out of range", call="median([])")
    third = _ingest(campaign, function="mode", error="IndexError: list index out of range", call="mode([])")
    bucket_merge(source_id=dup.pk, target_id=kept.pk, user=users["tina"])
    # Later an admin decides the bucket that took the merge is security-sensitive.
    bucket_restrict(bucket_id=kept.pk, group_id=world["security"].pk, user=users["sam"])
    kept.refresh_from_db()

    outside = _as(client, users["tina"])
    page = outside.get(reverse("triage:bucket", args=[dup.pk])).content.decode()
    assert _leaks(page, kept) == [], _leaks(page, kept)
    token = api_token_create(user=users["tina"], name="t", scope=Scope.READ)[1]
    item = client.get(f"/api/v1/buckets/{dup.pk}", HTTP_AUTHORIZATION=f"Bearer {token}").json()
    assert item["duplicate_of"] is None
    listed = client.get("/api/v1/buckets?status=duplicate", HTTP_AUTHORIZATION=f"Bearer {token}").json()
    assert [b["duplicate_of"] for b in listed["results"]] == [None]

    # Marking another bucket a duplicate of the visible one would follow the chain into the
    # restricted bucket: refused, without naming it, and nothing moves.
    response = outside.post(reverse("triage:bucket_duplicate", args=[third.pk]), {"target": dup.pk}, follow=True)
    text = response.content.decode()
    assert _leaks(text, kept) == [] and "cannot see" in text
    assert Finding.objects.filter(bucket=third).count() == 1 and Bucket.objects.get(pk=third.pk).status == "new"
    # Undoing the old merge would carry findings out of the restricted bucket.
    with pytest.raises(TriageError) as refused:
        bucket_merge_undo(source_id=dup.pk, user=users["tina"])
    assert str(kept.pk) not in str(refused.value)
    assert not Finding.objects.filter(bucket=dup).exists()
    # The group sees the chain.
    inside = _as(client, users["insider"]).get(reverse("triage:bucket", args=[dup.pk])).content.decode()
    assert f"/triage/buckets/{kept.pk}/" in inside


# --- counts ------------------------------------------------------------------------------------
def test_counts_leave_out_restricted_buckets(client, world):
    users, campaign, secret, public = world["users"], world["campaign"], world["secret"], world["public"]
    # What a campaign's sink writes for these findings: four hits, two new buckets.
    Campaign.objects.filter(pk=campaign.pk).update(findings_count=4, new_buckets=2, started_at=secret.first_seen)
    campaign.refresh_from_db()
    shard = Shard.objects.create(campaign=campaign, index=0, seed=1, findings=4)
    StatSample.objects.create(
        campaign=campaign,
        shard=shard,
        at=timezone.now(),
        elapsed_seconds=5,
        executions=100,
        executions_per_second=20,
        findings=4,
        campaign_buckets=2,
    )

    outside = campaign_progress(campaign, user=users["tina"])
    assert (outside["findings"], outside["new_buckets"]) == (1, 1)
    assert outside["series"]["buckets"]["y"] == [1]
    assert [s["findings"] for s in outside["shards"]] == [1]
    assert outside["series"]["shards"]["0"]["findings"] == [1]
    inside = campaign_progress(campaign, user=users["insider"])
    assert (inside["findings"], inside["new_buckets"], inside["series"]["buckets"]["y"]) == (4, 2, [2])

    def totals(data):
        return {
            "statuses": sum(row["count"] for row in data["statuses"]),
            "funnel": sum(row["count"] for row in data["funnel"]),
            "new": sum(sum(days.values()) for days in data["new_buckets_by_kind"].values()),
            "new by engine": sum(sum(days.values()) for days in data["new_buckets_by_engine"].values()),
            "findings": sum(sum(days.values()) for days in data["findings_by_kind"].values()),
            "findings by engine": sum(sum(days.values()) for days in data["findings_by_engine"].values()),
        }

    seen = totals(overview_data(user=users["tina"]))
    assert seen == {"statuses": 1, "funnel": 1, "new": 1, "new by engine": 1, "findings": 1, "findings by engine": 1}
    assert totals(overview_data(user=users["insider"]))["findings"] == 4
    # Reported and fixed durations count only what they see too.
    Bucket.objects.filter(pk=secret.pk).update(reported_at=timezone.now(), fixed_at=timezone.now())
    assert overview_data(user=users["tina"])["durations"]["first seen → reported"] == []
    assert len(overview_data(user=users["insider"])["durations"]["first seen → reported"]) == 1
    # The bucket list's count, and the campaign list's findings and new buckets.
    page = _as(client, users["tina"]).get(reverse("triage:buckets")).content.decode()
    assert "1 match" in page and f"/triage/buckets/{public.pk}/" in page and _leaks(page, secret) == []
    row = r'<td class="num">{}</td>\s*<td class="num">{}</td>\s*<td>\d{{4}}-'
    assert re.search(row.format(1, 1), client.get(reverse("campaigns:list")).content.decode())
    assert re.search(row.format(4, 2), _as(client, users["insider"]).get(reverse("campaigns:list")).content.decode())


# --- merging cannot hide a public bucket -------------------------------------------------------
def test_a_merge_across_visibility_is_refused(world):
    users, secret, public = world["users"], world["secret"], world["public"]
    for source, target in ((secret, public), (public, secret)):
        with pytest.raises(TriageError, match="restricted"):
            bucket_merge(source_id=source.pk, target_id=target.pk, user=users["insider"])
    # An outsider is told nothing about the restricted one.
    with pytest.raises(TriageError, match=f"No bucket #{secret.pk}"):
        bucket_merge(source_id=public.pk, target_id=secret.pk, user=users["tina"])
    public.refresh_from_db()
    assert public.restricted_to is None and public.status == "new" and public.findings.count() == 1
    assert secret.findings.count() == 3 and Bucket.objects.get(pk=secret.pk).status == "new"
    assert not BucketEvent.objects.filter(bucket=public, field__in=("restricted to", "duplicates")).exists()
    # Within one group a merge is fine: a split of the restricted bucket goes back into it.
    split = bucket_split(source_id=secret.pk, finding_ids=[secret.findings.first().pk], user=users["insider"])
    move = bucket_merge(source_id=split.pk, target_id=secret.pk, user=users["insider"])
    assert move.target_id == secret.pk and secret.findings.count() == 3
