"""Reads for the triage pages."""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass

from django.db.models import Exists, OuterRef, QuerySet

from triage.models import Bucket, BucketEvent, BucketMove, Finding, Kind, Method, Status
from triage.search import findings_matching
from triage.visibility import bucket_visible, hidden_bucket_ids, visible_buckets, visible_findings

SORTS = {
    "last_seen": ("-last_seen", "-pk"),
    "first_seen": ("-first_seen", "-pk"),
    "hits": ("-hit_count", "-pk"),
    "oldest": ("first_seen", "pk"),
    "priority": ("-priority", "-last_seen", "-pk"),
}


@dataclass(frozen=True)
class BucketQuery:
    """What the bucket list shows; every field optional (empty: no filter)."""

    status: str = ""
    method: str = ""
    kind: str = ""
    campaign_id: int | None = None
    target: str = ""
    engine: str = ""
    assignee_id: int | None = None
    unassigned: bool = False
    label_id: int | None = None
    seen_after: datetime.date | None = None
    seen_before: datetime.date | None = None
    text: str = ""
    muted: bool = False
    regression: bool = False
    sort: str = "last_seen"


def _triage_state(rows: QuerySet, query, path: str = "") -> QuerySet:
    """``rows`` filtered by the status, assignee and label ``query`` asks for (of the bucket at ``path``)."""
    if query.status in Status.values:
        rows = rows.filter(**{f"{path}status": query.status})
    if query.assignee_id is not None:
        rows = rows.filter(**{f"{path}assignee_id": query.assignee_id})
    elif query.unassigned:
        rows = rows.filter(**{f"{path}assignee__isnull": True})
    if query.label_id is not None:
        rows = rows.filter(**{f"{path}labels__pk": query.label_id})
    return rows


def bucket_list(query: BucketQuery = BucketQuery(), *, user) -> QuerySet[Bucket]:  # noqa: B008 - frozen, never mutated
    """Buckets ``user`` may see that match ``query``, sorted as it asks.

    Muted buckets are left out unless asked for: their hits still count,
    but they are known bugs that would crowd out the new ones. Filters on
    what the findings hold are EXISTS subqueries, never a join that would
    need DISTINCT over every bucket.
    """
    buckets = _triage_state(visible_buckets(user, Bucket.objects.select_related("assignee")), query)
    if query.method in Method.values:
        buckets = buckets.filter(method=query.method)
    if query.kind in Kind.values:
        buckets = buckets.filter(kind=query.kind)
    if query.seen_after:
        buckets = buckets.filter(last_seen__date__gte=query.seen_after)
    if query.seen_before:
        buckets = buckets.filter(first_seen__date__lte=query.seen_before)
    buckets = buckets.filter(muted=query.muted)
    if query.regression:
        buckets = buckets.filter(regression=True)
    findings = Finding.objects.all()
    narrowed = False
    if query.campaign_id is not None:
        findings, narrowed = findings.filter(campaign_id=query.campaign_id), True
    if query.target:
        findings, narrowed = findings.filter(target=query.target), True
    if query.engine:
        findings, narrowed = findings.filter(engine=query.engine), True
    if query.text:
        # The matching buckets' ids are read first. Inside one query PostgreSQL
        # may walk the buckets newest first and test each one's findings
        # against the words, computing every trace's text vector (seconds for
        # a common word); on its own the search is a GIN index scan.
        matched = findings_matching(query.text, findings).values_list("bucket_id", flat=True).distinct()
        buckets = buckets.filter(pk__in=list(matched.order_by()))
    elif narrowed:
        buckets = buckets.filter(Exists(findings.filter(bucket_id=OuterRef("pk"))))
    return buckets.order_by(*SORTS.get(query.sort, SORTS["last_seen"]))


@dataclass(frozen=True)
class FindingQuery:
    kind: str = ""
    # Of the finding's bucket.
    status: str = ""
    assignee_id: int | None = None
    unassigned: bool = False
    label_id: int | None = None
    campaign_id: int | None = None
    target: str = ""
    engine: str = ""
    seen_after: datetime.date | None = None
    seen_before: datetime.date | None = None
    text: str = ""
    sort: str = "last_seen"


FINDING_SORTS = {
    "last_seen": ("-last_seen", "-pk"),
    "first_seen": ("-created_at", "-pk"),
    "hits": ("-hit_count", "-pk"),
    "oldest": ("created_at", "pk"),
}


