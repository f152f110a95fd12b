"""Merging buckets (mark duplicate, undo) and splitting findings out into a new bucket.

A merge moves the duplicate's findings into the target and leaves the
duplicate's row behind with status "duplicate" and ``duplicate_of`` set:
ingest follows that link, so future hits of the duplicate's signature land
in the target too. Undo moves back the findings the merge moved plus those
of the duplicate's signature that arrived since, and restores its status.

A split gives the chosen findings a bucket of their own under a signature
made for it. Later hits with the findings' original signature still go to
the bucket they came from: the signature algorithm put them there, and a
split records the maintainer's judgement about these findings only. Marking
the split bucket a duplicate of its source undoes a split.
"""

from __future__ import annotations

import hashlib

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from triage.audit import audit
from triage.models import Bucket, BucketMove, Finding, Status
from triage.rebucket import bucket_recount
from triage.restriction import restriction_carry
from triage.selectors import final_bucket_id
from triage.status import bucket_restore_status, bucket_set_duplicate
from triage.workflow import TriageError


def _lock(*bucket_ids: int) -> dict[int, Bucket]:
    # Primary-key order, as ingest locks them, so the two cannot deadlock.
    return {b.pk: b for b in Bucket.objects.select_for_update().filter(pk__in=bucket_ids).order_by("pk")}


def bucket_merge(
    *, source_id: int, target_id: int, user, score: float | None = None, matched: tuple[str, ...] = ()
) -> BucketMove:
    """Mark ``source_id`` a duplicate of ``target_id``: its findings and future hits go there.

    ``score`` (and the ``matched`` frames) mark a merge the fuzzy stage
    made (triage.fuzzy) rather than a maintainer.
    """
    final = final_bucket_id(target_id)
    if final == source_id:
        raise TriageError("A bucket cannot be a duplicate of itself, nor of one of its own duplicates.")
    with transaction.atomic():
        buckets = _lock(source_id, final)
        if len(buckets) < 2:
            raise TriageError(f"No bucket #{target_id}.")
        source = buckets[source_id]
        if source.status == Status.DUPLICATE:
            raise TriageError(f"#{source_id} is already a duplicate of #{source.duplicate_of_id}; undo that first.")
        ids = list(Finding.objects.filter(bucket_id=source_id).values_list("pk", flat=True))
        Finding.objects.filter(pk__in=ids).update(bucket_id=final)
        move = BucketMove.objects.create(
            kind=BucketMove.Kind.MERGE,
            source_id=source_id,
            target_id=final,
            finding_ids=ids,
            source_status=source.status,
            user=user if user and user.is_authenticated else None,
            by_fuzzy_match=score is not None,
            score=score,
            matched_frames=list(matched),
        )
        bucket_set_duplicate(bucket_id=source_id, target_id=final, user=user)
        why = f"fuzzy match, score {score:.2f}" if score is not None else f"{len(ids)} findings moved in"
        audit(bucket_id=final, user=user, field="duplicates", new=f"#{source_id}", note=why)
        restriction_carry(source_id=source_id, target_id=final, user=user, why=f"restricted #{source_id} merged in")
        bucket_recount(bucket_id=final)
        bucket_recount(bucket_id=source_id)
    return move


def bucket_merge_undo(*, source_id: int, user) -> BucketMove:
    """Undo the latest merge of ``source_id``: its findings come back and it gets its old status again."""
    with transaction.atomic():
        move = (
            BucketMove.objects.select_for_update()
            .filter(kind=BucketMove.Kind.MERGE, source_id=source_id, undone_at__isnull=True)
            .first()
        )
        if move is None:
            raise TriageError(f"#{source_id} is not marked duplicate of anything.")
        # The target may itself have been merged on since: the findings are at the end of that chain.
        holders = {move.target_id, final_bucket_id(move.target_id)}
        buckets = _lock(source_id, *holders)
        source = buckets[source_id]
        # Those the merge moved, and those of this bucket's signature that came since.
        back = Finding.objects.filter(
            Q(pk__in=move.finding_ids) | Q(signature=source.signature, signature_version=source.signature_version),
            bucket_id__in=holders,
        ).update(bucket_id=source_id)
        move.undone_at = timezone.now()
        move.save(update_fields=["undone_at"])
        bucket_restore_status(
            bucket_id=source_id,
            status=move.source_status or Status.NEW,
            user=user,
            reason=f"undo duplicate of #{move.target_id}",
        )
        audit(
            bucket_id=move.target_id,
            user=user,
            field="duplicates",
            old=f"#{source_id}",
            note=f"{back} findings moved out",
        )
        bucket_recount(bucket_id=source_id)
        for holder in sorted(holders):
            bucket_recount(bucket_id=holder)
    return move


def bucket_split(*, source_id: int, finding_ids: list[int], user) -> Bucket:
    """Move ``finding_ids`` out of ``source_id`` into a new bucket; return it."""
    with transaction.atomic():
        source = _lock(source_id).get(source_id)
        if source is None:
            raise TriageError(f"No bucket #{source_id}.")
        chosen = sorted(
            set(Finding.objects.filter(bucket_id=source_id, pk__in=finding_ids).values_list("pk", flat=True))
        )
        if not finding_ids:
            raise TriageError("Choose the findings to move out.")
        if len(chosen) != len(set(finding_ids)):
            raise TriageError("Some of the chosen findings are not in this bucket.")
        if not Finding.objects.filter(bucket_id=source_id).exclude(pk__in=chosen).exists():
            raise TriageError("Splitting out every finding would leave this bucket empty; keep at least one.")
        now = timezone.now()
        digest = hashlib.sha256(f"split:{source_id}:{now.isoformat()}:{chosen}".encode()).hexdigest()
        bucket = Bucket.objects.create(
            signature=digest,
            signature_version=source.signature_version,
            kind=source.kind,
            crash_type=source.crash_type,
            title=f"{source.title} (split from #{source_id})"[:300],
            key_frames=source.key_frames,
            method=source.method,
            trace_format=source.trace_format,
            restricted_to_id=source.restricted_to_id,
            first_seen=now,
            last_seen=now,
        )
        Finding.objects.filter(pk__in=chosen).update(bucket=bucket)
        BucketMove.objects.create(
            kind=BucketMove.Kind.SPLIT,
            source_id=source_id,
            target=bucket,
            finding_ids=chosen,
            user=user if user and user.is_authenticated else None,
        )
        audit(
            bucket_id=source_id, user=user, field="split", new=f"#{bucket.pk}", note=f"{len(chosen)} findings moved out"
        )
        audit(
            bucket_id=bucket.pk, user=user, field="split", old=f"#{source_id}", note=f"{len(chosen)} findings moved in"
        )
        bucket_recount(bucket_id=source_id)
        bucket_recount(bucket_id=bucket.pk)
    bucket.refresh_from_db()
    return bucket
