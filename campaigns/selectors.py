"""Reads for the campaign pages."""

from __future__ import annotations

from django.db.models import Sum
from django.urls import reverse
from django.utils import timezone

from campaigns.models import Campaign
from triage.models import Bucket


def campaign_buckets(campaign: Campaign, limit: int = 100) -> list[Bucket]:
    """Buckets this campaign hit, with its own hit count per bucket."""
    return list(
        Bucket.objects.filter(findings__campaign=campaign)
        .annotate(campaign_hits=Sum("findings__hit_count"))
        .order_by("first_seen", "pk")[:limit]
    )


def elapsed_seconds(campaign: Campaign) -> float:
    """Seconds the campaign has run (so far, if still running)."""
    if not campaign.started_at:
        return 0.0
    end = campaign.finished_at or timezone.now()
    return max(0.0, (end - campaign.started_at).total_seconds())


def campaign_progress(campaign: Campaign) -> dict:
    """The live numbers the campaign page polls for, as plain JSON data."""
    elapsed = elapsed_seconds(campaign)
    return {
        "id": campaign.pk,
        "status": campaign.status,
        "status_display": campaign.get_status_display(),
        "active": campaign.is_active,
        "elapsed_seconds": round(elapsed, 1),
        "time_budget_seconds": campaign.time_budget_seconds,
        "executions": campaign.executions,
        "executions_per_second": round(campaign.executions / elapsed, 1) if elapsed else 0.0,
        "findings": campaign.findings_count,
        "error": campaign.error,
        "buckets": [
            {
                "id": bucket.pk,
                "title": bucket.title,
                "kind": bucket.kind,
                "status": bucket.get_status_display(),
                "hits": bucket.campaign_hits,
                "url": reverse("triage:bucket", args=[bucket.pk]),
            }
            for bucket in campaign_buckets(campaign)
        ],
    }
