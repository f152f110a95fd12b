"""Restricting a bucket to a group, and keeping restricted findings restricted when they move.

Who then sees what is decided in :mod:`triage.visibility`; this module only
changes ``Bucket.restricted_to`` and logs each change.
"""

from __future__ import annotations

from django.contrib.auth.models import Group
from django.db import transaction

from triage.audit import audit
from triage.models import Bucket
from triage.visibility import can_restrict, restrict_choices
from triage.workflow import TriageError


def _name(group_id: int | None) -> str:
    if group_id is None:
        return ""
    return Group.objects.filter(pk=group_id).values_list("name", flat=True).first() or ""


def bucket_restrict(*, bucket_id: int, group_id: int | None, user) -> bool:
    """Show the bucket only to ``group_id`` (None: to everyone); False if it already was so.

    Only admins restrict, and only to a group of their own, so that nobody
    can hide a bucket from themselves by mistake (superusers see every bucket).
    """
    if not can_restrict(user):
        raise TriageError("Only admins restrict buckets.")
    if group_id is not None and not restrict_choices(user).filter(pk=group_id).exists():
        raise TriageError("Restrict a bucket to a group you belong to.")
    with transaction.atomic():
        old = Bucket.objects.select_for_update().filter(pk=bucket_id).values_list("restricted_to_id", flat=True).get()
        if old == group_id:
            return False
        Bucket.objects.filter(pk=bucket_id).update(restricted_to_id=group_id)
        audit(bucket_id=bucket_id, user=user, field="restricted to", old=_name(old), new=_name(group_id))
    return True


def restriction_carry(*, source_id: int, target_id: int, user, why: str) -> bool:
    """Findings of a restricted bucket moved into ``target_id``: restrict it too, unless it already is.

    Re-bucketing must never publish what a restricted bucket held. (A split
    keeps its source's restriction; a merge across restrictions is refused,
    triage.merge.) A target restricted to another group keeps its own group;
    the move is logged on it either way.
    """
    group_id = Bucket.objects.filter(pk=source_id).values_list("restricted_to_id", flat=True).first()
    if group_id is None:
        return False
    if not Bucket.objects.filter(pk=target_id, restricted_to__isnull=True).update(restricted_to_id=group_id):
        return False
    audit(bucket_id=target_id, user=user, field="restricted to", new=_name(group_id), note=why)
    return True
