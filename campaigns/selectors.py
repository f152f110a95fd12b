"""Reads for the campaign pages."""

from __future__ import annotations

import bisect
import itertools
from dataclasses import dataclass, field

from django.db.models import OuterRef, Subquery, Sum
from django.urls import reverse
from django.utils import timezone

from campaigns.engines import is_differential
from campaigns.models import Campaign, Shard, StatSample
from triage.models import Bucket, Finding
from triage.visibility import hidden_by_bucket, visible_findings

SERIES_POINTS = 600


@dataclass
class HiddenShare:
    """What of a campaign's counters is about buckets the viewer may not see, to be taken off them.

    The counters (findings, new buckets, their time series, each shard's
    findings) are kept as totals while the campaign runs; recounting the
    visible findings instead would read every finding of the campaign.
    """

    # When each hidden finding was stored, and the hits counted up to then, in time order.
    found_at: list = field(default_factory=list)
    hits_until: list[int] = field(default_factory=list)
    # When each hidden bucket this campaign opened was first seen, in order.
    opened: list = field(default_factory=list)

    @property
    def hits(self) -> int:
        return self.hits_until[-1] if self.hits_until else 0

    def hits_by(self, moment) -> int:
        stored = bisect.bisect_right(self.found_at, moment)
        return self.hits_until[stored - 1] if stored else 0

    def opened_by(self, moment) -> int:
        return bisect.bisect_right(self.opened, moment)

    def per_shard(self, findings: dict[int, int]) -> dict[int, int]:
        """The hidden hits taken off each shard's findings (shard index: hits), busiest shard first.

        A finding does not record its shard: the shares are an estimate that
        keeps each shard's number at or above zero and their sum equal to the
        campaign's visible total.
        """
        left, shares = self.hits, {}
        for index, count in sorted(findings.items(), key=lambda item: (-item[1], item[0])):
            shares[index] = min(left, count)
            left -= shares[index]
        return shares


def _opened_here():
    # The campaign of a bucket's first finding: the one whose ingest opened (counted) it.
    first = Finding.objects.filter(bucket_id=OuterRef("pk")).order_by("created_at", "pk").values("campaign_id")[:1]
    return Subquery(first)


def campaign_hidden_share(campaign: Campaign, *, user) -> HiddenShare:
    """The part of ``campaign``'s counters that is about buckets ``user`` may not see."""
    rows = list(
        hidden_by_bucket(user, Finding.objects.filter(campaign=campaign))
        .order_by("created_at")
        .values_list("bucket_id", "created_at", "hit_count")
    )
    if not rows:
        return HiddenShare()
    opened = (
        Bucket.objects.filter(pk__in={bucket_id for bucket_id, _, _ in rows})
        .annotate(opener=_opened_here())
        .filter(opener=campaign.pk)
        .order_by("first_seen")
        .values_list("first_seen", flat=True)
    )
    return HiddenShare(
        found_at=[at for _, at, _ in rows],
        hits_until=list(itertools.accumulate(hits for _, _, hits in rows)),
        opened=list(opened),
    )


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


def campaign_outcome(campaign: Campaign, *, user) -> dict:
    """What a script asks of a campaign: its state, and each bucket it hit, new (opened by it) or not.

    ``failing`` is what a CI job fails on: a bucket this campaign opened
    that nobody muted. Buckets ``user`` may not see are left out.
    """
    buckets = list(
        Bucket.objects.filter(pk__in=[b.pk for b in campaign_buckets(campaign, user=user, limit=1000)])
        .annotate(opener=_opened_here())
        .only("pk", "title", "kind", "status", "muted")
        .order_by("first_seen", "pk")
    )
    rows = [
        {
            "id": bucket.pk,
            "title": bucket.title,
            "kind": bucket.kind,
            "status": bucket.status,
            "muted": bucket.muted,
            "new": bucket.opener == campaign.pk,
            "url": reverse("triage:bucket", args=[bucket.pk]),
        }
        for bucket in buckets
    ]
    return {
        "id": campaign.pk,
        "target": campaign.target.name,
        "status": campaign.status,
        "active": campaign.is_active,
        "error": campaign.error,
        "executions": campaign.executions,
        "findings": campaign.findings_count,
        "elapsed_seconds": round(elapsed_seconds(campaign), 1),
        "time_budget_seconds": campaign.time_budget_seconds,
        "buckets": rows,
        "failing": any(row["new"] and not row["muted"] for row in rows),
    }


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


