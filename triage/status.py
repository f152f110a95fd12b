"""Bucket status transitions, the only place that changes a bucket's status.

Every change leaves a :class:`~triage.models.BucketEvent`; the dates the
overview charts (reported, fixed) are set here too, so they cannot drift
from the history.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from triage.audit import audit
from triage.models import Bucket, Finding, Status
from triage.workflow import TriageError


class InvalidStatus(TriageError):
    """The requested status is not one of :class:`triage.models.Status`, or not set this way."""


class DuplicateStatusKept(InvalidStatus):
    """The bucket is a duplicate: only undoing its merge changes its status."""


def bucket_set_status(*, bucket_id: int, status: str, user) -> bool:
    """Set a bucket's status and log who did it; return False if nothing changed.

    The update is conditional on the status read, so two maintainers saving
    at once both get an audit entry that tells the truth. "Duplicate" is set
    by :func:`triage.merge.bucket_merge`, which also says of what.
    """
    if status not in Status.values:
        raise InvalidStatus(f"unknown status {status!r}")
    if status == Status.DUPLICATE:
        raise InvalidStatus("mark a bucket duplicate by naming the bucket it duplicates")
    with transaction.atomic():
        current = Bucket.objects.filter(pk=bucket_id).values_list("status", flat=True).first()
        # Its findings sit in the other bucket: only undoing the merge brings them back.
        if current == Status.DUPLICATE and status != current:
            raise DuplicateStatusKept(f"#{bucket_id} is a duplicate; undo that on its page to change its status")
        return bucket_transition(bucket_id=bucket_id, status=status, user=user)


def bucket_transition(*, bucket_id: int, status: str, user, reason: str = "") -> bool:
    """Change the status within the caller's transaction, saying why (a regression, a closed issue, an undo)."""
    old = Bucket.objects.filter(pk=bucket_id).values_list("status", flat=True).first()
    if old is None:
        raise Bucket.DoesNotExist(bucket_id)
    if old == status:
        return False
    now = timezone.now()
    changes: dict[str, object] = {"status": status}
    if status == Status.REPORTED:
        changes["reported_at"] = now
    if status == Status.FIXED:
        changes["fixed_at"] = now
        changes["regression"] = False
        # What it was last seen on: a regression report names these against the new ones.
        latest = Finding.objects.filter(bucket_id=bucket_id).order_by("-last_seen").values_list("versions", flat=True)
        changes["fixed_versions"] = latest.first() or {}
    if old == Status.DUPLICATE:
        changes["duplicate_of"] = None
    if not Bucket.objects.filter(pk=bucket_id, status=old).update(**changes):
        return False
    audit(bucket_id=bucket_id, user=user, field="status", old=old, new=status, note=reason)
    return True


def bucket_set_duplicate(*, bucket_id: int, target_id: int, user) -> None:
    """Status "duplicate" of ``target_id``: only :mod:`triage.merge` calls this, inside its transaction."""
    old = Bucket.objects.filter(pk=bucket_id).values_list("status", flat=True).get()
    Bucket.objects.filter(pk=bucket_id).update(status=Status.DUPLICATE, duplicate_of_id=target_id)
    audit(bucket_id=bucket_id, user=user, field="status", old=old, new=Status.DUPLICATE, note=f"of #{target_id}")


def bucket_status_inherit(*, bucket_id: int, source: Bucket, reason: str) -> bool:
    """Re-bucketing moved triaged findings into a new (or still new) bucket: it takes their bucket's status.

    The dates and versions come along, so the overview's times to report and
    fix stay those of the real triage, not of the day the algorithm changed.
    """
    old = Bucket.objects.filter(pk=bucket_id).values_list("status", flat=True).get()
    if old == source.status:
        return False
    Bucket.objects.filter(pk=bucket_id).update(
        status=source.status,
        reported_at=source.reported_at,
        fixed_at=source.fixed_at,
        fixed_versions=source.fixed_versions,
    )
    audit(bucket_id=bucket_id, user=None, field="status", old=old, new=source.status, note=reason)
    return True


def bucket_restore_status(*, bucket_id: int, status: str, user, reason: str) -> None:
    """Put back the status a bucket had before it was merged (undo)."""
    bucket_transition(bucket_id=bucket_id, status=status, user=user, reason=reason)


def buckets_reopen_fixed(*, bucket_ids: list[int], versions: dict[int, dict]) -> list[int]:
    """Reopen the fixed, unmuted buckets among ``bucket_ids`` as regressions; return their ids.

    Called by ingest with the versions of the findings that hit them. The
    conditional update reopens each bucket once, however many workers see
    the same regression at the same moment.
    """
    reopened = []
    candidates = Bucket.objects.filter(pk__in=bucket_ids, status=Status.FIXED, muted=False)
    for bucket_id, fixed_versions in candidates.values_list("pk", "fixed_versions"):
        hit_versions = versions.get(bucket_id) or {}
        changed = Bucket.objects.filter(pk=bucket_id, status=Status.FIXED).update(
            status=Status.NEW, regression=True, regression_versions=hit_versions
        )
        if not changed:
            continue
        audit(
            bucket_id=bucket_id,
            user=None,
            field="status",
            old=Status.FIXED,
            new=Status.NEW,
            note=f"regression: fixed on {_describe(fixed_versions)}, hit again on {_describe(hit_versions)}",
        )
        reopened.append(bucket_id)
    return reopened


def _describe(versions: dict) -> str:
    if not versions:
        return "unknown versions"
    return ", ".join(f"{name} {version}" for name, version in sorted(versions.items()))
