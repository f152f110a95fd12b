"""Triage services against PostgreSQL: every change audited, merges undone, regressions reopened."""

from __future__ import annotations

import pytest
from django.utils import timezone

from tests.integration.test_ingest import make_finding
from triage.ingest import finding_ingest, findings_ingest
from triage.merge import bucket_merge, bucket_merge_undo, bucket_split
from triage.models import Bucket, BucketEvent, BucketHits, Comment, Finding, Label, Status
from triage.status import InvalidStatus, bucket_set_status
from triage.workflow import (
    TriageError,
    bucket_assign,
    bucket_comment,
    bucket_set_labels,
    bucket_set_muted,
    bucket_set_priority,
    bucket_watch,
    buckets_add_label,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("default_labels")]


def _bucket(function="lookup", error="KeyError: 'ms'", calls=1, **extra) -> Bucket:
    findings = findings_ingest(
        submissions=[
            make_finding(function=function, error=error, call=f"{function}({i})", **extra) for i in range(calls)
        ]
    ).findings
    return Bucket.objects.get(pk=findings[0].bucket_id)


def _events(bucket: Bucket) -> list[tuple]:
    return list(bucket.events.order_by("pk").values_list("field", "old_value", "new_value", "user__username"))


def test_every_state_change_leaves_one_audit_entry_and_a_repeat_leaves_none(triager, django_user_model):
    bucket = _bucket()
    other = django_user_model.objects.create_user("bo")
    crash, api = Label.objects.get(name="generator bug"), Label.objects.get(name="reproducible from the public API")

    assert bucket_set_status(bucket_id=bucket.pk, status=Status.CONFIRMED, user=triager)
    assert bucket_assign(bucket_id=bucket.pk, assignee_id=other.pk, user=triager)
    assert bucket_set_priority(bucket_id=bucket.pk, priority=3, user=triager)
    assert bucket_set_labels(bucket_id=bucket.pk, label_ids=[crash.pk, api.pk], user=triager)
    assert bucket_set_labels(bucket_id=bucket.pk, label_ids=[api.pk], user=triager)
    assert bucket_set_muted(bucket_id=bucket.pk, muted=True, user=triager)
    assert bucket_watch(bucket_id=bucket.pk, user=triager, watching=True)
    comment = bucket_comment(bucket_id=bucket.pk, user=triager, text="  seen on <b>trunk</b> too\r\n")
    assert comment.text == "seen on <b>trunk</b> too"
    # Saving the same values again changes nothing and logs nothing.
    before = BucketEvent.objects.count()
    assert not bucket_set_status(bucket_id=bucket.pk, status=Status.CONFIRMED, user=triager)
    assert not bucket_assign(bucket_id=bucket.pk, assignee_id=other.pk, user=triager)
    assert not bucket_set_priority(bucket_id=bucket.pk, priority=3, user=triager)
    assert not bucket_set_labels(bucket_id=bucket.pk, label_ids=[api.pk], user=triager)
    assert not bucket_set_muted(bucket_id=bucket.pk, muted=True, user=triager)
    assert not bucket_watch(bucket_id=bucket.pk, user=triager, watching=True)
    assert BucketEvent.objects.count() == before

    assert _events(bucket) == [
        ("status", "new", "confirmed", "ana"),
        ("assignee", "", "bo", "ana"),
        ("priority", "—", "High", "ana"),
        ("label", "", "generator bug", "ana"),
        ("label", "", "reproducible from the public API", "ana"),
        ("label", "generator bug", "", "ana"),
        ("muted", "false", "true", "ana"),
        ("watcher", "", "ana", "ana"),
        ("comment", "", f"comment {comment.pk}", "ana"),
    ]
    bucket.refresh_from_db()
    assert (bucket.status, bucket.assignee, bucket.priority, bucket.muted) == ("confirmed", other, 3, True)
    assert list(bucket.labels.all()) == [api] and list(bucket.watchers.all()) == [triager]


def test_bad_triage_input_is_refused_with_a_message(triager):
    bucket = _bucket()
    with pytest.raises(InvalidStatus):
        bucket_set_status(bucket_id=bucket.pk, status="closed", user=triager)
    with pytest.raises(InvalidStatus, match="naming the bucket"):
        bucket_set_status(bucket_id=bucket.pk, status=Status.DUPLICATE, user=triager)
    with pytest.raises(TriageError, match="no active user"):
        bucket_assign(bucket_id=bucket.pk, assignee_id=999_999, user=triager)
    with pytest.raises(TriageError, match="no label"):
        bucket_set_labels(bucket_id=bucket.pk, label_ids=[999_999], user=triager)
    with pytest.raises(TriageError, match="needs some text"):
        bucket_comment(bucket_id=bucket.pk, user=triager, text="   ")
    assert not Comment.objects.exists() and not BucketEvent.objects.exists()


def test_bulk_labelling_audits_each_bucket_that_gained_the_label(triager):
    first, second = _bucket(), _bucket(function="mean", error="ZeroDivisionError: division by zero")
    label = Label.objects.get(name="performance")
    bucket_set_labels(bucket_id=first.pk, label_ids=[label.pk], user=triager)
    assert buckets_add_label(bucket_ids=[first.pk, second.pk], label_id=label.pk, user=triager) == 1
    assert BucketEvent.objects.filter(field="label", new_value="performance").count() == 2


