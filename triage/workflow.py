"""Triage edits of a bucket other than its status: assignee, priority, labels, muting, watchers, comments.

Each service changes one thing and logs it (triage.audit); a call that
changes nothing logs nothing and returns False.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.db import transaction

from triage.audit import audit
from triage.models import Bucket, Comment, Label, Priority

COMMENT_LIMIT = 20_000
# A field bucket_update is not asked to change.
KEEP = object()


class TriageError(ValueError):
    """A triage edit that cannot be made, with a message for the maintainer."""


def _locked(bucket_id: int) -> Bucket:
    return Bucket.objects.select_for_update().get(pk=bucket_id)


def bucket_assign(*, bucket_id: int, assignee_id: int | None, user) -> bool:
    with transaction.atomic():
        bucket = _locked(bucket_id)
        if bucket.assignee_id == assignee_id:
            return False
        new = None
        if assignee_id is not None:
            new = get_user_model().objects.filter(pk=assignee_id, is_active=True).first()
            if new is None:
                raise TriageError(f"no active user #{assignee_id}")
        old = bucket.assignee.get_username() if bucket.assignee_id else ""
        Bucket.objects.filter(pk=bucket_id).update(assignee=new)
        audit(bucket_id=bucket_id, user=user, field="assignee", old=old, new=new.get_username() if new else "")
    return True


def bucket_set_priority(*, bucket_id: int, priority: int, user) -> bool:
    if priority not in Priority.values:
        raise TriageError(f"unknown priority {priority!r}")
    with transaction.atomic():
        bucket = _locked(bucket_id)
        if bucket.priority == priority:
            return False
        Bucket.objects.filter(pk=bucket_id).update(priority=priority)
        audit(
            bucket_id=bucket_id,
            user=user,
            field="priority",
            old=Priority(bucket.priority).label,
            new=Priority(priority).label,
        )
    return True


def bucket_set_labels(*, bucket_id: int, label_ids: Iterable[int], user) -> bool:
    """Make the bucket's labels exactly ``label_ids``; one audit entry per label added or removed."""
    wanted = set(label_ids)
    with transaction.atomic():
        bucket = _locked(bucket_id)
        current = set(bucket.labels.values_list("pk", flat=True))
        if wanted == current:
            return False
        names = dict(Label.objects.filter(pk__in=wanted | current).values_list("pk", "name"))
        unknown = wanted - set(names)
        if unknown:
            raise TriageError(f"no label #{min(unknown)}")
        bucket.labels.set(wanted)
        for pk in sorted(wanted - current, key=names.get):
            audit(bucket_id=bucket_id, user=user, field="label", new=names[pk])
        for pk in sorted(current - wanted, key=names.get):
            audit(bucket_id=bucket_id, user=user, field="label", old=names[pk])
    return True


def buckets_add_label(*, bucket_ids: Iterable[int], label_id: int, user) -> int:
    """Add one label to several buckets (a bulk action); return how many gained it."""
    label = Label.objects.filter(pk=label_id).first()
    if label is None:
        raise TriageError(f"no label #{label_id}")
    added = 0
    with transaction.atomic():
        for bucket in Bucket.objects.select_for_update().filter(pk__in=list(bucket_ids)).exclude(labels=label):
            bucket.labels.add(label)
            audit(bucket_id=bucket.pk, user=user, field="label", new=label.name)
            added += 1
    return added


def bucket_set_muted(*, bucket_id: int, muted: bool, user) -> bool:
    with transaction.atomic():
        if not Bucket.objects.filter(pk=bucket_id).exclude(muted=muted).update(muted=muted):
            return False
        audit(bucket_id=bucket_id, user=user, field="muted", old=str(not muted).lower(), new=str(muted).lower())
    return True


def bucket_watch(*, bucket_id: int, user, watching: bool) -> bool:
    with transaction.atomic():
        bucket = _locked(bucket_id)
        present = bucket.watchers.filter(pk=user.pk).exists()
        if present == watching:
            return False
        if watching:
            bucket.watchers.add(user)
        else:
            bucket.watchers.remove(user)
        audit(
            bucket_id=bucket_id,
            user=user,
            field="watcher",
            old="" if watching else user.get_username(),
            new=user.get_username() if watching else "",
        )
    return True


