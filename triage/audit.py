"""The bucket audit log: one entry per change, whoever or whatever made it."""

from __future__ import annotations

from triage.models import BucketEvent

VALUE_LIMIT = 255


def _short(value: object) -> str:
    text = "" if value is None else str(value)
    return text if len(text) <= VALUE_LIMIT else text[: VALUE_LIMIT - 1] + "…"


def audit(*, bucket_id: int, user, field: str, old: object = "", new: object = "", note: str = "") -> BucketEvent:
    """Record that ``user`` (None: the system) changed ``field`` of a bucket from ``old`` to ``new``."""
    return BucketEvent.objects.create(
        bucket_id=bucket_id,
        user=user if user is not None and user.is_authenticated else None,
        field=field,
        old_value=_short(old),
        new_value=_short(new),
        note=note[:500],
    )