def campaign_series(
    campaign: Campaign, hidden: HiddenShare | None = None, shares: dict[int, int] | None = None
) -> dict:
    """Time series for the charts: per shard rate and findings, and the campaign's buckets.

    Less what ``hidden`` says is about buckets the viewer may not see (with
    ``shares``, each shard's part of it, from :meth:`HiddenShare.per_shard`).
    """
    hidden, shares = hidden or HiddenShare(), shares or {}
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
        share = min(shares.get(sample["shard__index"], 0), hidden.hits_by(sample["at"])) if shares else 0
        series["findings"].append(max(0, sample["findings"] - share))
        if start:
            buckets["t"].append(round((sample["at"] - start).total_seconds(), 1))
            buckets["y"].append(max(0, sample["campaign_buckets"] - hidden.opened_by(sample["at"])))
    return {"shards": {str(index): series for index, series in sorted(shards.items())}, "buckets": buckets}


def campaign_progress(campaign: Campaign, *, user) -> dict:
    """The live numbers the campaign page polls for, as plain JSON data (buckets and counts ``user`` may see)."""
    now = timezone.now()
    shards = list(campaign.shards.all())
    executions = sum(s.executions for s in shards)
    elapsed = elapsed_seconds(campaign)
    busy = [s.elapsed_seconds for s in shards if s.elapsed_seconds]
    hidden = campaign_hidden_share(campaign, user=user)
    rows = [_shard_row(shard, now) for shard in shards]
    shares = hidden.per_shard({row["index"]: row["findings"] for row in rows}) if hidden.hits else {}
    for row in rows:
        row["findings"] -= shares.get(row["index"], 0)
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
        "findings": max(0, campaign.findings_count - hidden.hits),
        "new_buckets": max(0, campaign.new_buckets - len(hidden.opened)),
        "error": campaign.error,
        "shards": rows,
        "discovery": next((s.discovery for s in shards if s.discovery), None),
        "series": campaign_series(campaign, hidden, shares),
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
    if is_differential(campaign.engine):
        return {"rate_label": "Programs per hour", "rate_factor": 3600, "rate": round(per_second * 3600)}
    return {"rate_label": "Executions per second", "rate_factor": 1, "rate": round(per_second, 1)}


def _hidden_totals(campaigns: list[Campaign], user) -> tuple[dict[int, int], dict[int, int]]:
    """Per campaign: hits in buckets ``user`` may not see, and how many such buckets it opened."""
    hidden = hidden_by_bucket(user, Finding.objects.filter(campaign__in=campaigns))
    hits = dict(
        hidden.values("campaign_id").annotate(hits=Sum("hit_count")).values_list("campaign_id", "hits").order_by()
    )
    if not hits:
        return {}, {}
    opened: dict[int, int] = {}
    touched = set(hidden.values_list("bucket_id", flat=True).distinct().order_by())
    for opener in (
        Bucket.objects.filter(pk__in=touched).annotate(opener=_opened_here()).values_list("opener", flat=True)
    ):
        opened[opener] = opened.get(opener, 0) + 1
    return hits, opened


def campaign_list_rows(*, user, limit: int = 200) -> list[dict]:
    """The campaign list: each campaign with its shards' totals, and counts as ``user`` may see them."""
    campaigns = list(Campaign.objects.select_related("target").all()[:limit])
    totals = {
        row["campaign_id"]: row
        for row in Shard.objects.filter(campaign__in=campaigns)
        .values("campaign_id")
        .annotate(executions=Sum("executions"), elapsed=Sum("elapsed_seconds"))
    }
    hidden_hits, hidden_opened = _hidden_totals(campaigns, user)
    rows = []
    for campaign in campaigns:
        total = totals.get(campaign.pk, {})
        per_shard = (total.get("elapsed") or 0) / max(1, campaign.shard_count)
        rows.append(
            {
                "campaign": campaign,
                "executions": total.get("executions") or campaign.executions,
                "progress_percent": round(min(100.0, 100 * per_shard / campaign.time_budget_seconds)),
                "findings": max(0, campaign.findings_count - hidden_hits.get(campaign.pk, 0)),
                "new_buckets": max(0, campaign.new_buckets - hidden_opened.get(campaign.pk, 0)),
            }
        )
    return rows
