"""What the bucket page shows of its reductions: the accepted one side by side with its original, and the latest."""

from __future__ import annotations

import difflib

from triage.highlight import highlighted
from triage.models import Bucket, ReductionState

LANGUAGES = {"c": "c", "cpp": "cpp", "python": "python", "kotlin": "kotlin"}


def unified_diff(original: str, reduced: str) -> str:
    lines = difflib.unified_diff(
        original.splitlines(keepends=True), reduced.splitlines(keepends=True), "original", "reduced", n=2
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def reduction_context(bucket: Bucket) -> dict:
    """Context for templates/triage/_reduction.html."""
    done = bucket.reductions.filter(state=ReductionState.DONE, result__isnull=False).select_related("user")
    # The one that made the representative: a later verified but larger upload does not displace it.
    accepted = done.filter(result_id=bucket.representative_id).first() or done.first()
    latest = bucket.reductions.select_related("user").first()
    context = {"bucket": bucket, "accepted": accepted, "latest": latest}
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
