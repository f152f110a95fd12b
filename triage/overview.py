"""What the overview page charts: plain data for Plotly, computed with a few grouped queries."""

from __future__ import annotations

import datetime
import statistics

from django.db.models import Count, F, Sum
from django.db.models.functions import Extract, TruncDate
from django.utils import timezone

from triage.models import Bucket, BucketHits, Finding, FindingDay, Status
from triage.visibility import hidden_bucket_ids

DAYS = 30
FUNNEL = [Status.NEW, Status.CONFIRMED, Status.REPORTED, Status.FIXED]


def _series(rows, key: str, sign: int = 1, series: dict | None = None) -> dict[str, dict[str, int]]:
    """{group: {day: count}} from rows of (day, group, count); with ``sign`` -1, taken off ``series``."""
    series = {} if series is None else series
    for row in rows:
        days = series.setdefault(row[key] or "(none)", {})
        day = row["day"].isoformat()
        days[day] = days.get(day, 0) + sign * row["n"]  # rows grouped finer than ``key`` add up
    return series


def _findings_series(start: datetime.date, hidden: list[int], key: str) -> dict[str, dict[str, int]]:
    """New findings per day and ``key`` (kind or engine), less those now in the ``hidden`` buckets.

    The totals are counted at ingest, per day, kind and engine: a month is a
    few hundred rows, not a scan of findings. The hidden buckets' findings are
    few and read by their bucket index, grouped the same way (the day in the
    current time zone, as ingest dates them), and taken off.
    """
    recent = FindingDay.objects.filter(day__gte=start)
    series = _series(recent.values("day", key).annotate(n=Sum("findings")).order_by(), key)
    if hidden:
        since = timezone.make_aware(datetime.datetime.combine(start, datetime.time.min))
        mine = Finding.objects.filter(bucket_id__in=hidden, created_at__gte=since).annotate(day=TruncDate("created_at"))
        _series(mine.values("day", key).annotate(n=Count("pk")).order_by(), key, -1, series)
        for group in list(series):
            series[group] = {day: n for day, n in series[group].items() if n > 0}
            if not series[group]:
                del series[group]
    return series


def overview_data(*, user, today: datetime.date | None = None) -> dict:
    """The overview's numbers: counts and titles of the buckets ``user`` may see, and of their findings."""
    today = today or timezone.localdate()
    hidden = hidden_bucket_ids(user)
    start = today - datetime.timedelta(days=DAYS - 1)
    days = [(start + datetime.timedelta(days=i)).isoformat() for i in range(DAYS)]
    findings_by_kind = _findings_series(start, hidden, "kind")
    findings_by_engine = _findings_series(start, hidden, "engine")
    # A range on the column itself, so the index on first_seen serves it.
    since = timezone.make_aware(datetime.datetime.combine(start, datetime.time.min))
    # Muted buckets are known bugs: never counted as new.
    # One pass for both charts; a bucket's engine is its representative's (a join by primary key).
    new_buckets = list(
        Bucket.objects.filter(first_seen__gte=since, muted=False)
        .exclude(pk__in=hidden)
        .annotate(day=TruncDate("first_seen"))
        .values("day", "kind", engine=F("representative__engine"))
        .annotate(n=Count("pk"))
        .order_by()
    )
    # COUNT(*), not COUNT(id): the status index alone answers it (an index-only scan);
    # the hidden buckets' statuses are read by primary key and taken off.
    statuses = dict(Bucket.objects.values_list("status").annotate(n=Count("*")).order_by())
    if hidden:
        for status, n in Bucket.objects.filter(pk__in=hidden).values_list("status").annotate(n=Count("*")).order_by():
            statuses[status] -= n
    return {
        "days": days,
        "findings_by_kind": findings_by_kind,
        "findings_by_engine": findings_by_engine,
        "new_buckets_by_kind": _series(new_buckets, "kind"),
        "new_buckets_by_engine": _series(new_buckets, "engine"),
        "funnel": [{"status": Status(s).label, "count": statuses.get(s, 0)} for s in FUNNEL],
        "statuses": [{"status": Status(s).label, "count": statuses.get(s, 0)} for s in Status.values],
        "durations": _durations(hidden),
        "top_day": _top(today - datetime.timedelta(days=1), hidden=hidden),
        "top_week": _top(today - datetime.timedelta(days=6), hidden=hidden),
    }


def _durations(hidden: list[int], limit: int = 500) -> dict[str, list[float]]:
    """Days from first seen to reported, and from reported to fixed, of the latest buckets that got there.

    Not of the ``hidden`` buckets (an empty exclusion leaves the query as it was).

    The differences are taken in SQL: a thousand timestamps turned into
    Python datetimes cost more than the two index scans that find them.
    """
    day = 86400.0
    reported = [
        round(seconds / day, 2)
        for seconds in Bucket.objects.filter(reported_at__isnull=False)
        .exclude(pk__in=hidden)
        .order_by("-reported_at")
        .annotate(seconds=Extract(F("reported_at") - F("first_seen"), "epoch"))
        .values_list("seconds", flat=True)[:limit]
    ]
    # Walked down the fixed_at index; those fixed without being reported have no
    # duration (None) and are skipped here. Asking for "reported_at is not null" in
    # SQL made PostgreSQL combine both indexes and sort instead.
    fixed = [
        round(seconds / day, 2)
        for seconds in Bucket.objects.filter(fixed_at__isnull=False)
        .exclude(pk__in=hidden)
        .order_by("-fixed_at")
        .annotate(seconds=Extract(F("fixed_at") - F("reported_at"), "epoch"))
        .values_list("seconds", flat=True)[: limit * 2]
        if seconds is not None
    ][:limit]
    return {
        "first seen → reported": reported,
        "reported → fixed": fixed,
        "medians": {
            "reported": statistics.median(reported) if reported else None,
            "fixed": statistics.median(fixed) if fixed else None,
        },
    }


def _top(since: datetime.date, *, hidden: list[int], limit: int = 10) -> list[dict]:
    # Rank on the hits table alone, then fetch the ten titles: joining first
    # would carry every bucket's title through the grouping. Buckets the user
    # may not see (``hidden``) are left out of the ranking, not just blanked:
    # ranking that many more rows is cheaper than filtering every hit row.
    ranked = list(
        BucketHits.objects.filter(day__gte=since)
        .values("bucket_id")
        .annotate(hits=Sum("hits"))
        .order_by("-hits", "bucket_id")[: limit + len(hidden)]
    )
    excluded = set(hidden)
    ranked = [row for row in ranked if row["bucket_id"] not in excluded][:limit]
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
