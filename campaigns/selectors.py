"""Reads for the campaign pages."""

from __future__ import annotations

from django.db.models import Sum
from django.urls import reverse
from django.utils import timezone

from campaigns.engines import DIFFERENTIAL_LANGUAGES
from campaigns.models import Campaign, Shard, StatSample
from triage.models import Bucket, Finding
from triage.visibility import visible_findings

SERIES_POINTS = 600


def campaign_buckets(campaign: Campaign, *, user, limit: int = 100) -> list[Bucket]:
    """Buckets this campaign hit that ``user`` may see, with the campaign's own hit count per bucket.

    Two steps: the campaign's findings summed per bucket (its own index),
    then those buckets by primary key. One join-and-group made PostgreSQL
    hash every bucket of the database to meet a few thousand findings.
    """
    hits = dict(
        visible_findings(user, Finding.objects.filter(campaign=campaign))
        .values("bucket_id")
        .annotate(hits=Sum("hit_count"))
        .values_list("bucket_id", "hits")
        .order_by()
    )
    buckets = list(
        Bucket.objects.filter(pk__in=list(hits))
        .only("pk", "title", "kind", "status")
        .order_by("first_seen", "pk")[:limit]
    )
    for bucket in buckets:
        bucket.campaign_hits = hits[bucket.pk]
    return buckets


def elapsed_seconds(campaign: Campaign) -> float:
    """Wall-clock seconds the campaign has run (so far, if still running)."""
    if not campaign.started_at:
        return 0.0
    end = campaign.finished_at or timezone.now()
    return max(0.0, (end - campaign.started_at).total_seconds())


def _shard_row(shard: Shard, now) -> dict:
    heartbeat_age = (now - shard.heartbeat_at).total_seconds() if shard.heartbeat_at else None
    rate = shard.executions / shard.elapsed_seconds if shard.elapsed_seconds else 0.0
    return {
        "index": shard.index,
        "status": shard.status,
        "status_display": shard.get_status_display(),
        "worker": shard.worker,
        "attempts": shard.attempts,
        "executions": shard.executions,
        "executions_per_second": round(rate, 1),
        "findings": shard.findings,
        "restarts": shard.restarts,
        "elapsed_seconds": round(shard.elapsed_seconds, 1),
        "heartbeat_age": round(heartbeat_age, 1) if heartbeat_age is not None else None,
        "error": shard.error,
    }


def campaign_series(campaign: Campaign) -> dict:
    """Time series for the charts: per shard rate and findings, and the campaign's buckets."""
    samples = list(
        StatSample.objects.filter(campaign=campaign)
        .order_by("-at")
        .values("shard__index", "elapsed_seconds", "executions_per_second", "findings", "campaign_buckets", "at")[
            : SERIES_POINTS * max(1, campaign.shard_count)
        ]
    )
    samples.reverse()
    shards: dict[int, dict] = {}
    buckets = {"t": [], "y": []}
    start = campaign.started_at
    for sample in samples:
        series = shards.setdefault(sample["shard__index"], {"t": [], "rate": [], "findings": []})
        series["t"].append(round(sample["elapsed_seconds"], 1))
        series["rate"].append(round(sample["executions_per_second"], 1))
        series["findings"].append(sample["findings"])
        if start:
            buckets["t"].append(round((sample["at"] - start).total_seconds(), 1))
            buckets["y"].append(sample["campaign_buckets"])
    return {"shards": {str(index): series for index, series in sorted(shards.items())}, "buckets": buckets}


def campaign_progress(campaign: Campaign, *, user) -> dict:
    """The live numbers the campaign page polls for, as plain JSON data (buckets as ``user`` may see them)."""
    now = timezone.now()
    shards = list(campaign.shards.all())
    executions = sum(s.executions for s in shards)
    elapsed = elapsed_seconds(campaign)
    busy = [s.elapsed_seconds for s in shards if s.elapsed_seconds]
    rows = [_shard_row(shard, now) for shard in shards]
    per_second = sum(row["executions_per_second"] for row in rows)
    return {
        "id": campaign.pk,
        "status": campaign.status,
        "status_display": campaign.get_status_display(),
        "active": campaign.is_active,
        "elapsed_seconds": round(elapsed, 1),
        "time_budget_seconds": campaign.time_budget_seconds,
        "progress_percent": round(min(100.0, 100 * (max(busy) if busy else 0) / campaign.time_budget_seconds)),
        "executions": executions,
        "executions_per_second": round(per_second, 1),
        **_rate(campaign, per_second),
        "findings": campaign.findings_count,
        "new_buckets": campaign.new_buckets,
        "error": campaign.error,
        "shards": rows,
        "discovery": next((s.discovery for s in shards if s.discovery), None),
        "series": campaign_series(campaign),
        "buckets": [
            {
                "id": bucket.pk,
                "title": bucket.title,
                "kind": bucket.kind,
                "status": bucket.get_status_display(),
                "hits": bucket.campaign_hits,
                "url": reverse("triage:bucket", args=[bucket.pk]),
            }
            for bucket in campaign_buckets(campaign, user=user)
        ],
    }


def _rate(campaign: Campaign, per_second: float) -> dict:
    # A differential engine's execution is a whole program through every
    # backend, a few per second at most: per hour reads better.
    if campaign.engine in DIFFERENTIAL_LANGUAGES:
        return {"rate_label": "Programs per hour", "rate_factor": 3600, "rate": round(per_second * 3600)}
    return {"rate_label": "Executions per second", "rate_factor": 1, "rate": round(per_second, 1)}


def campaign_list_rows(limit: int = 200) -> list[dict]:
    """The campaign list: each campaign with its shards' totals, in two queries."""
    campaigns = list(Campaign.objects.select_related("target").all()[:limit])
    totals = {
        row["campaign_id"]: row
        for row in Shard.objects.filter(campaign__in=campaigns)
        .values("campaign_id")
        .annotate(executions=Sum("executions"), elapsed=Sum("elapsed_seconds"))
    }
    rows = []
    for campaign in campaigns:
        total = totals.get(campaign.pk, {})
        per_shard = (total.get("elapsed") or 0) / max(1, campaign.shard_count)
        rows.append(
            {
                "campaign": campaign,
                "executions": total.get("executions") or campaign.executions,
                "progress_percent": round(min(100.0, 100 * per_shard / campaign.time_budget_seconds)),
            }
        )
    return rows
