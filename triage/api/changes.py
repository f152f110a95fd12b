"""Validate the body of ``PATCH /api/v1/buckets/{id}`` into :class:`BucketChanges`.

Pure, like :mod:`triage.api.payload`: every problem is named by field, and
unknown fields are errors rather than silently ignored.
"""

from __future__ import annotations

from dataclasses import dataclass

from campaigns.targets import text_storable
from triage.api.payload import InvalidPayload
from triage.models import Priority, Status
from triage.workflow import COMMENT_LIMIT, KEEP

# "duplicate" is set by naming the bucket a bucket duplicates, on the bucket page.
SETTABLE_STATUSES = tuple(s for s in Status.values if s != Status.DUPLICATE)
FIELDS = ("status", "assignee", "priority", "labels", "muted", "comment")


@dataclass(frozen=True)
class BucketChanges:
    """What to change; a field left at ``KEEP`` (not in the body) stays as it is."""

    status: object = KEEP
    assignee: object = KEEP  # a user name, or None for nobody
    priority: object = KEEP
    labels: object = KEEP  # a tuple of label names: the bucket's whole set
    muted: object = KEEP
    comment: object = KEEP


def parse_bucket_changes(data) -> BucketChanges:
    """Check a decoded JSON body; raise :class:`InvalidPayload` listing every problem."""
    if not isinstance(data, dict):
        raise InvalidPayload({"body": "must be a JSON object"})
    errors: dict[str, str] = {}
    unknown = set(data) - set(FIELDS)
    if unknown:
        errors["unknown"] = f"unknown field(s): {', '.join(sorted(unknown))}; known: {', '.join(FIELDS)}"
    if not set(data) & set(FIELDS) and not unknown:
        errors["body"] = f"nothing to change: send at least one of {', '.join(FIELDS)}"
    status = data.get("status")
    if "status" in data and status not in SETTABLE_STATUSES:
        errors["status"] = f"one of {', '.join(SETTABLE_STATUSES)}"
    assignee = data.get("assignee", KEEP)
    if (
        assignee is not KEEP
        and assignee is not None
        and (not isinstance(assignee, str) or not assignee.strip() or not text_storable(assignee))
    ):
        errors["assignee"] = "a user name, or null for nobody"
    priority = data.get("priority")
    if "priority" in data and (type(priority) is not int or priority not in Priority.values):
        errors["priority"] = f"an integer, one of {', '.join(map(str, Priority.values))}"
    labels = data.get("labels")
    if "labels" in data and (
        not isinstance(labels, list) or not all(isinstance(x, str) and text_storable(x) for x in labels)
    ):
        errors["labels"] = "a list of label names (the bucket's whole set)"
    muted = data.get("muted")
    if "muted" in data and not isinstance(muted, bool):
        errors["muted"] = "true or false"
    comment = data.get("comment")
    if "comment" in data and (
        not isinstance(comment, str)
        or not comment.strip()
        or len(comment) > COMMENT_LIMIT
        or not text_storable(comment)
    ):
        errors["comment"] = f"a non-empty string of at most {COMMENT_LIMIT} characters, without NUL"
    if errors:
        raise InvalidPayload(errors)
    given = {name: data[name] for name in FIELDS if name in data}
    if isinstance(assignee, str):
        given["assignee"] = assignee.strip()
    if "labels" in given:
        given["labels"] = tuple(labels)
    return BucketChanges(**given)
