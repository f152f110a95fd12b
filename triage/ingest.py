"""Turn findings into stored rows, grouped into buckets by signature.

Bucketing is an index lookup on (signature, version) for the whole batch,
never a scan over buckets. Findings arrive in batches because engines report
hundreds a second; one batch costs a handful of queries however large it is.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from engines.events import Finding as EngineFinding
from triage import signatures, text
from triage.models import Bucket, Finding


@dataclass(frozen=True)
class IngestResult:
    """What a batch did: findings stored, and buckets that did not exist before."""

    findings: list[Finding]
    new_buckets: list[Bucket]


def _prepare(finding: EngineFinding, campaign_id: int | None, now) -> tuple[Finding, signatures.Signature]:
    trace = text.clean(finding.trace, text.TRACE_LIMIT)
    crash_type = text.clean_short(finding.crash_type)
    signature = signatures.compute(kind=finding.kind, crash_type=crash_type, trace_text=trace)
    input_text = text.clean(finding.input_text, text.INPUT_LIMIT)
    row = Finding(
        campaign_id=campaign_id,
        kind=finding.kind,
        target=text.clean_short(finding.target),
        function=text.clean_short(finding.function),
        crash_type=crash_type,
        message=text.clean(finding.message, text.MESSAGE_LIMIT),
        trace=trace,
        input_text=input_text,
        input_size=len(input_text),
        reproducer=text.clean(finding.reproducer, text.INPUT_LIMIT),
        environment={text.clean_short(k): text.clean_short(v) for k, v in finding.environment.items()},
        signature=signature.digest,
        signature_version=signature.version,
        created_at=now,
    )
    return row, signature


def findings_ingest(*, findings: Sequence[EngineFinding], campaign_id: int | None = None) -> IngestResult:
    """Store ``findings``, creating buckets for signatures seen for the first time."""
    if not findings:
        return IngestResult([], [])
    now = timezone.now()
    prepared = [_prepare(finding, campaign_id, now) for finding in findings]
    by_signature: dict[tuple[str, int], signatures.Signature] = {}
    for _, signature in prepared:
        by_signature.setdefault((signature.digest, signature.version), signature)

    with transaction.atomic():
        buckets = _buckets_for(by_signature, now)
        new_buckets = [b for b in buckets.values() if b.hit_count == 0]
        rows = []
        for row, signature in prepared:
            row.bucket = buckets[(signature.digest, signature.version)]
            rows.append(row)
        Finding.objects.bulk_create(rows)
        _count_hits(rows, now)
    return IngestResult(rows, new_buckets)


def _buckets_for(by_signature: dict[tuple[str, int], signatures.Signature], now) -> dict:
    digests = {digest for digest, _ in by_signature}
    found = {
        (b.signature, b.signature_version): b
        for b in Bucket.objects.filter(signature__in=digests)
        if (b.signature, b.signature_version) in by_signature
    }
    missing = [key for key in by_signature if key not in found]
    if missing:
        # ignore_conflicts: another worker may create the same bucket between
        # our select and insert; the unique constraint settles it, and the
        # re-select below picks up whichever row won.
        Bucket.objects.bulk_create(
            [
                Bucket(
                    signature=digest,
                    signature_version=version,
                    kind=by_signature[(digest, version)].kind,
                    crash_type=text.clean_short(by_signature[(digest, version)].crash_type),
                    title=text.clean_short(by_signature[(digest, version)].title),
                    key_frames=list(by_signature[(digest, version)].frames),
                    first_seen=now,
                    last_seen=now,
                )
                for digest, version in missing
            ],
            ignore_conflicts=True,
        )
        for bucket in Bucket.objects.filter(signature__in=[d for d, _ in missing]):
            found[(bucket.signature, bucket.signature_version)] = bucket
    return found


def _count_hits(rows: list[Finding], now) -> None:
    per_bucket: dict[int, list[Finding]] = defaultdict(list)
    for row in rows:
        per_bucket[row.bucket_id].append(row)
    # Fixed order: two workers updating the same buckets lock them in the
    # same sequence and cannot deadlock.
    for bucket_id in sorted(per_bucket):
        batch = per_bucket[bucket_id]
        Bucket.objects.filter(pk=bucket_id).update(hit_count=F("hit_count") + len(batch), last_seen=now)
        smallest = min(batch, key=lambda row: row.input_size)
        _offer_representative(bucket_id, smallest)


def _offer_representative(bucket_id: int, finding: Finding) -> None:
    # The representative is the smallest input seen: the one a maintainer
    # wants to read. A conditional update keeps this race-free.
    Bucket.objects.filter(
        Q(representative__isnull=True) | Q(representative__input_size__gt=finding.input_size),
        pk=bucket_id,
    ).update(representative=finding)


def finding_ingest(*, finding: EngineFinding, campaign_id: int | None = None) -> Finding:
    """Store one finding; see :func:`findings_ingest`."""
    return findings_ingest(findings=[finding], campaign_id=campaign_id).findings[0]
