"""Re-bucketing: recompute signatures with the current algorithm and move findings.

When the signature algorithm improves, old findings keep the signature (and
bucket) an older version gave them until this runs. Triage work survives:

- a bucket whose findings all get one new signature keeps its row (status,
  history, comments) and just takes the new signature;
- when its findings split, the largest group keeps the row and the others
  go to the buckets of their new signatures, new ones starting with the
  old bucket's status;
- when buckets merge into one that already exists, that bucket keeps its
  status unless it was still new, in which case it takes the triaged one,
  and the history of the emptied bucket moves with its findings;
- a bucket a maintainer split out, and a miscompilation's culprit bucket,
  keep their findings: no signature can recompute those decisions.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, Max, Min, Sum

from crashes import signatures
from triage.ingest import bucket_from_signature, finding_signature
from triage.models import Bucket, BucketEvent, BucketMove, Comment, FiledIssue, Finding, Method, Status
from triage.restriction import restriction_carry
from triage.status import bucket_status_inherit
from triage.target_options import signature_options


@dataclass
class RebucketSummary:
    buckets_examined: int = 0
    findings_moved: int = 0
    buckets_created: int = 0
    buckets_emptied: int = 0


def findings_rebucket(*, only_outdated: bool = True) -> RebucketSummary:
    """Re-bucket findings whose signature an older algorithm made (or all of them)."""
    summary = RebucketSummary()
    buckets = Bucket.objects.order_by("pk")
    if only_outdated:
        buckets = buckets.exclude(signature_version=signatures.CURRENT.VERSION)
    for bucket_id in buckets.values_list("pk", flat=True).iterator():
        bucket_rebucket(bucket_id=bucket_id, summary=summary)
    return summary


def bucket_rebucket(*, bucket_id: int, summary: RebucketSummary | None = None) -> RebucketSummary:
    """Recompute the signatures of one bucket's findings and move them where they belong."""
    summary = summary or RebucketSummary()
    options: dict[str, object] = {}
    with transaction.atomic():
        bucket = Bucket.objects.select_for_update().filter(pk=bucket_id).first()
        if bucket is None:
            return summary
        summary.buckets_examined += 1
        if _keyed_elsewhere(bucket):
            return summary
        # Findings a maintainer merged in stay here whatever their new signature says.
        merged_in = _merged_in(bucket)
        groups: dict[tuple[str, int], list[int]] = defaultdict(list)
        found: dict[tuple[str, int], signatures.Signature] = {}
        # Expired findings (triage.retention) have no trace left to sign: they stay with this row.
        for finding in (
            bucket.findings.filter(expired_at__isnull=True)
            .only("pk", "kind", "crash_type", "trace", "message", "target", "stage", "reference", "backends")
            .iterator()
        ):
            if finding.target not in options:
                options[finding.target] = signature_options(finding.target)
            signature = finding_signature(finding, options[finding.target])
            key = (signature.digest, signature.version)
            groups[key].append(finding.pk)
            found.setdefault(key, signature)
        if not groups:
            return summary
        # Groups made only of merged-in findings stay; the bucket's own findings decide the rest.
        for key in [key for key in groups if merged_in and set(groups[key]) <= set(merged_in)]:
            if len(groups) > 1:
                _keep_merged(bucket, key, groups.pop(key), merged_in)

        # The largest group keeps this bucket's row, unless its signature
        # already has a bucket of its own.
        ordered = sorted(groups, key=lambda key: -len(groups[key]))
        existing = {
            (b.signature, b.signature_version): b
            for b in Bucket.objects.filter(signature__in=[digest for digest, _ in ordered]).exclude(pk=bucket.pk)
        }
        keeper = next((key for key in ordered if key not in existing), None)
        touched = {bucket.pk}
        for key in ordered:
            if key == keeper:
                signature = found[key]
                _retarget(bucket, signature)
                Finding.objects.filter(pk__in=groups[key]).update(signature=key[0], signature_version=key[1])
                continue
            target = existing.get(key)
            if target is None:
                target = bucket_from_signature(found[key], bucket.first_seen, bucket.target)
                target.restricted_to_id = bucket.restricted_to_id
                target.save()
                bucket_status_inherit(bucket_id=target.pk, source=bucket, reason=f"re-bucketed from #{bucket.pk}")
                summary.buckets_created += 1
            elif target.status == Status.NEW and bucket.status != Status.NEW:
                bucket_status_inherit(bucket_id=target.pk, source=bucket, reason=f"re-bucketed from #{bucket.pk}")
            moved = Finding.objects.filter(pk__in=groups[key]).update(
                bucket=target, signature=key[0], signature_version=key[1]
            )
            summary.findings_moved += moved
            touched.add(target.pk)
            restriction_carry(source_id=bucket.pk, target_id=target.pk, user=None, why=f"re-bucketed from #{bucket.pk}")
            BucketEvent.objects.create(
                bucket=target, field="rebucketed", old_value=f"#{bucket.pk}", new_value=f"{moved} findings"
            )
        if keeper is None:
            # Every finding went to other buckets: this one is merged away, with its history
            # and the expired findings that still count its hits.
            heir = existing[ordered[0]]
            BucketEvent.objects.filter(bucket=bucket).update(bucket=heir)
            Finding.objects.filter(bucket=bucket).update(bucket=heir)
            # What maintainers wrote and decided goes along instead of being cascaded away.
            Comment.objects.filter(bucket=bucket).update(bucket=heir)
            FiledIssue.objects.filter(bucket=bucket).update(bucket=heir)
            heir.labels.add(*bucket.labels.all())
            heir.watchers.add(*bucket.watchers.all())
            touched.discard(bucket.pk)
            bucket.delete()
            summary.buckets_emptied += 1
        for pk in touched:
            bucket_recount(bucket_id=pk)
    return summary