def test_a_duplicate_takes_its_findings_and_future_hits_to_the_target_until_undone(triager):
    keep = _bucket(calls=2)
    dup = _bucket(function="mean", error="ZeroDivisionError: division by zero", calls=3)
    bucket_set_status(bucket_id=dup.pk, status=Status.CONFIRMED, user=triager)

    bucket_merge(source_id=dup.pk, target_id=keep.pk, user=triager)
    keep.refresh_from_db()
    dup.refresh_from_db()
    assert (dup.status, dup.duplicate_of_id, dup.hit_count) == ("duplicate", keep.pk, 0)
    assert keep.hit_count == 5 and keep.findings.count() == 5
    # A new hit of the duplicate's signature lands in the target, which is not "new" again.
    later = findings_ingest(
        submissions=[make_finding(function="mean", error="ZeroDivisionError: division by zero", call="mean(9)")]
    )
    assert later.findings[0].bucket_id == keep.pk and later.new_buckets == []
    keep.refresh_from_db()
    assert keep.hit_count == 6

    # Merging a bucket into its own duplicate, or twice, is refused.
    with pytest.raises(TriageError, match="itself"):
        bucket_merge(source_id=keep.pk, target_id=dup.pk, user=triager)
    with pytest.raises(TriageError, match="already a duplicate"):
        bucket_merge(source_id=dup.pk, target_id=keep.pk, user=triager)

    bucket_merge_undo(source_id=dup.pk, user=triager)
    keep.refresh_from_db()
    dup.refresh_from_db()
    assert (dup.status, dup.duplicate_of_id) == ("confirmed", None)
    assert dup.findings.count() == 4 and dup.hit_count == 4  # the three it had and the one that came since
    assert keep.findings.count() == 2 and keep.hit_count == 2
    assert (
        finding_ingest(
            submission=make_finding(function="mean", error="ZeroDivisionError: x", call="mean(10)")
        ).bucket_id
        == dup.pk
    )
    fields = [(f, o, n) for f, o, n, _ in _events(dup)]
    assert ("status", "confirmed", "duplicate") in fields and ("status", "duplicate", "confirmed") in fields
    assert [(f, o, n) for f, o, n, _ in _events(keep)] == [
        ("duplicates", "", f"#{dup.pk}"),
        ("duplicates", f"#{dup.pk}", ""),
    ]
    with pytest.raises(TriageError, match="not marked duplicate"):
        bucket_merge_undo(source_id=dup.pk, user=triager)


def test_merging_into_a_duplicate_goes_to_the_end_of_the_chain(triager):
    a, b, c = _bucket(), _bucket(function="f", error="ValueError: v"), _bucket(function="g", error="TypeError: t")
    bucket_merge(source_id=b.pk, target_id=a.pk, user=triager)
    bucket_merge(source_id=c.pk, target_id=b.pk, user=triager)
    c.refresh_from_db()
    assert c.duplicate_of_id == a.pk
    assert Finding.objects.filter(bucket=a).count() == 3


def test_undoing_a_merge_finds_its_findings_where_a_later_merge_took_them(triager):
    a, b, x = _bucket(), _bucket(function="f", error="ValueError: v", calls=2), _bucket(function="g", error="E: e")
    bucket_merge(source_id=b.pk, target_id=a.pk, user=triager)
    bucket_merge(source_id=a.pk, target_id=x.pk, user=triager)  # b's findings went on to x with a's
    bucket_merge_undo(source_id=b.pk, user=triager)
    assert Finding.objects.filter(bucket=b).count() == 2
    assert Bucket.objects.get(pk=b.pk).hit_count == 2 and Bucket.objects.get(pk=x.pk).hit_count == 2


def test_a_duplicates_status_changes_only_by_undoing_the_merge(triager):
    keep, dup = _bucket(), _bucket(function="f", error="ValueError: v")
    bucket_merge(source_id=dup.pk, target_id=keep.pk, user=triager)
    with pytest.raises(InvalidStatus, match="undo that"):
        bucket_set_status(bucket_id=dup.pk, status=Status.FIXED, user=triager)
    # A bulk status change over a selection passes over the duplicate and changes the rest.
    from triage.workflow import buckets_bulk

    assert buckets_bulk(bucket_ids=[dup.pk, keep.pk], user=triager, action="status", value="fixed") == 1
    assert Bucket.objects.get(pk=dup.pk).status == "duplicate" and Bucket.objects.get(pk=keep.pk).status == "fixed"


