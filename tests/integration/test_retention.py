"""Retention: closed buckets' old duplicate testcases are dropped; counts and representatives stay."""

from __future__ import annotations

import datetime

import pytest
from django.core.management import call_command
from django.db.models import Sum
from django.urls import reverse
from django.utils import timezone

from tests.integration.test_ingest import make_finding
from triage.ingest import findings_ingest
from triage.models import Bucket, Finding, Status
from triage.retention import findings_expire
from triage.status import bucket_set_status

pytestmark = pytest.mark.django_db


def _bucket(function: str, calls: int) -> Bucket:
    findings = findings_ingest(
        submissions=[make_finding(function=function, call=f"{function}({'x' * (i + 1)!r})") for i in range(calls)]
    ).findings
    return Bucket.objects.get(pk=findings[0].bucket_id)


def _age(days: int) -> None:
    Finding.objects.update(last_seen=timezone.now() - datetime.timedelta(days=days))


def test_old_duplicates_of_closed_buckets_lose_their_text_and_keep_their_counts(logged_in):
    fixed, open_bucket = _bucket("lookup", 5), _bucket("mean", 4)
    bucket_set_status(bucket_id=fixed.pk, status=Status.FIXED, user=None)
    _age(days=100)
    hits = Finding.objects.aggregate(n=Sum("hit_count"))["n"]

    assert findings_expire(older_than_days=90, batch=2) == 4  # small batches: every batch is taken
    fixed.refresh_from_db()
    kept = Finding.objects.get(pk=fixed.representative_id)
    assert kept.testcase and kept.trace and kept.expired_at is None
    dropped = Finding.objects.filter(bucket=fixed).exclude(pk=kept.pk)
    assert dropped.count() == 4
    assert all(f.expired_at and not f.testcase and not f.trace and f.testcase_size for f in dropped)
    # The open bucket is untouched; every count is as it was.
    assert not Finding.objects.filter(bucket=open_bucket, expired_at__isnull=False).exists()
    assert Finding.objects.aggregate(n=Sum("hit_count"))["n"] == hits
    assert fixed.hit_count == 5 and Finding.objects.count() == 9
    # Nothing more to drop the second time.
    assert findings_expire(older_than_days=90) == 0
    page = logged_in.get(reverse("triage:bucket", args=[fixed.pk])).content.decode()
    assert page.count("retention dropped its testcase") == 4


def test_recent_findings_and_retention_switched_off_keep_everything():
    fixed = _bucket("lookup", 3)
    bucket_set_status(bucket_id=fixed.pk, status=Status.WONTFIX, user=None)
    _age(days=10)
    assert findings_expire(older_than_days=90) == 0
    _age(days=400)
    assert findings_expire(older_than_days=0) == 0
    assert not Finding.objects.filter(expired_at__isnull=False).exists()


def test_a_dropped_testcase_reported_again_is_a_hit_and_is_kept_again():
    fixed = _bucket("lookup", 3)
    bucket_set_status(bucket_id=fixed.pk, status=Status.FIXED, user=None)
    _age(days=100)
    findings_expire(older_than_days=30)
    dropped = Finding.objects.filter(expired_at__isnull=False).order_by("pk").first()
    again = make_finding(function="lookup", call=dropped_call(dropped))
    result = findings_ingest(submissions=[again])
    assert result.stored[0].duplicate and Finding.objects.count() == 3
    dropped.refresh_from_db()
    assert dropped.expired_at is None and dropped.testcase == again.testcase and dropped.trace == again.trace
    assert dropped.hit_count == 2
    fixed.refresh_from_db()
    assert fixed.status == Status.NEW and fixed.regression  # the hit on a fixed bucket is still a regression


def dropped_call(finding: Finding) -> str:
    # The call each finding was made with, by the order _bucket made them.
    index = Finding.objects.filter(bucket_id=finding.bucket_id, pk__lt=finding.pk).count()
    return f"lookup({'x' * (index + 1)!r})"


def test_the_command_counts_then_drops(capsys):
    fixed = _bucket("lookup", 3)
    bucket_set_status(bucket_id=fixed.pk, status=Status.INVALID, user=None)
    _age(days=100)
    call_command("expire_findings", "--days", "30", "--dry-run")
    assert "2 findings would be dropped" in capsys.readouterr().out
    assert not Finding.objects.filter(expired_at__isnull=False).exists()
    call_command("expire_findings", "--days", "30")
    assert "2 findings dropped" in capsys.readouterr().out
