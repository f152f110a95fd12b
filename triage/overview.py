"""What the overview page charts: plain data for Plotly, computed with a few grouped queries."""

from __future__ import annotations

import datetime
import statistics

from django.db.models import Count, F, Sum
from django.db.models.functions import TruncDate
from django.utils import timezone

from triage.models import Bucket, BucketHits, FindingDay, Status
from triage.visibility import visible_by_bucket

DAYS = 30
FUNNEL = [Status.NEW, Status.CONFIRMED, Status.REPORTED, Status.FIXED]


def _series(rows, key: str) -> dict[str, dict[str, int]]:
    """{group: {day: count}} from rows of (day, group, count)."""
    series: dict[str, dict[str, int]] = {}
    for row in rows:
        series.setdefault(row[key] or "(none)", {})[row["day"].isoformat()] = row["n"]
    return series


def overview_data(*, user, today: datetime.date | None = None) -> dict:
    """The overview's numbers; counts include every bucket, titles only those ``user`` may see."""
    today = today or timezone.localdate()
    start = today - datetime.timedelta(days=DAYS - 1)
    days = [(start + datetime.timedelta(days=i)).isoformat() for i in range(DAYS)]
    # Counted at ingest, per day, kind and engine: a month is a few hundred rows, not a scan of findings.
    recent = FindingDay.objects.filter(day__gte=start)
    findings_by_kind = _series(recent.values("day", "kind").annotate(n=Sum("findings")).order_by(), "kind")
    findings_by_engine = _series(recent.values("day", "engine").annotate(n=Sum("findings")).order_by(), "engine")
    # A range on the column itself, so the index on first_seen serves it.
    since = timezone.make_aware(datetime.datetime.combine(start, datetime.time.min))
    # Muted buckets are known bugs: never counted as new.
    fresh = Bucket.objects.filter(first_seen__gte=since, muted=False).annotate(day=TruncDate("first_seen"))
    new_buckets = fresh.values("day", "kind").annotate(n=Count("pk")).order_by()
    # A bucket's engine is its representative's: one row per new bucket, by primary key.
    new_by_engine = fresh.values("day", engine=F("representative__engine")).annotate(n=Count("pk")).order_by()
    statuses = dict(Bucket.objects.values_list("status").annotate(n=Count("pk")).order_by())
    return {
        "days": days,
        "findings_by_kind": findings_by_kind,
        "findings_by_engine": findings_by_engine,
        "new_buckets_by_kind": _series(new_buckets, "kind"),
        "new_buckets_by_engine": _series(new_by_engine, "engine"),
        "funnel": [{"status": Status(s).label, "count": statuses.get(s, 0)} for s in FUNNEL],
        "statuses": [{"status": Status(s).label, "count": statuses.get(s, 0)} for s in Status.values],
        "durations": _durations(),
        "top_day": _top(today - datetime.timedelta(days=1), user=user),
        "top_week": _top(today - datetime.timedelta(days=6), user=user),
    }


def _durations(limit: int = 500) -> dict[str, list[float]]:
    """Days from first seen to reported, and from reported to fixed, of the latest buckets that got there."""
    to_reported = Bucket.objects.filter(reported_at__isnull=False).order_by("-reported_at")
    to_fixed = Bucket.objects.filter(reported_at__isnull=False, fixed_at__isnull=False).order_by("-fixed_at")
    reported = [
        round((r - f).total_seconds() / 86400, 2)
        for f, r in to_reported.values_list("first_seen", "reported_at")[:limit]
    ]
    fixed = [
        round((x - r).total_seconds() / 86400, 2) for r, x in to_fixed.values_list("reported_at", "fixed_at")[:limit]
    ]
    return {
        "first seen → reported": reported,
        "reported → fixed": fixed,
        "medians": {
            "reported": statistics.median(reported) if reported else None,
            "fixed": statistics.median(fixed) if fixed else None,
        },
    }


def _days(start: datetime.datetime, end: datetime.datetime) -> float:
    return round((end - start).total_seconds() / 86400, 2)


def _top(since: datetime.date, *, user, limit: int = 10) -> list[dict]:
    # Rank on the hits table alone, then fetch the ten titles: joining first
    # would carry every bucket's title through the grouping.
    # Restricted buckets a user may not see are left out of the ranking, not just blanked.
    ranked = list(
        visible_by_bucket(user, BucketHits.objects.filter(day__gte=since))
        .values("bucket_id")
        .annotate(hits=Sum("hits"))
        .order_by("-hits", "bucket_id")[:limit]
    )
    buckets = Bucket.objects.only("title", "status").in_bulk([row["bucket_id"] for row in ranked])
    return [
        {
            "id": row["bucket_id"],
            "title": buckets[row["bucket_id"]].title,
            "hits": row["hits"],
            "status": buckets[row["bucket_id"]].get_status_display(),
        }
        for row in ranked
        if row["bucket_id"] in buckets
    ]
