"""What the bucket page shows of its reductions: the accepted one side by side with its original, and the latest."""

from __future__ import annotations

import difflib
import re

from django.urls import reverse
from django.utils.html import format_html

from triage.highlight import highlighted
from triage.models import Bucket, Reduction, ReductionState
from triage.visibility import visible_buckets

LANGUAGES = {"c": "c", "cpp": "cpp", "python": "python", "kotlin": "kotlin"}


def unified_diff(original: str, reduced: str) -> str:
    lines = difflib.unified_diff(
        original.splitlines(keepends=True), reduced.splitlines(keepends=True), "original", "reduced", n=2
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


# The end of a message that says which other bucket a candidate landed in
# (triage.reduction._verify_and_accept): "#<id> <title>" as the job saw it,
# or "a new one, not seen before".
_OTHER_BUCKET = re.compile(r"it lands in another bucket \((?:#(\d+)\b.*|a new one, not seen before)\)\Z", re.DOTALL)


def reduction_message(reduction: Reduction | None, *, user) -> str:
    """The reduction's message as ``user`` may read it: another bucket is named only if they may see it.

    The job writes the message for nobody in particular. A bucket hidden
    from ``user`` reads exactly as no bucket at all would, so that neither
    its number and title nor its existence shows; one they may see is named
    as it is now, with a link.
    """
    if reduction is None or not reduction.message:
        return ""
    message = reduction.message
    found = _OTHER_BUCKET.search(message)
    if found is None:
        return message
    head = message[: found.start()]
    other = None
    if found.group(1) and int(found.group(1)) < 2**63:
        other = visible_buckets(user).filter(pk=int(found.group(1))).only("pk", "title").first()
    if other is None:
        return format_html("{}it lands in another bucket, none you can see", head)
    url = reverse("triage:bucket", args=[other.pk])
    return format_html('{}it lands in another bucket (<a href="{}">#{} {}</a>)', head, url, other.pk, other.title)


def reduction_context(bucket: Bucket, *, user) -> dict:
    """Context for templates/triage/_reduction.html, as ``user`` may see it."""
    done = bucket.reductions.filter(state=ReductionState.DONE, result__isnull=False).select_related("user")
    # The one that made the representative: a later verified but larger upload does not displace it.
    accepted = done.filter(result_id=bucket.representative_id).first() or done.first()
    latest = bucket.reductions.select_related("user").first()
    context = {
        "bucket": bucket,
        "accepted": accepted,
        "latest": latest,
        "latest_message": reduction_message(latest, user=user),
    }
    if accepted is not None:
        language = accepted.language
        context["original_html"] = highlighted(accepted.original_text, language)
        context["reduced_html"] = highlighted(accepted.reduced_text, language)
        context["diff_html"] = highlighted(unified_diff(accepted.original_text, accepted.reduced_text), "diff")
    if latest is not None and not latest.finished and latest.reduced_text:
        context["partial_html"] = highlighted(latest.reduced_text, latest.language)
    if latest is not None and latest.finished and latest != accepted and latest.reduced_text:
        context["latest_html"] = highlighted(latest.reduced_text, latest.language)
    return context