def test_findings_split_out_get_a_bucket_of_their_own(triager):
    source = _bucket(calls=4)
    chosen = list(source.findings.order_by("pk").values_list("pk", flat=True)[:3])
    split = bucket_split(source_id=source.pk, finding_ids=chosen, user=triager)
    source.refresh_from_db()
    assert sorted(split.findings.values_list("pk", flat=True)) == chosen
    assert (split.hit_count, source.hit_count, split.status) == (3, 1, "new")
    assert split.title.endswith(f"(split from #{source.pk})") and split.key_frames == source.key_frames
    with pytest.raises(TriageError, match="empty"):
        bucket_split(source_id=source.pk, finding_ids=list(source.findings.values_list("pk", flat=True)), user=triager)
    with pytest.raises(TriageError, match="not in this bucket"):
        bucket_split(source_id=source.pk, finding_ids=[chosen[0]], user=triager)
    assert BucketEvent.objects.filter(field="split").count() == 2


def test_a_hit_on_a_fixed_bucket_reopens_it_as_a_regression_with_both_versions(triager):
    bucket = _bucket(versions={"python": "3.11.7"})
    bucket_set_status(bucket_id=bucket.pk, status=Status.FIXED, user=triager)
    bucket.refresh_from_db()
    assert bucket.fixed_versions == {"python": "3.11.7"} and bucket.fixed_at is not None

    findings_ingest(submissions=[make_finding(call="lookup('again')", versions={"python": "3.12.1"})])
    bucket.refresh_from_db()
    assert (bucket.status, bucket.regression) == ("new", True)
    assert bucket.regression_versions == {"python": "3.12.1"}
    event = bucket.events.order_by("pk").last()
    assert (event.field, event.old_value, event.new_value, event.user) == ("status", "fixed", "new", None)
    assert event.note == "regression: fixed on python 3.11.7, hit again on python 3.12.1"


def test_a_muted_fixed_bucket_counts_hits_but_is_not_reopened(triager):
    bucket = _bucket()
    bucket_set_muted(bucket_id=bucket.pk, muted=True, user=triager)
    bucket_set_status(bucket_id=bucket.pk, status=Status.FIXED, user=triager)
    findings_ingest(submissions=[make_finding(call="lookup('again')")] * 3)
    bucket.refresh_from_db()
    assert (bucket.status, bucket.regression, bucket.hit_count) == ("fixed", False, 4)


def test_hits_are_counted_per_bucket_and_day():
    bucket = _bucket(calls=3)
    findings_ingest(submissions=[make_finding(call="lookup(0)")] * 2)  # two more hits of a stored testcase
    row = BucketHits.objects.get(bucket=bucket)
    assert (row.day, row.hits, row.new_findings) == (timezone.localdate(), 5, 3)


def test_likely_duplicates_are_found_by_shared_frames_and_reported_ones_offered_before_filing(triager):
    from triage.lookalike import bucket_lookalikes

    # Same crash site, reached from two different callers: two signatures, one bug.
    def trace(caller):
        return (
            "Traceback (most recent call last):\n"
            f'  File "/src/app/{caller}.py", line 3, in {caller}\n    lookup(u)\n'
            '  File "/src/app/units.py", line 42, in lookup\n    return TABLE[unit]\n'
            "KeyError: 'ms'\n"
        )

    first, second = (
        Bucket.objects.get(pk=finding_ingest(submission=make_finding(call=f"{c}('ms')", trace=trace(c))).bucket_id)
        for c in ("convert", "parse")
    )
    unrelated = _bucket(function="mean", error="ZeroDivisionError: division by zero")
    assert first.pk != second.pk
    [(other, like)] = bucket_lookalikes(first, user=triager)
    assert other == second and "same crash site" in like.reasons[0]
    assert unrelated not in [b for b, _ in bucket_lookalikes(first, user=triager)]
    assert bucket_lookalikes(first, user=triager, reported_only=True) == []
    bucket_set_status(bucket_id=second.pk, status=Status.REPORTED, user=triager)
    assert [b for b, _ in bucket_lookalikes(first, user=triager, reported_only=True)] == [second]


def test_the_overview_counts_findings_new_buckets_statuses_and_top_buckets(triager):
    from triage.overview import overview_data

    busy = _bucket(calls=5)
    quiet = _bucket(function="mean", error="ZeroDivisionError: division by zero")
    bucket_set_muted(bucket_id=quiet.pk, muted=True, user=triager)
    bucket_set_status(bucket_id=busy.pk, status=Status.REPORTED, user=triager)
    bucket_set_status(bucket_id=busy.pk, status=Status.FIXED, user=triager)
    data = overview_data(user=triager)
    today = timezone.localdate().isoformat()
    assert data["days"][-1] == today and len(data["days"]) == 30
    assert data["findings_by_kind"] == {"crash": {today: 6}}
    assert data["findings_by_engine"] == {"pyfunc": {today: 6}}
    assert data["new_buckets_by_kind"] == {"crash": {today: 1}}  # the muted one is not new
    assert data["new_buckets_by_engine"] == {"pyfunc": {today: 1}}
    assert {row["status"]: row["count"] for row in data["funnel"]} == {
        "New": 1,
        "Confirmed": 0,
        "Reported": 0,
        "Fixed": 1,
    }
    assert [(row["id"], row["hits"]) for row in data["top_day"]] == [(busy.pk, 5), (quiet.pk, 1)]
    assert len(data["durations"]["first seen → reported"]) == 1 and len(data["durations"]["reported → fixed"]) == 1
