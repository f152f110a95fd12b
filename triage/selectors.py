"""Reads for the triage pages."""

from __future__ import annotations

from django.db.models import QuerySet

from triage.models import Bucket, Finding, Method, Status


def bucket_list(*, status: str = "", method: str = "", campaign_id: int | None = None) -> QuerySet[Bucket]:
    """Buckets, most recently hit first, optionally filtered."""
    buckets = Bucket.objects.all()
    if status in Status.values:
        buckets = buckets.filter(status=status)
    if method in Method.values:
        buckets = buckets.filter(method=method)
    if campaign_id is not None:
        buckets = buckets.filter(findings__campaign_id=campaign_id).distinct()
    return buckets.order_by("-last_seen", "-pk")


CHAIN_LIMIT = 50


def final_bucket_id(bucket_id: int) -> int:
    """Follow ``duplicate_of`` links to the bucket that takes the hits."""
    seen = [bucket_id]
    while len(seen) <= CHAIN_LIMIT:
        target = Bucket.objects.filter(pk=seen[-1]).values_list("duplicate_of_id", flat=True).first()
        if target is None or target in seen:
            return seen[-1]
        seen.append(target)
    return seen[-1]


def bucket_example(bucket: Bucket) -> Finding | None:
    """The finding shown for a bucket: its representative, else its latest."""
    if bucket.representative_id:
        return bucket.representative
    return bucket.findings.order_by("-created_at").first()


def bucket_recent_findings(bucket: Bucket, limit: int = 20) -> list[Finding]:
    """The latest findings of a bucket, without their large text fields."""
    return list(
        bucket.findings.order_by("-created_at").only(
            "pk", "created_at", "campaign_id", "function", "testcase", "testcase_size"
        )[:limit]
    )


def unparsed_count() -> int:
    """Buckets whose traces no parser understood: the gaps worth a new parser."""
    return Bucket.objects.filter(method=Method.MESSAGE).count()
