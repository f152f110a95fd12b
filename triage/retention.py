"""Retention: after N days, drop the duplicate testcases of closed buckets, keep counts and representatives.

A year of campaigns keeps hitting the same fixed or won't-fix bugs, and
each distinct testcase keeps its program, trace and outputs: that text is
nearly all of the database. Once a bucket is closed, its other findings
only matter as counts, so this empties their large fields and marks them
expired. The rows stay: hit counts, dates, per-campaign counts and the
content hash (which makes a repeat of the same testcase a hit, not a new
finding) remain exactly as they were.

Never dropped: a bucket's representative, verified reproducers (reduced
here or uploaded), findings of open buckets, and anything seen within the
window. Deleting the rows instead was the road not taken: it would have
made every count a stored total to maintain, and a repeat look new.
"""

from __future__ import annotations

import datetime

from django.db.models import Exists, OuterRef
from django.utils import timezone

from triage.models import Bucket, Finding, Origin, Status

CLOSED = (Status.FIXED, Status.WONTFIX, Status.EXPECTED, Status.INVALID, Status.DUPLICATE)
BATCH = 2000


def expirable_findings(*, older_than_days: int, now: datetime.datetime | None = None):
    """The findings retention would empty now (a queryset; nothing is changed)."""
    cutoff = (now or timezone.now()) - datetime.timedelta(days=older_than_days)
    representatives = Bucket.objects.filter(representative_id=OuterRef("pk"))
    return (
        Finding.objects.filter(
            bucket__status__in=CLOSED,
            last_seen__lt=cutoff,
            expired_at__isnull=True,
            verified_at__isnull=True,
            origin=Origin.FUZZER,
        )
        .exclude(Exists(representatives))
        .order_by("pk")
    )


def findings_expire(*, older_than_days: int, now: datetime.datetime | None = None, batch: int = BATCH) -> int:
    """Empty the testcase, trace and outputs of expirable findings, in batches; return how many.

    Short batches keep row locks brief, so ingest never waits on retention.
    ``older_than_days`` below 1 does nothing (retention switched off).
    """
    if older_than_days < 1:
        return 0
    now = now or timezone.now()
    expired, after = 0, 0
    while True:
        candidates = expirable_findings(older_than_days=older_than_days, now=now).filter(pk__gt=after)
        ids = list(candidates.values_list("pk", flat=True)[:batch])
        if not ids:
            return expired
        after = ids[-1]
        # The conditions again in the UPDATE: a finding that became a representative
        # or was hit again since the read above is left alone.
        expired += (
            expirable_findings(older_than_days=older_than_days, now=now)
            .filter(pk__in=ids)
            .update(testcase="", testcase_bytes=None, trace="", backends=[], reproducer="", expired_at=now)
        )
