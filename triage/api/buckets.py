"""Buckets over the API: list and read them (read scope), triage them (write scope).

The same selectors and services as the pages: restricted buckets stay
hidden (404, as on the pages), and every change is audited.
"""

from __future__ import annotations

from django.core.paginator import EmptyPage, Paginator
from django.http import Http404, JsonResponse
from django.urls import reverse

from fuzzweb.api_auth import api_error, token_required
from fuzzweb.json_body import BadBody, json_body_read
from triage import selectors
from triage.api.changes import parse_bucket_changes
from triage.api.payload import InvalidPayload
from triage.models import Bucket, Kind, Status
from triage.selectors import SORTS, BucketQuery
from triage.visibility import bucket_visible_or_404
from triage.workflow import TriageError, bucket_changes_apply

PAGE_SIZE = 50
API_SORTS = tuple(SORTS)
MAX_PAGE = 10**6
CHANGE_BODY_LIMIT = 64 * 1024


def bucket_json(bucket: Bucket, *, user) -> dict:
    """A bucket as the API shows it to ``user`` (labels and assignee must be prefetched or cheap)."""
    return {
        "id": bucket.pk,
        "title": bucket.title,
        "kind": bucket.kind,
        "status": bucket.status,
        "crash_type": bucket.crash_type,
        "method": bucket.method,
        "signature": bucket.signature,
        "signature_version": bucket.signature_version,
        "hit_count": bucket.hit_count,
        "first_seen": bucket.first_seen.isoformat(),
        "last_seen": bucket.last_seen.isoformat(),
        "assignee": bucket.assignee.get_username() if bucket.assignee_id else None,
        "priority": bucket.priority,
        "labels": [label.name for label in bucket.labels.all()],
        "muted": bucket.muted,
        "regression": bucket.regression,
        # Null, as for no duplicate, when the bucket it joined is hidden from the user.
        "duplicate_of": selectors.bucket_duplicate_of(bucket, user=user),
        "issue_url": bucket.issue_url,
        "representative": bucket.representative_id,
        "url": reverse("triage:bucket", args=[bucket.pk]),
    }


def _list_query(params) -> tuple[BucketQuery, int]:
    errors = {}
    status, kind, sort = params.get("status", ""), params.get("kind", ""), params.get("sort", "last_seen")
    if status and status not in Status.values:
        errors["status"] = f"one of {', '.join(Status.values)}"
    if kind and kind not in Kind.values:
        errors["kind"] = f"one of {', '.join(Kind.values)}"
    if sort not in API_SORTS:
        errors["sort"] = f"one of {', '.join(API_SORTS)}"
    text = params.get("q", "")
    if len(text) > 200 or "\x00" in text:
        errors["q"] = "at most 200 characters, without NUL"
    page = params.get("page", "1")
    if not page.isdigit() or not 1 <= int(page) <= MAX_PAGE:
        errors["page"] = f"an integer from 1 to {MAX_PAGE}"
    if errors:
        raise InvalidPayload(errors)
    return BucketQuery(status=status, kind=kind, text=text, sort=sort), int(page)


@token_required(needs={"GET": "read"})
def bucket_list(request):
    try:
        query, number = _list_query(request.GET)
    except InvalidPayload as error:
        return api_error(400, "invalid query", fields=error.errors)
    buckets = selectors.bucket_list(query, user=request.user).prefetch_related("labels")
    paginator = Paginator(buckets, PAGE_SIZE)
    try:
        page = paginator.page(number)
    except EmptyPage:
        return api_error(404, f"no page {number}: there are {paginator.num_pages}")
    return JsonResponse(
        {
            "count": paginator.count,
            "page": number,
            "pages": paginator.num_pages,
            "results": [bucket_json(bucket, user=request.user) for bucket in page.object_list],
        }
    )


def _bucket(request, pk: int) -> Bucket:
    return bucket_visible_or_404(request.user, pk)


@token_required(needs={"GET": "read", "PATCH": "write"})
def bucket_item(request, pk):
    try:
        bucket = _bucket(request, pk)
    except Http404:
        return api_error(404, f"no bucket #{pk}")
    if request.method == "PATCH":
        try:
            changes = parse_bucket_changes(json_body_read(request, limit=CHANGE_BODY_LIMIT, object_required=False))
        except BadBody as error:  # 400 even when oversized (not its 413): what this endpoint has always answered
            return api_error(400, str(error))
        except InvalidPayload as error:
            return api_error(400, "invalid changes", fields=error.errors)
        try:
            bucket_changes_apply(bucket_id=bucket.pk, user=request.user, changes=changes)
        except TriageError as error:
            return api_error(400, str(error))
        bucket = _bucket(request, pk)
    return JsonResponse(bucket_json(bucket, user=request.user))
