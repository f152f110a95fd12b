"""Re-bucketing with the current algorithm keeps triage work."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone

from crashes.signatures import CURRENT as CURRENT_ALGORITHM
from tests.integration.test_ingest import make_finding
from triage.ingest import findings_ingest
from triage.models import Bucket, BucketEvent, Comment, Finding
from triage.rebucket import findings_rebucket

CURRENT = CURRENT_ALGORITHM.VERSION

pytestmark = pytest.mark.django_db


def _old_bucket(status: str, findings) -> Bucket:
    """A bucket as an older, coarser algorithm (version 0) would have made it."""
    now = timezone.now()
    bucket = Bucket.objects.create(
        signature=f"{Bucket.objects.count():064x}",
        signature_version=0,
        kind="crash",
        crash_type="old",
        title="old grouping",
        status=status,
        first_seen=now,
        last_seen=now,
    )
    Finding.objects.filter(pk__in=[f.pk for f in findings]).update(bucket=bucket, signature="old", signature_version=0)
    BucketEvent.objects.create(bucket=bucket, field="status", old_value="new", new_value=status)
    return bucket


def test_split_merge_and_statuses_survive_rebucketing():
    lookups = findings_ingest(submissions=[make_finding(call=f"lookup('{i}')") for i in range(3)]).findings
    parses = findings_ingest(
        submissions=[make_finding(function="parse", call=f"parse('{i}')") for i in range(2)]
    ).findings
    means = findings_ingest(
        submissions=[make_finding(function="mean", error="ZeroDivisionError: x", call=f"mean({i})") for i in range(4)]
    ).findings
    current_mean_bucket = means[0].bucket_id
    # v0 grouped every KeyError together, and kept some mean() crashes apart.
    split = _old_bucket("confirmed", lookups + parses)
    merged = _old_bucket("wontfix", means[:2])
    Bucket.objects.filter(signature_version=CURRENT).exclude(pk=current_mean_bucket).delete()  # now empty
    security = Group.objects.create(name="security")
    Bucket.objects.filter(pk=split.pk).update(restricted_to=security)
    Comment.objects.create(bucket=merged, text="seen in the wild")

    summary = findings_rebucket()
    assert summary.buckets_examined == 2
    assert Bucket.objects.filter(signature_version=0).count() == 0

    # The split: the larger group keeps the row, its status and its history.
    split.refresh_from_db()
    assert split.title == "KeyError in lookup" and split.status == "confirmed"
    assert split.findings.count() == 3 and split.hit_count == 3
    assert split.events.filter(field="status").exists()
    parse_bucket = Bucket.objects.get(title="KeyError in parse")
    assert parse_bucket.status == "confirmed" and parse_bucket.hit_count == 2
    assert parse_bucket.representative is not None
    # Findings of a restricted bucket stay restricted wherever they go; the status came with a reason.
    assert parse_bucket.restricted_to == security
    assert parse_bucket.events.filter(field="status", new_value="confirmed", note__contains="re-bucketed").exists()

    # The merge: into the existing bucket, which takes the triaged status.
    assert not Bucket.objects.filter(pk=merged.pk).exists()
    mean_bucket = Bucket.objects.get(pk=current_mean_bucket)
    assert mean_bucket.findings.count() == 4 and mean_bucket.hit_count == 4
    assert mean_bucket.status == "wontfix"
    assert mean_bucket.events.filter(field="status", new_value="wontfix").exists()
    assert list(mean_bucket.comments.values_list("text", flat=True)) == ["seen in the wild"]

    assert summary.findings_moved == 4
    assert summary.buckets_created == 1 and summary.buckets_emptied == 1
    assert set(Finding.objects.values_list("signature_version", flat=True)) == {CURRENT}
    # Running again finds nothing outdated.
    assert findings_rebucket().buckets_examined == 0


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_rebucket_command_queues_a_job_that_a_worker_runs():
    import django_rq
    from django.core.management import call_command

    from tests.conftest import run_worker_burst

    findings = findings_ingest(submissions=[make_finding(call=f"lookup('{i}')") for i in range(3)]).findings
    queue = django_rq.get_queue("default")
    # What `make run` does at start: nothing while every bucket is current.
    call_command("rebucket", "--if-outdated")
    assert queue.count == 0
    old = _old_bucket("reported", findings)
    Bucket.objects.filter(signature_version=CURRENT).delete()
    call_command("rebucket", "--if-outdated")
    assert queue.count == 1
    result = run_worker_burst()
    assert result.returncode == 0, result.stderr[-2000:]
    old.refresh_from_db()
    assert (old.signature_version, old.title, old.status, old.hit_count) == (
        CURRENT,
        "KeyError in lookup",
        "reported",
        3,
    )


def test_maintainers_merges_and_splits_survive_a_new_algorithm(admin_user):
    from triage.merge import bucket_merge, bucket_split

    lookups = findings_ingest(submissions=[make_finding(call=f"lookup('{i}')") for i in range(3)]).findings
    means = findings_ingest(
        submissions=[make_finding(function="mean", error="ZeroDivisionError: x", call=f"mean({i})") for i in range(2)]
    ).findings
    lookup_bucket, mean_bucket = lookups[0].bucket_id, means[0].bucket_id
    # A maintainer says both are one bug, and splits one lookup finding out.
    bucket_merge(source_id=mean_bucket, target_id=lookup_bucket, user=admin_user)
    split = bucket_split(source_id=lookup_bucket, finding_ids=[lookups[2].pk], user=admin_user)
    Comment.objects.create(bucket_id=lookup_bucket, text="one root cause")
    # Everything was bucketed by an older algorithm.
    Bucket.objects.update(signature_version=0)
    Finding.objects.update(signature_version=0)

    findings_rebucket()

    kept = Bucket.objects.get(pk=lookup_bucket)
    assert set(kept.findings.values_list("pk", flat=True)) == {lookups[0].pk, lookups[1].pk, *(f.pk for f in means)}
    assert kept.signature_version == CURRENT and kept.comments.count() == 1
    duplicate = Bucket.objects.get(pk=mean_bucket)
    assert duplicate.status == "duplicate" and duplicate.duplicate_of_id == lookup_bucket
    assert list(Bucket.objects.get(pk=split.pk).findings.values_list("pk", flat=True)) == [lookups[2].pk]
    # A new hit of the duplicate's crash still follows the merge.
    again = findings_ingest(
        submissions=[make_finding(function="mean", error="ZeroDivisionError: x", call="mean(99)")]
    ).findings[0]
    assert again.bucket_id == lookup_bucket
