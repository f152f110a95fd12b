"""Turn submissions into stored findings, grouped into buckets by signature.

Bucketing is an index lookup on (signature, version) for the whole batch,
never a scan over buckets. A testcase seen before (same content hash) only
raises its counts. Findings arrive in batches because engines report
hundreds a second; a batch costs a handful of queries however many buckets
exist.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from triage import signatures, text
from triage.models import Bucket, Finding
from triage.submission import Submission
from triage.target_options import signature_options


@dataclass(frozen=True)
class Stored:
    """What happened to one submission."""

    finding: Finding
    new_bucket: bool
    duplicate: bool


@dataclass(frozen=True)
class IngestResult:
    """What a batch did, in submission order."""

    stored: list[Stored]

    @property
    def findings(self) -> list[Finding]:
        return [item.finding for item in self.stored]

    @property
    def new_buckets(self) -> list[Bucket]:
        seen, buckets = set(), []
        for item in self.stored:
            if item.new_bucket and item.finding.bucket_id not in seen:
                seen.add(item.finding.bucket_id)
                buckets.append(item.finding.bucket)
        return buckets


def content_hash(submission: Submission) -> str:
    """Identity of a testcase: the same input to the same target is one finding."""
    digest = hashlib.sha256()
    for part in (submission.kind, submission.target, submission.function):
        digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
    if submission.testcase_bytes is not None:
        digest.update(b"bytes\0" + submission.testcase_bytes)
    elif submission.testcase:
        digest.update(b"text\0" + submission.testcase.encode("utf-8", "surrogatepass"))
    else:
        # No testcase: the crash output is all there is to tell reports apart.
        digest.update(b"trace\0" + submission.trace.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _testcase_text(submission: Submission) -> str:
    if submission.testcase_bytes is not None:
        return text.preview_bytes(submission.testcase_bytes, text.INPUT_LIMIT)
    return text.clean(submission.testcase, text.INPUT_LIMIT)


def _prepare(submission: Submission, campaign_id: int | None, now, options) -> tuple[Finding, signatures.Signature]:
    trace = text.clean(submission.trace, text.TRACE_LIMIT)
    crash_type = text.clean_short(submission.crash_type)
    message = text.clean(submission.message, text.MESSAGE_LIMIT)
    signature = signatures.compute(
        kind=submission.kind,
        crash_type=crash_type,
        trace_text=trace,
        message=message,
        target=submission.target,
        stage=submission.stage,
        reference=submission.reference,
        backends=[(b.name, b.outcome) for b in submission.backends],
        top_n=options.top_n,
        ignore=options.ignore,
    )
    testcase = _testcase_text(submission)
    row = Finding(
        campaign_id=campaign_id,
        kind=submission.kind,
        target=text.clean_short(submission.target),
        engine=text.clean_short(submission.engine),
        function=text.clean_short(submission.function),
        stage=text.clean_short(submission.stage),
        crash_type=crash_type,
        message=message,
        trace=trace,
        trace_format=signature.trace_format,
        testcase=testcase,
        testcase_bytes=submission.testcase_bytes,
        testcase_language=text.clean_short(submission.testcase_language) or "text",
        testcase_size=(len(submission.testcase_bytes) if submission.testcase_bytes is not None else len(testcase)),
        content_hash=content_hash(submission),
        reproducer=text.clean(submission.reproducer, text.INPUT_LIMIT),
        reference=text.clean_short(submission.reference),
        backends=[
            {
                "name": text.clean_short(b.name),
                "outcome": b.outcome,
                "output": text.clean(b.output, text.MESSAGE_LIMIT),
                "exit_code": b.exit_code,
            }
            for b in submission.backends
        ],
        versions={text.clean_short(k): text.clean_short(str(v)) for k, v in submission.versions.items()},
        metadata=text.clean_json(submission.metadata),
        signature=signature.digest,
        signature_version=signature.version,
        created_at=now,
        last_seen=now,
    )
    return row, signature


def findings_ingest(*, submissions: Sequence[Submission], campaign_id: int | None = None) -> IngestResult:
    """Store ``submissions``, creating buckets for signatures seen for the first time."""
    if not submissions:
        return IngestResult([])
    now = timezone.now()
    options = {}
    prepared = []
    for submission in submissions:
        if submission.target not in options:
            options[submission.target] = signature_options(submission.target)
        prepared.append(_prepare(submission, campaign_id, now, options[submission.target]))

    with transaction.atomic():
        existing = {
            f.content_hash: f
            for f in Finding.objects.filter(content_hash__in={row.content_hash for row, _ in prepared}).select_related(
                "bucket"
            )
        }
        fresh = [(row, sig) for row, sig in prepared if row.content_hash not in existing]
        by_signature = {(sig.digest, sig.version): sig for _, sig in fresh}
        buckets = _buckets_for(by_signature, now)
        new_bucket_ids = {b.pk for b in buckets.values() if b.hit_count == 0}

        # One row per distinct testcase; repeats inside the batch count as hits.
        unique_rows: dict[str, Finding] = {}
        repeats: dict[str, int] = defaultdict(int)
        for row, sig in fresh:
            if row.content_hash in unique_rows:
                repeats[row.content_hash] += 1
                continue
            row.bucket = buckets[(sig.digest, sig.version)]
            unique_rows[row.content_hash] = row
        for row in unique_rows.values():
            row.hit_count += repeats.get(row.content_hash, 0)
        created = Finding.objects.bulk_create(list(unique_rows.values()))
        by_hash = {row.content_hash: row for row in created}

        old_hits: dict[str, int] = defaultdict(int)
        for row, _ in prepared:
            if row.content_hash in existing:
                old_hits[row.content_hash] += 1
        for content, count in old_hits.items():
            Finding.objects.filter(pk=existing[content].pk).update(hit_count=F("hit_count") + count, last_seen=now)

        _count_bucket_hits(created, existing, old_hits, now)

    stored = []
    seen_in_batch: set[str] = set()
    for row, _ in prepared:
        if row.content_hash in existing:
            stored.append(Stored(existing[row.content_hash], new_bucket=False, duplicate=True))
            continue
        finding = by_hash[row.content_hash]
        duplicate = row.content_hash in seen_in_batch
        seen_in_batch.add(row.content_hash)
        stored.append(
            Stored(finding, new_bucket=finding.bucket_id in new_bucket_ids and not duplicate, duplicate=duplicate)
        )
    return IngestResult(stored)


def _buckets_for(by_signature: dict[tuple[str, int], signatures.Signature], now) -> dict:
    if not by_signature:
        return {}
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
            [_new_bucket(by_signature[key], now) for key in missing],
            ignore_conflicts=True,
        )
        for bucket in Bucket.objects.filter(signature__in=[d for d, _ in missing]):
            found[(bucket.signature, bucket.signature_version)] = bucket
    return found


def _new_bucket(signature: signatures.Signature, now) -> Bucket:
    return Bucket(
        signature=signature.digest,
        signature_version=signature.version,
        kind=signature.kind,
        crash_type=text.clean_short(signature.crash_type),
        title=text.clean_short(signature.title),
        key_frames=[text.clean_short(frame) for frame in signature.frames],
        method=signature.method,
        trace_format=signature.trace_format,
        first_seen=now,
        last_seen=now,
    )


def _count_bucket_hits(created: list[Finding], existing: dict, old_hits: dict, now) -> None:
    per_bucket: dict[int, int] = defaultdict(int)
    smallest: dict[int, Finding] = {}
    for row in created:
        per_bucket[row.bucket_id] += row.hit_count
        if row.bucket_id not in smallest or row.testcase_size < smallest[row.bucket_id].testcase_size:
            smallest[row.bucket_id] = row
    for content, count in old_hits.items():
        per_bucket[existing[content].bucket_id] += count
    # Fixed order: two workers updating the same buckets lock them in the
    # same sequence and cannot deadlock.
    for bucket_id in sorted(per_bucket):
        Bucket.objects.filter(pk=bucket_id).update(hit_count=F("hit_count") + per_bucket[bucket_id], last_seen=now)
        if bucket_id in smallest:
            _offer_representative(bucket_id, smallest[bucket_id])


def _offer_representative(bucket_id: int, finding: Finding) -> None:
    # The representative is the smallest testcase seen: the one a maintainer
    # wants to read. A conditional update keeps this race-free.
    Bucket.objects.filter(
        Q(representative__isnull=True) | Q(representative__testcase_size__gt=finding.testcase_size),
        pk=bucket_id,
    ).update(representative=finding)


def finding_ingest(*, submission: Submission, campaign_id: int | None = None) -> Finding:
    """Store one submission; see :func:`findings_ingest`."""
    return findings_ingest(submissions=[submission], campaign_id=campaign_id).findings[0]