def bucket_comment(*, bucket_id: int, user, text: str) -> Comment:
    text = text.replace("\r\n", "\n").strip()
    if not text:
        raise TriageError("A comment needs some text.")
    if len(text) > COMMENT_LIMIT:
        raise TriageError(f"A comment holds at most {COMMENT_LIMIT} characters; this one has {len(text)}.")
    with transaction.atomic():
        comment = Comment.objects.create(bucket_id=bucket_id, user=user, text=text)
        audit(bucket_id=bucket_id, user=user, field="comment", new=f"comment {comment.pk}")
    return comment


def bucket_update(
    *,
    bucket_id: int,
    user,
    status=KEEP,
    assignee_id=KEEP,
    priority=KEEP,
    label_ids=KEEP,
    muted=KEEP,
) -> list[str]:
    """Apply the bucket page's triage form (or an API client's changes); return the fields that changed.

    A field left at :data:`KEEP` is not touched.
    """
    from triage.status import bucket_set_status

    changed = []
    with transaction.atomic():
        current = Bucket.objects.filter(pk=bucket_id).values_list("status", flat=True).get()
        # A duplicate's status is changed by undoing the merge: the form sends it back unchanged.
        if (
            status is not KEEP
            and status
            and status != current
            and bucket_set_status(bucket_id=bucket_id, status=status, user=user)
        ):
            changed.append("status")
        if assignee_id is not KEEP and bucket_assign(bucket_id=bucket_id, assignee_id=assignee_id, user=user):
            changed.append("assignee")
        if priority is not KEEP and bucket_set_priority(bucket_id=bucket_id, priority=priority, user=user):
            changed.append("priority")
        if label_ids is not KEEP and bucket_set_labels(bucket_id=bucket_id, label_ids=label_ids, user=user):
            changed.append("labels")
        if muted is not KEEP and bucket_set_muted(bucket_id=bucket_id, muted=muted, user=user):
            changed.append("muted")
    return changed


def bucket_changes_apply(*, bucket_id: int, user, changes) -> list[str]:
    """Apply an API client's :class:`triage.api.changes.BucketChanges`; return the fields that changed.

    Names become ids first, so an unknown user or label changes nothing at all.
    """
    assignee_id = changes.assignee
    if assignee_id not in (KEEP, None):
        assignee_id = _users().filter(username=changes.assignee).values_list("pk", flat=True).first()
        if assignee_id is None:
            raise TriageError(f"no active user named {changes.assignee!r}")
    label_ids = changes.labels
    if label_ids is not KEEP:
        found = dict(Label.objects.filter(name__in=changes.labels).values_list("name", "pk"))
        missing = sorted(set(changes.labels) - set(found))
        if missing:
            raise TriageError(f"no label named {missing[0]!r}")
        label_ids = found.values()
    with transaction.atomic():
        changed = bucket_update(
            bucket_id=bucket_id,
            user=user,
            status=changes.status,
            assignee_id=assignee_id,
            priority=changes.priority,
            label_ids=label_ids,
            muted=changes.muted,
        )
        if changes.comment is not KEEP:
            bucket_comment(bucket_id=bucket_id, user=user, text=changes.comment)
            changed.append("comment")
    return changed


def _users():
    return get_user_model().objects.filter(is_active=True)


def buckets_bulk(*, bucket_ids: list[int], user, action: str, value: str) -> int:
    """One bulk action of the bucket list on the selected buckets; return how many changed."""
    from triage.status import DuplicateStatusKept, bucket_set_status

    if action == "label":
        return buckets_add_label(bucket_ids=bucket_ids, label_id=int(value), user=user)
    changed = 0
    with transaction.atomic():
        for bucket_id in bucket_ids:
            if action == "status":
                # A duplicate keeps its status until its merge is undone (bucket_set_status
                # refuses it before writing anything); the rest of the selection changes.
                try:
                    changed += bucket_set_status(bucket_id=bucket_id, status=value, user=user)
                except DuplicateStatusKept:
                    continue
            elif action == "assign":
                changed += bucket_assign(bucket_id=bucket_id, assignee_id=int(value) if value else None, user=user)
            elif action in ("mute", "unmute"):
                changed += bucket_set_muted(bucket_id=bucket_id, muted=action == "mute", user=user)
            else:
                raise TriageError(f"unknown bulk action {action!r}")
    return changed