def _keyed_elsewhere(bucket: Bucket) -> bool:
    """A bucket whose key no trace gives keeps its findings, at today's version.

    A maintainer's split and a miscompilation's culprit (triage.culprits:
    found by re-compiling the program, not by reading the finding) are
    decisions a signature cannot recompute; a rebucket must not undo them.
    """
    split = BucketMove.objects.filter(kind=BucketMove.Kind.SPLIT, target=bucket, undone_at__isnull=True).exists()
    if not split and bucket.method != Method.CULPRIT:
        return False
    Bucket.objects.filter(pk=bucket.pk).update(signature_version=signatures.CURRENT.VERSION)
    return True


def _merged_in(bucket: Bucket) -> dict[int, int]:
    """Finding id -> the duplicate bucket a standing merge moved it from."""
    merged: dict[int, int] = {}
    for move in BucketMove.objects.filter(kind=BucketMove.Kind.MERGE, target=bucket, undone_at__isnull=True):
        merged.update(dict.fromkeys(move.finding_ids, move.source_id))
        # And the hits of the duplicate's signature that came after the merge.
        source = Bucket.objects.filter(pk=move.source_id).values_list("signature", "signature_version").first()
        if source:
            later = bucket.findings.filter(signature=source[0], signature_version=source[1]).values_list(
                "pk", flat=True
            )
            merged.update(dict.fromkeys(later, move.source_id))
    return merged


def _keep_merged(bucket: Bucket, key: tuple[str, int], finding_ids: list[int], merged_in: dict[int, int]) -> None:
    """Merged-in findings keep their bucket; their duplicate takes the new signature, so new hits follow the merge."""
    Finding.objects.filter(pk__in=finding_ids).update(signature=key[0], signature_version=key[1])
    source_id = merged_in[finding_ids[0]]
    if not Bucket.objects.filter(signature=key[0], signature_version=key[1]).exists():
        Bucket.objects.filter(pk=source_id).update(signature=key[0], signature_version=key[1])


def _retarget(bucket: Bucket, signature: signatures.Signature) -> None:
    if (bucket.signature, bucket.signature_version) == (signature.digest, signature.version):
        return
    fresh = bucket_from_signature(signature, bucket.first_seen, bucket.target)
    for field in (
        "signature",
        "signature_version",
        "kind",
        "crash_type",
        "title",
        "key_frames",
        "method",
        "trace_format",
        "fuzzy_frames",
        "fuzzy_keys",
        "fuzzy_crash_type",
    ):
        setattr(bucket, field, getattr(fresh, field))
    bucket.save()


def bucket_recount(*, bucket_id: int) -> None:
    """Recompute a bucket's counts, dates and representative from its findings."""
    totals = Finding.objects.filter(bucket_id=bucket_id).aggregate(
        hits=Sum("hit_count"), first=Min("created_at"), last=Max("last_seen"), findings=Count("pk")
    )
    smallest = representative_of(bucket_id)
    Bucket.objects.filter(pk=bucket_id).update(
        hit_count=totals["hits"] or 0,
        **({"first_seen": totals["first"], "last_seen": totals["last"]} if totals["findings"] else {}),
        representative=smallest,
        representative_size=smallest.testcase_size if smallest else None,
        representative_verified=bool(smallest and smallest.verified_at),
    )


def representative_of(bucket_id: int) -> Finding | None:
    """The smallest verified reproducer among the bucket's findings; the smallest finding if none is verified."""
    # An expired finding (triage.retention) has no testcase left to show.
    findings = Finding.objects.filter(bucket_id=bucket_id, expired_at__isnull=True).only(
        "pk", "testcase_size", "verified_at"
    )
    return (
        findings.filter(verified_at__isnull=False).order_by("testcase_size", "pk").first()
        or findings.order_by("testcase_size", "pk").first()
    )
