"""Who may see which bucket: restricted (security-sensitive) buckets only their group.

A bucket with ``restricted_to`` set is visible to members of that group and
to superusers, and to nobody else: not in lists, searches, the overview's
top buckets, lookalikes, campaign pages, exports or the API. Every read of
buckets or findings on behalf of a user goes through these functions, and a
hidden bucket answers 404, as if it did not exist, so that its number says
nothing either.

The filter excludes the few hidden buckets by id, read first (an index
scan of the restricted ones), rather than keeping the visible ones: with
"restricted_to is null or in my groups", or with the hidden ids as a
subquery, PostgreSQL guessed half the buckets away and chose to read every
bucket row to join on; a list of ids it estimates well, and where nothing
is restricted the query is not touched at all. The list is read once per
web request (HiddenBucketsPerRequest) and never kept longer, so a
restriction takes effect with the next request.
"""

from __future__ import annotations

from contextvars import ContextVar

from django.contrib.auth.models import Group
from django.db.models import QuerySet
from django.http import Http404

from triage.models import Bucket, Finding

RESTRICT_PERMISSION = "triage.restrict_bucket"


def _sees_everything(user) -> bool:
    return bool(user is not None and user.is_active and user.is_superuser)


# One web request reads the hidden ids once, however many lists and panels
# its page has. Set and cleared by HiddenBucketsPerRequest around each
# request; outside one (jobs, tests calling services) nothing is kept.
_per_request: ContextVar[dict | None] = ContextVar("fuzzweb_hidden_buckets", default=None)


class HiddenBucketsPerRequest:
    """Middleware: the scope of the hidden-bucket ids read during one request."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        token = _per_request.set({})
        try:
            return self.get_response(request)
        finally:
            _per_request.reset(token)


def hidden_bucket_ids(user) -> list[int]:
    """The ids of the buckets ``user`` may not see (none for a superuser)."""
    if _sees_everything(user):
        return []
    kept = _per_request.get()
    key = user.pk if user is not None and user.is_authenticated else None
    if kept is not None and key in kept:
        return kept[key]
    restricted = Bucket.objects.filter(restricted_to__isnull=False)
    if key is not None:
        restricted = restricted.exclude(restricted_to__in=Group.objects.filter(user=user))
    hidden = list(restricted.values_list("pk", flat=True))
    if kept is not None:
        kept[key] = hidden
    return hidden


def visible_buckets(user, buckets: QuerySet[Bucket] | None = None) -> QuerySet[Bucket]:
    """``buckets`` (default: all) without the restricted ones ``user`` may not see."""
    buckets = Bucket.objects.all() if buckets is None else buckets
    hidden = hidden_bucket_ids(user)
    return buckets.exclude(pk__in=hidden) if hidden else buckets


def visible_by_bucket(user, rows: QuerySet, path: str = "bucket") -> QuerySet:
    """``rows`` of a model with a foreign key to Bucket at ``path``, without those of hidden buckets."""
    hidden = hidden_bucket_ids(user)
    return rows.exclude(**{f"{path}_id__in": hidden}) if hidden else rows


def visible_findings(user, findings: QuerySet[Finding] | None = None) -> QuerySet[Finding]:
    """``findings`` (default: all) without those in buckets ``user`` may not see."""
    return visible_by_bucket(user, Finding.objects.all() if findings is None else findings)


def hidden_by_bucket(user, rows: QuerySet, path: str = "bucket") -> QuerySet:
    """The complement of :func:`visible_by_bucket`: only the ``rows`` of buckets hidden from ``user``.

    For totals kept as counters (a campaign's findings, the overview's
    findings per day): the hidden share is read and taken off, which touches
    the few restricted buckets' rows instead of recounting every row.
    """
    hidden = hidden_bucket_ids(user)
    return rows.filter(**{f"{path}_id__in": hidden}) if hidden else rows.none()


def bucket_visible(user, pk: int | None) -> bool:
    """Whether ``user`` may see bucket ``pk`` (False for None), without reading it."""
    return pk is not None and pk not in hidden_bucket_ids(user)


def bucket_visible_or_404(user, pk: int) -> Bucket:
    """The bucket ``pk`` if ``user`` may see it; 404 when it does not exist or is hidden from them."""
    if not 0 < pk < 2**63:  # beyond PostgreSQL's bigint: no such bucket, not a database error
        raise Http404("No such bucket.")
    bucket = visible_buckets(user).filter(pk=pk).first()
    if bucket is None:
        raise Http404("No such bucket.")
    return bucket


def can_restrict(user) -> bool:
    """Admins decide which buckets are restricted (the ``restrict_bucket`` permission)."""
    return bool(user is not None and user.is_authenticated and user.has_perm(RESTRICT_PERMISSION))


def restrict_choices(user) -> QuerySet[Group]:
    """The groups ``user`` may restrict a bucket to: their own (any, for a superuser), so they keep seeing it."""
    groups = Group.objects.order_by("name")
    return groups if _sees_everything(user) else groups.filter(user=user)