def finding_list(query: FindingQuery = FindingQuery(), *, user) -> QuerySet[Finding]:  # noqa: B008 - frozen
    """Findings ``user`` may see that match ``query``, without their large text fields."""
    findings = Finding.objects.select_related("bucket").only(
        "pk",
        "kind",
        "target",
        "engine",
        "function",
        "crash_type",
        "testcase_size",
        "hit_count",
        "created_at",
        "last_seen",
        "campaign_id",
        "origin",
        "bucket__id",
        "bucket__title",
        "bucket__status",
    )
    findings = _triage_state(visible_findings(user, findings), query, "bucket__")
    if query.kind in Kind.values:
        findings = findings.filter(kind=query.kind)
    if query.campaign_id is not None:
        findings = findings.filter(campaign_id=query.campaign_id)
    if query.target:
        findings = findings.filter(target=query.target)
    if query.engine:
        findings = findings.filter(engine=query.engine)
    if query.seen_after:
        findings = findings.filter(last_seen__date__gte=query.seen_after)
    if query.seen_before:
        findings = findings.filter(created_at__date__lte=query.seen_before)
    if query.text:
        findings = findings_matching(query.text, findings)
    return findings.order_by(*FINDING_SORTS.get(query.sort, FINDING_SORTS["last_seen"]))


def filter_choices() -> dict:
    """The values the list filters offer: the configured targets and engines, labels, people.

    Not the distinct targets of the findings: that is a scan of every
    finding on every page view. Targets that only external fuzzers report
    can still be typed in (the field is free text with suggestions).
    """
    from django.conf import settings
    from django.contrib.auth import get_user_model

    from campaigns.models import Target
    from triage.models import Label

    return {
        "targets": list(Target.objects.order_by("name").values_list("name", flat=True)[:500]),
        "engines": list(settings.FUZZWEB_ENGINES),
        "labels": list(Label.objects.all()),
        "users": list(get_user_model().objects.filter(is_active=True).order_by("username")[:500]),
    }


CHAIN_LIMIT = 50


def final_bucket_id(bucket_id: int) -> int:
    """Follow ``duplicate_of`` links to the bucket that takes the hits."""
    seen = [bucket_id]
    while len(seen) <= CHAIN_LIMIT:
        target = Bucket.objects.filter(pk=seen[-1]).values_list("duplicate_of_id", flat=True).first()
        if target is None or target in seen:
            return seen[-1]
        seen.append(target)
    return seen[-1]


def bucket_example(bucket: Bucket) -> Finding | None:
    """The finding shown for a bucket: its representative, else its latest."""
    if bucket.representative_id:
        return bucket.representative
    return bucket.findings.order_by("-created_at").first()


def bucket_duplicate_of(bucket: Bucket, *, user) -> int | None:
    """The bucket ``bucket`` is a duplicate of, if any and if ``user`` may see it (else None)."""
    return bucket.duplicate_of_id if bucket_visible(user, bucket.duplicate_of_id) else None


# How the audit log names another bucket: "#<id>", in the entries of merges, splits, re-bucketing and
# the restriction a merge once carried (triage.merge, triage.rebucket, triage.status). Entries of other
# fields (labels, issues, comments) hold text that may contain "#<digits>" and never name a bucket.
_BUCKET_NUMBER = re.compile(r"#(\d{1,18})\b")
_NAMING_FIELDS = ("duplicates", "status", "split", "rebucketed", "restricted to")


def bucket_events(bucket: Bucket, *, user, limit: int = 200) -> list[BucketEvent]:
    """The bucket's history as ``user`` may read it.

    An entry that names a bucket hidden from ``user`` ("duplicates #12",
    "duplicate, of #12", "split to #12") is left out whole: blanking the
    number would still say that a bucket they cannot see was merged here.
    """
    events = list(bucket.events.select_related("user")[:limit])
    hidden = set(hidden_bucket_ids(user))
    if not hidden:
        return events
    return [
        event
        for event in events
        if event.field not in _NAMING_FIELDS
        or not any(
            int(number) in hidden
            for text in (event.old_value, event.new_value, event.note)
            for number in _BUCKET_NUMBER.findall(text)
        )
    ]


def bucket_fuzzy_match(bucket: Bucket, *, user) -> BucketMove | None:
    """The fuzzy stage's standing merge of ``bucket`` into another, if that is how it became a duplicate.

    None when ``user`` may not see that other bucket: the frames it matched are its own.
    """
    if bucket_duplicate_of(bucket, user=user) is None:
        return None
    return BucketMove.objects.filter(
        source=bucket, kind=BucketMove.Kind.MERGE, undone_at__isnull=True, by_fuzzy_match=True
    ).first()


def finding_grouping(finding: Finding):
    """How the current signature algorithm reads ``finding`` (repairs made, the message it keyed on).

    Computed, not stored: the page explains the algorithm that runs today,
    from the finding's own text.
    """
    from triage.signing import fields_signature
    from triage.target_options import signature_options

    if finding.expired_at is not None:
        return None
    return fields_signature(finding, signature_options(finding.target))


def bucket_recent_findings(bucket: Bucket, limit: int = 20) -> list[Finding]:
    """The latest findings of a bucket, without their large text fields."""
    return list(
        bucket.findings.order_by("-created_at").only(
            "pk", "created_at", "campaign_id", "function", "testcase", "testcase_size", "hit_count", "expired_at"
        )[:limit]
    )


def unparsed_count(*, user) -> int:
    """Buckets whose traces no parser understood: the gaps worth a new parser."""
    return visible_buckets(user).filter(method=Method.MESSAGE).count()
