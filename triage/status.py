"""Bucket status transitions, the only place that changes a bucket's status."""

from __future__ import annotations

from django.db import transaction

from triage.models import Bucket, BucketEvent, Status


class InvalidStatus(ValueError):
    """The requested status is not one of :class:`triage.models.Status`."""


def bucket_set_status(*, bucket_id: int, status: str, user) -> bool:
    """Set a bucket's status and log who did it; return False if nothing changed.

    The update is conditional on the status read, so two maintainers saving
    at once both get an audit entry that tells the truth.
    """
    if status not in Status.values:
        raise InvalidStatus(f"unknown status {status!r}")
    with transaction.atomic():
        old = Bucket.objects.filter(pk=bucket_id).values_list("status", flat=True).first()
        if old is None:
            raise Bucket.DoesNotExist(bucket_id)
        if old == status:
            return False
        changed = Bucket.objects.filter(pk=bucket_id, status=old).update(status=status)
        if not changed:
            return False
        BucketEvent.objects.create(bucket_id=bucket_id, user=user, field="status", old_value=old, new_value=status)
    return True
