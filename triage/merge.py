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

Findings never cross a restriction here. A merge (or its undo) between a
restricted bucket and a public one, or buckets restricted to different
groups, is refused whoever asks: carried one way it would publish the
restricted findings, the other way it would hide a public bucket's findings
and future hits from everyone outside the group (restricting the target, as
merges once did, let any triager of the group hide a public bucket). An
admin who means it restricts or lifts the restriction first, on the page
where that is audited as such. A person is also refused, as if it did not
exist, a bucket they may not see, including one at the end of a chain of
duplicates.
"""

from __future__ import annotations

import hashlib

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from triage.audit import audit
from triage.models import Bucket, BucketMove, Finding, Status
from triage.rebucket import bucket_recount
from triage.selectors import final_bucket_id
from triage.status import bucket_restore_status, bucket_set_duplicate
from triage.visibility import hidden_bucket_ids
from triage.workflow import TriageError


def _lock(*bucket_ids: int) -> dict[int, Bucket]:
    # Primary-key order, as ingest locks them, so the two cannot deadlock.
    return {b.pk: b for b in Bucket.objects.select_for_update().filter(pk__in=bucket_ids).order_by("pk")}


def _hidden_from(user, *bucket_ids: int) -> set[int]:
    # The system (the fuzzy stage, jobs) acts on every bucket; a person only on those they may see.
    if user is None:
        return set()
    return set(bucket_ids) & set(hidden_bucket_ids(user))


def _same_restriction(source: Bucket, target: Bucket) -> None:
    """Refuse moving findings between ``source`` and ``target`` unless both are restricted alike."""
    if source.restricted_to_id == target.restricted_to_id:
        return
    if source.restricted_to_id and target.restricted_to_id:
        raise TriageError(
            f"#{source.pk} and #{target.pk} are restricted to different groups: merging them would show "
            "each group's findings to the other. An admin can restrict both to one group first."
        )
    restricted, public = (source, target) if source.restricted_to_id else (target, source)
    raise TriageError(
        f"#{restricted.pk} is restricted to a group and #{public.pk} is not: merging them would hide "
        f"#{public.pk} and its findings from everyone outside the group, or show #{restricted.pk}'s to "
        f"everyone. An admin can restrict #{public.pk} first if it belongs with #{restricted.pk}."
    )


def bucket_merge(
    *, source_id: int, target_id: int, user, score: float | None = None, matched: tuple[str, ...] = ()
) -> BucketMove:
    """Mark ``source_id`` a duplicate of ``target_id``: its findings and future hits go there.

    ``score`` (and the ``matched`` frames) mark a merge the fuzzy stage
    made (triage.fuzzy) rather than a maintainer.
    """
    hidden = _hidden_from(user, source_id, target_id)
    if hidden:
        raise TriageError(f"No bucket #{min(hidden)}.")
    final = final_bucket_id(target_id)
    if final == source_id:
        raise TriageError("A bucket cannot be a duplicate of itself, nor of one of its own duplicates.")
    if _hidden_from(user, final):
        # Not named: following the chain must not tell where it ends.
        raise TriageError(f"#{target_id} is a duplicate of a bucket you cannot see; mark it a duplicate of another.")
    with transaction.atomic():
        buckets = _lock(source_id, final)
        if len(buckets) < 2:
            raise TriageError(f"No bucket #{target_id}.")
        source = buckets[source_id]
        if source.status == Status.DUPLICATE:
            of = "another bucket" if _hidden_from(user, source.duplicate_of_id) else f"#{source.duplicate_of_id}"
            raise TriageError(f"#{source_id} is already a duplicate of {of}; undo that first.")
        _same_restriction(source, buckets[final])
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
        # Restricted since the merge (by an admin): its findings, and those that arrived since,
        # are restricted now and stay so. Not named: the user may not see where they are.
        if any(buckets[pk].restricted_to_id != source.restricted_to_id for pk in holders if pk in buckets):
            raise TriageError(
                f"#{source_id}'s findings are now in a bucket restricted differently from it: moving them "
                "back would change who sees them. An admin can restrict both alike first."
            )
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
