"""The scale dataset: consistent counts, representatives, history and daily rollups."""

from __future__ import annotations

import pytest
from django.db.models import Sum

from campaigns.models import Campaign
from triage.dataset import dataset_generate
from triage.models import Bucket, BucketEvent, BucketHits, Finding, FindingDay, Status
from triage.pagination import CAP, CappedPaginator
from triage.search import findings_matching
from triage.selectors import FindingQuery, finding_list

pytestmark = pytest.mark.django_db


def test_a_small_dataset_is_consistent_everywhere_the_pages_read_it():
    summary = dataset_generate(findings=3_000, buckets=120, campaigns=6, seed=3)
    assert (summary.findings, summary.buckets, summary.campaigns) == (3_000, 120, 6)
    assert Finding.objects.count() == 3_000 and Campaign.objects.count() == 6
    hits = Finding.objects.aggregate(n=Sum("hit_count"))["n"]
    assert Bucket.objects.aggregate(n=Sum("hit_count"))["n"] == hits
    assert BucketHits.objects.aggregate(n=Sum("hits"))["n"] == hits
    assert FindingDay.objects.aggregate(n=Sum("findings"))["n"] == 3_000
    # Skewed like real campaigns: the busiest bucket has many times the median's findings.
    counts = sorted(Bucket.objects.filter(hit_count__gt=0).values_list("hit_count", flat=True))
    assert counts[-1] > 10 * counts[len(counts) // 2]
    for bucket in Bucket.objects.filter(hit_count__gt=0)[:20]:
        smallest = bucket.findings.order_by("testcase_size", "pk").first()
        assert bucket.representative_id == smallest.pk
    fixed = Bucket.objects.filter(status=Status.FIXED).first()
    assert list(fixed.events.order_by("pk").values_list("new_value", flat=True)) == ["confirmed", "reported", "fixed"]
    assert fixed.reported_at <= fixed.fixed_at
    assert not BucketEvent.objects.filter(bucket__status=Status.NEW).exists()
    # The full-text index came back after the load, and search finds the traces.
    assert findings_matching("AddressSanitizer").exists()


def test_the_finding_pager_counts_at_most_its_cap(admin_user):
    dataset_generate(findings=CAP + 50, buckets=40, campaigns=2, seed=4)
    filtered = CappedPaginator(finding_list(FindingQuery(kind="crash"), user=admin_user), 50, unfiltered=False)
    crashes = Finding.objects.filter(kind="crash").count()
    assert filtered.count == min(crashes, CAP) and filtered.approximate == (crashes > CAP)
    everything = CappedPaginator(finding_list(FindingQuery(), user=admin_user), 50, unfiltered=False)
    assert (everything.count, everything.approximate) == (CAP, True)
    assert everything.num_pages == CAP // 50
