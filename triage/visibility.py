"""Who may see which bucket: restricted (security-sensitive) buckets only their group.

A bucket with ``restricted_to`` set is visible to members of that group and
to superusers, and to nobody else: not in lists, searches, the overview's
top buckets, lookalikes, campaign pages, exports or the API. Every read of
buckets or findings on behalf of a user goes through these functions, and a
hidden bucket answers 404, as if it did not exist, so that its number says
nothing either.

The filter is a subquery on the user's groups rather than a list read
first: one query, and nothing cached between requests.
"""

from __future__ import annotations

from django.contrib.auth.models import Group
from django.db.models import Q, QuerySet
from django.http import Http404

from triage.models import Bucket, Finding

RESTRICT_PERMISSION = "triage.restrict_bucket"


def _sees_everything(user) -> bool:
    return bool(user is not None and user.is_active and user.is_superuser)


def _allowed(user, prefix: str = "") -> Q:
    groups = Group.objects.filter(user=user) if user is not None and user.is_authenticated else Group.objects.none()
    return Q(**{f"{prefix}restricted_to__isnull": True}) | Q(**{f"{prefix}restricted_to__in": groups})


def visible_buckets(user, buckets: QuerySet[Bucket] | None = None) -> QuerySet[Bucket]:
    """``buckets`` (default: all) without the restricted ones ``user`` may not see."""
    buckets = Bucket.objects.all() if buckets is None else buckets
    return buckets if _sees_everything(user) else buckets.filter(_allowed(user))


def visible_by_bucket(user, rows: QuerySet, path: str = "bucket") -> QuerySet:
    """``rows`` of a model with a foreign key to Bucket at ``path``, without those of hidden buckets."""
    return rows if _sees_everything(user) else rows.filter(_allowed(user, f"{path}__"))


def visible_findings(user, findings: QuerySet[Finding] | None = None) -> QuerySet[Finding]:
    """``findings`` (default: all) without those in buckets ``user`` may not see."""
    return visible_by_bucket(user, Finding.objects.all() if findings is None else findings)


def bucket_visible_or_404(user, pk: int) -> Bucket:
    """The bucket ``pk`` if ``user`` may see it; 404 when it does not exist or is hidden from them."""
    if not 0 < pk < 2**63:  # beyond PostgreSQL's bigint: no such bucket, not a database error
        raise Http404("No such bucket.")
    bucket = visible_buckets(user).filter(pk=pk).first()
    if bucket is None:
        raise Http404("No such bucket.")
    return bucket


def can_see(user, bucket: Bucket) -> bool:
    if bucket.restricted_to_id is None or _sees_everything(user):
        return True
    return bool(user is not None and user.is_authenticated and user.groups.filter(pk=bucket.restricted_to_id).exists())


def can_restrict(user) -> bool:
    """Admins decide which buckets are restricted (the ``restrict_bucket`` permission)."""
    return bool(user is not None and user.is_authenticated and user.has_perm(RESTRICT_PERMISSION))


def restrict_choices(user) -> QuerySet[Group]:
    """The groups ``user`` may restrict a bucket to: their own (any, for a superuser), so they keep seeing it."""
    groups = Group.objects.order_by("name")
    return groups if _sees_everything(user) else groups.filter(user=user)
